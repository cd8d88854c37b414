package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyStateTableTest {

    @Test
    void removingKeysInTableOrderLeavesNoCluster() {
        // An expiry storm's elements are polled, then removed, in table order; the segments shrink as they empty.
        // The keys left must not pile up at one end of the smaller arrays, where probing would be quadratic.
        KeyStateTable table = new KeyStateTable();
        for (int i = 0; i < 200_000; i++) {
            Object key = new Object();
            table.insert(key, KeyStateTable.hash(key), 1L);
        }
        List<List<Object>> bySegment = new ArrayList<>();
        for (int s = 0; s < KeyStateTable.SEGMENTS; s++) {
            bySegment.add(new ArrayList<>());
        }
        table.forEach((key, state) -> bySegment.get(KeyStateTable.hash(key) & (KeyStateTable.SEGMENTS - 1)).add(key));
        int left = 0;
        for (List<Object> inTableOrder : bySegment) { // remove all but the last 2.5% of each segment, in its order
            int keep = inTableOrder.size() / 40;
            for (Object key : inTableOrder.subList(0, inTableOrder.size() - keep)) {
                assertThat(table.remove(key, KeyStateTable.hash(key))).isEqualTo(1L);
            }
            left += keep;
        }
        assertThat(table.size()).isEqualTo(left);
        assertThat(table.capacity()).as("shrunk").isLessThan(200_000 / 4);
        assertThat(table.longestProbe()).isLessThan(64);
    }

    @Test
    void aKeyAddedAgainAfterItsRemovalIsFoundWithItsNewState() {
        KeyStateTable table = new KeyStateTable();
        Object key = "k";
        int hash = KeyStateTable.hash(key);
        assertThat(table.insert(key, hash, 1L)).isTrue();
        assertThat(table.insert(key, hash, 2L)).isFalse();
        assertThat(table.remove(key, hash)).isEqualTo(1L);
        assertThat(table.remove(key, hash)).isEqualTo(KeyStateTable.REMOVED);
        assertThat(table.insert(new String("k"), hash, 3L)).isTrue();
        KeyStateTable.Slots a = table.slots(hash);
        assertThat(KeyStateTable.state(a, KeyStateTable.indexOf(a, key, hash))).isEqualTo(3L);
    }
}

package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyRingTest {

    private final KeyRing ring = new KeyRing();

    @Test
    void slotsAreIntervalsModuloTheRing() {
        assertThat(KeyRing.slotOf(0, 1000)).isZero();
        assertThat(KeyRing.slotOf(3000, 1000)).isEqualTo(3);
        assertThat(KeyRing.slotOf(KeyRing.SLOTS * 1000L + 2000, 1000)).isEqualTo(2);
    }

    @Test
    void sortKeepsMovesAndDropsInFilingOrder() {
        for (int i = 0; i < 100; i++) {
            ring.add(5, "k" + i, i);
        }
        List<Object> seen = new ArrayList<>();
        ring.sort(5, (key, tag) -> {
            seen.add(key);
            if (tag % 3 == 1) {
                ring.add(6, key, tag); // moved on
                return false;
            }
            return tag % 3 == 0;     // kept, or dropped
        });
        assertThat(seen).hasSize(100).startsWith("k0", "k1", "k2");
        assertThat(ring.size()).isEqualTo(34 + 33);
        List<Object> kept = new ArrayList<>();
        ring.sort(5, (key, tag) -> kept.add(key));
        assertThat(kept).hasSize(34).startsWith("k0", "k3", "k6");
        List<Object> moved = new ArrayList<>();
        ring.sort(6, (key, tag) -> !moved.add(key));
        assertThat(moved).hasSize(33).startsWith("k1", "k4");
        assertThat(ring.size()).isEqualTo(34);
    }

    @Test
    void aSlotEmptiedAfterAStormCanBeFilledAgain() {
        for (int i = 0; i < 100_000; i++) {
            ring.add(0, i, i);
        }
        ring.sort(0, (key, tag) -> false);
        assertThat(ring.size()).isZero();
        ring.add(0, "again", 1);
        List<Object> seen = new ArrayList<>();
        ring.sort(0, (key, tag) -> !seen.add(key));
        assertThat(seen).containsExactly("again");
    }

    @Test
    void clearDropsEveryFilingOfEverySlot() {
        for (int i = 0; i < 1000; i++) {
            ring.add(i % (KeyRing.SLOTS + 1), i, i);
        }
        ring.clear();
        assertThat(ring.size()).isZero();
        for (int s = 0; s <= KeyRing.SLOTS; s++) {
            assertThat(ring.size(s)).isZero();
            ring.sort(s, (key, tag) -> {
                throw new AssertionError("a filing survived clear: " + key);
            });
        }
    }
}

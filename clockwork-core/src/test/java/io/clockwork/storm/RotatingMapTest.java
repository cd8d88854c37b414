package io.clockwork.storm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RotatingMapTest {

    private final List<Map.Entry<String, Integer>> expired = new ArrayList<>();
    private final RotatingMap<String, Integer> map = new RotatingMap<>(3, (k, v) -> expired.add(entry(k, v)));

    @Test
    void putThenGetContainsAndSize() {
        map.put("a", 1);
        map.put("b", 2);
        assertThat(map.get("a")).isEqualTo(1);
        assertThat(map.containsKey("b")).isTrue();
        assertThat(map.containsKey("c")).isFalse();
        assertThat(map.get("c")).isNull();
        assertThat(map.size()).isEqualTo(2);
        assertThat(map.keyset()).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void entrySurvivesNumBucketsMinusOneRotationsAndExpiresOnTheNext() {
        map.put("a", 1);
        assertThat(map.rotate()).isEmpty();
        assertThat(map.rotate()).isEmpty();
        assertThat(map.get("a")).isEqualTo(1);
        assertThat(map.rotate()).containsExactly(entry("a", 1));
        assertThat(expired).containsExactly(entry("a", 1));
        assertThat(map.containsKey("a")).isFalse();
        assertThat(map.size()).isZero();
    }

    @Test
    void putMovesTheKeyToTheNewestGeneration() {
        map.put("a", 1);
        map.rotate();
        map.rotate();
        map.put("a", 2);
        assertThat(map.rotate()).isEmpty();
        assertThat(map.rotate()).isEmpty();
        assertThat(map.rotate()).containsExactly(entry("a", 2));
        assertThat(expired).containsExactly(entry("a", 2));
    }

    @Test
    void callbackIsCalledOncePerExpiredEntry() {
        for (int i = 0; i < 1000; i++) {
            map.put("k" + i, i);
        }
        for (int r = 0; r < 10; r++) {
            map.rotate();
        }
        assertThat(expired).hasSize(1000).doesNotHaveDuplicates();
    }

    @Test
    void removedEntryIsNeverReported() {
        map.put("a", 1);
        assertThat(map.remove("a")).isEqualTo(1);
        assertThat(map.remove("a")).isNull();
        for (int r = 0; r < 5; r++) {
            assertThat(map.rotate()).isEmpty();
        }
        assertThat(expired).isEmpty();
    }

    @Test
    void keyPutAgainAfterRemovalLivesAfresh() {
        map.put("a", 1);
        map.rotate();
        map.remove("a");
        map.put("a", 2);
        map.rotate();
        map.rotate();
        assertThat(map.get("a")).isEqualTo(2);
        assertThat(map.rotate()).containsExactly(entry("a", 2));
    }

    @Test
    void nullValuesAreAllowedAsInStorm() {
        map.put("a", null);
        assertThat(map.containsKey("a")).isTrue();
        assertThat(map.get("a")).isNull();
        assertThat(map.getOrDefault("a", 7)).isNull();
        assertThat(map.getOrDefault("b", 7)).isEqualTo(7);
    }

    @Test
    void mapWithoutCallbackStillReturnsExpiredEntries() {
        RotatingMap<String, Integer> plain = new RotatingMap<>(2);
        plain.put("a", 1);
        plain.rotate();
        assertThat(plain.rotate()).containsExactly(entry("a", 1));
    }

    @Test
    void throwingCallbackIsLoggedAndEveryOtherEntryIsStillReported() {
        List<String> seen = new ArrayList<>();
        RotatingMap<String, Integer> failing = new RotatingMap<>(2, (k, v) -> {
            seen.add(k);
            throw new IllegalStateException("callback failure (expected by the test)");
        });
        failing.put("a", 1);
        failing.put("b", 2);
        failing.rotate();
        assertThat(failing.rotate()).containsOnlyKeys("a", "b");
        assertThat(seen).containsExactlyInAnyOrder("a", "b");
        failing.put("c", 3);
        failing.rotate();
        failing.rotate();
        assertThat(seen).containsExactlyInAnyOrder("a", "b", "c");
    }

    @Test
    void badArgumentsAreRejectedWithTheirNames() {
        assertThatThrownBy(() -> new RotatingMap<String, Integer>(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numBuckets").hasMessageContaining("[2, ").hasMessageContaining("was 1");
        assertThatThrownBy(() -> new RotatingMap<String, Integer>(RotatingMap.MAX_NUM_BUCKETS + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("numBuckets");
        assertThatThrownBy(() -> new RotatingMap<String, Integer>(3, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("callback");
        assertThatThrownBy(() -> map.put(null, 1)).isInstanceOf(NullPointerException.class).hasMessage("key");
        assertThatThrownBy(() -> map.get(null)).isInstanceOf(NullPointerException.class).hasMessage("key");
        assertThatThrownBy(() -> map.containsKey(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> map.remove(null)).isInstanceOf(NullPointerException.class);
    }
}

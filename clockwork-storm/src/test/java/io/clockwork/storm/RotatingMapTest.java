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
    void fewerThanTwoBucketsAreRejectedAsInStorm() {
        assertThatThrownBy(() -> new RotatingMap<String, Integer>(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numBuckets must be >= 2").hasMessageContaining("was 1");
        assertThatThrownBy(() -> new RotatingMap<String, Integer>(0, (k, v) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void manyBucketsAreAcceptedAsInStorm() {
        RotatingMap<String, Integer> wide = new RotatingMap<>(100_000);
        wide.put("a", 1);
        for (int r = 0; r < 99_999; r++) {
            wide.rotate();
        }
        assertThat(wide.get("a")).isEqualTo(1);
        assertThat(wide.rotate()).containsExactly(entry("a", 1));
    }

    @Test
    void nullKeysAreKeysAsInStormsHashMaps() {
        map.put(null, 1);
        map.put("b", 2);
        assertThat(map.containsKey(null)).isTrue();
        assertThat(map.get(null)).isEqualTo(1);
        assertThat(map.getOrDefault(null, 9)).isEqualTo(1);
        assertThat(map.size()).isEqualTo(2);
        assertThat(map.keyset()).containsExactlyInAnyOrder(null, "b");
        map.put(null, 3);
        assertThat(map.get(null)).isEqualTo(3);
        assertThat(map.size()).isEqualTo(2);
        map.rotate();
        map.rotate();
        assertThat(map.peekOldestBucket()).containsOnly(entry(null, 3), entry("b", 2));
        assertThat(map.rotate()).containsOnly(entry(null, 3), entry("b", 2));
        assertThat(expired).containsExactlyInAnyOrder(entry(null, 3), entry("b", 2));
        map.put(null, 4);
        assertThat(map.remove(null)).isEqualTo(4);
        assertThat(map.containsKey(null)).isFalse();
        assertThat(map.get(null)).isNull();
        assertThat(map.remove(null)).isNull();
    }

    @Test
    void nullCallbackMeansNone() {
        RotatingMap<String, Integer> quiet = new RotatingMap<>(2, null);
        RotatingMap<String, Integer> quietDefault =
                new RotatingMap<>((RotatingMap.ExpiredCallback<String, Integer>) null);
        quiet.put("a", 1);
        quietDefault.put("a", 1);
        quiet.rotate();
        assertThat(quiet.rotate()).containsExactly(entry("a", 1));
        for (int r = 0; r < 2; r++) {
            assertThat(quietDefault.rotate()).isEmpty();
        }
        assertThat(quietDefault.rotate()).containsExactly(entry("a", 1));
    }

    @Test
    void peekOldestBucketShowsWhatTheNextRotationExpires() {
        assertThat(map.peekOldestBucket()).isEmpty();
        map.put("a", 1);
        assertThat(map.peekOldestBucket()).as("a fresh put is in the newest generation").isEmpty();
        map.rotate();
        map.put("b", 2);
        map.rotate();
        assertThat(map.peekOldestBucket()).containsExactly(entry("a", 1));
        map.put("a", 10);
        assertThat(map.peekOldestBucket()).as("a put moves the key out of the oldest generation").isEmpty();
        map.rotate();
        assertThat(map.peekOldestBucket()).containsExactly(entry("b", 2));
        assertThat(map.rotate()).containsExactly(entry("b", 2));
        assertThat(map.peekOldestBucket()).containsExactly(entry("a", 10));
        map.remove("a");
        assertThat(map.peekOldestBucket()).isEmpty();
        map.put("c", 3);
        for (int r = 0; r < 3; r++) {
            map.rotate();
        }
        assertThat(map.peekOldestBucket()).as("expired entries are gone").isEmpty();
    }

    @Test
    void peekOldestBucketIsAnUnmodifiableSnapshot() {
        map.put("a", 1);
        map.rotate();
        map.rotate();
        Map<String, Integer> oldest = map.peekOldestBucket();
        assertThatThrownBy(() -> oldest.put("x", 9)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> oldest.remove("a")).isInstanceOf(UnsupportedOperationException.class);
        map.put("a", 2);
        assertThat(oldest).containsExactly(entry("a", 1));
    }
}

package io.clockwork.storm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.clockwork.engine.SharedDriver;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Contract tests drive a map by hand ({@code expireDue()} after moving a {@link ManualTicker}); the engine tests let
 * the engine's shared driver do it and wait for the outcome.
 */
class TimeCacheMapTest {

    private final ManualTicker ticker = new ManualTicker();
    private final List<Map.Entry<String, Integer>> expired = new CopyOnWriteArrayList<>();
    // 3 s with 3 buckets: a rotation every 1.5 s, entries live 3 to 4.5 s after their last put.
    private final TimeCacheMap<String, Integer> map = new TimeCacheMap<>(Duration.ofSeconds(3), 3,
            (k, v) -> expired.add(entry(k, v)), ticker, false);

    @AfterEach
    void close() {
        map.close();
    }

    private void advanceMs(long ms) {
        ticker.advance(ms, TimeUnit.MILLISECONDS);
        map.expireDue();
    }

    @Test
    void countsExpiredEntriesButNotRemovals() {
        map.put("a", 1);
        map.put("b", 2);
        map.put("c", 3);
        map.remove("c");
        assertThat(map.expiredCount()).isZero();
        advanceMs(4500);
        assertThat(map.expiredCount()).isEqualTo(2);
        assertThat(map.size()).isZero();
    }

    @Test
    void entryPutRightAfterARotationExpiresAtTheUpperBound() {
        map.put("a", 1);
        advanceMs(4499);
        assertThat(map.containsKey("a")).isTrue();
        advanceMs(1);
        assertThat(map.containsKey("a")).isFalse();
        assertThat(expired).containsExactly(entry("a", 1));
    }

    @Test
    void entryPutRightBeforeARotationExpiresAfterTheExpiration() {
        advanceMs(1499);
        map.put("a", 1);
        advanceMs(2999); // 4498: lived 2999 ms
        assertThat(map.get("a")).isEqualTo(1);
        advanceMs(2); // 4500: lived 3001 ms
        assertThat(map.get("a")).isNull();
    }

    @Test
    void putResetsTheExpiry() {
        map.put("a", 1);
        advanceMs(3000);
        map.put("a", 2);
        advanceMs(3000);
        assertThat(map.get("a")).isEqualTo(2);
        advanceMs(1500);
        assertThat(map.get("a")).isNull();
        assertThat(expired).containsExactly(entry("a", 2));
    }

    @Test
    void removedEntryIsNeverReported() {
        map.put("a", 1);
        assertThat(map.remove("a")).isEqualTo(1);
        advanceMs(10_000);
        assertThat(expired).isEmpty();
        assertThat(map.size()).isZero();
    }

    @Test
    void lateCleanerCatchesUpAndKeepsItsPeriod() {
        map.put("a", 1);
        advanceMs(60_700); // 40 periods late: every entry is gone, the next rotation is at 61 500
        assertThat(map.containsKey("a")).isFalse();
        assertThat(expired).containsExactly(entry("a", 1));
        map.put("b", 2);
        advanceMs(3799); // 64 499
        assertThat(map.containsKey("b")).isTrue();
        advanceMs(1); // 64 500 = 61 500 + 2 * 1500: the third rotation since b was put, 3 800 ms ago
        assertThat(map.containsKey("b")).isFalse();
    }

    @Test
    void throwingCallbackIsLoggedAndTheMapGoesOn() {
        TimeCacheMap<String, Integer> failing = new TimeCacheMap<>(Duration.ofSeconds(1), 2, (k, v) -> {
            throw new IllegalStateException("callback failure (expected by the test)");
        }, ticker, false);
        failing.put("a", 1);
        ticker.advance(2, TimeUnit.SECONDS);
        failing.expireDue();
        assertThat(failing.containsKey("a")).isFalse();
        failing.put("b", 2);
        assertThat(failing.get("b")).isEqualTo(2);
        failing.close();
    }

    @Test
    void cleanupStopsExpiryAndLeavesTheMapUsable() {
        map.put("a", 1);
        map.cleanup();
        assertThat(map.isClosed()).isTrue();
        advanceMs(10_000);
        assertThat(expired).as("nothing expires once expiry is stopped").isEmpty();
        assertThat(map.get("a")).isEqualTo(1);
        map.put("b", 2);
        assertThat(map.containsKey("b")).isTrue();
        assertThat(map.size()).isEqualTo(2);
        assertThat(map.remove("a")).isEqualTo(1);
        assertThat(map.size()).isEqualTo(1);
        advanceMs(10_000);
        assertThat(map.get("b")).isEqualTo(2);
        assertThat(expired).isEmpty();
    }

    @Test
    void closeIsCleanupAndBothAreIdempotent() {
        map.put("a", 1);
        map.close();
        map.cleanup();
        map.close();
        assertThat(map.isClosed()).isTrue();
        advanceMs(10_000);
        assertThat(map.get("a")).isEqualTo(1);
        assertThat(expired).isEmpty();
        assertThat(map).hasToString("TimeCacheMap[period=PT1.5S, buckets=3, size=1, stopped]");
    }

    @Test
    void cleanupOnTheEngineReleasesItsThreadAndKeepsTheEntries() {
        TimeCacheMap<String, Integer> onEngine = new TimeCacheMap<>(Duration.ofSeconds(1), 2,
                (k, v) -> expired.add(entry(k, v)), ticker);
        assertThat(SharedDriver.isRunning(ticker)).isTrue();
        onEngine.put("a", 1);
        onEngine.cleanup();
        assertThat(SharedDriver.isRunning(ticker)).as("the last map's cleanup releases the engine thread").isFalse();
        ticker.advance(5, TimeUnit.SECONDS);
        assertThat(onEngine.get("a")).isEqualTo(1);
        onEngine.put("b", 2);
        assertThat(onEngine.size()).isEqualTo(2);
        assertThat(expired).isEmpty();
    }

    @Test
    void nullKeysNullValuesAndANullCallbackAreAcceptedAsInStorm() {
        TimeCacheMap<String, Integer> plain = new TimeCacheMap<>(Duration.ofSeconds(1), 2, null, ticker, false);
        plain.put(null, 1);
        plain.put("b", null);
        assertThat(plain.get(null)).isEqualTo(1);
        assertThat(plain.containsKey(null)).isTrue();
        assertThat(plain.containsKey("b")).isTrue();
        assertThat(plain.get("b")).isNull();
        assertThat(plain.size()).isEqualTo(2);
        ticker.advance(2, TimeUnit.SECONDS);
        plain.expireDue();
        assertThat(plain.size()).isZero();
        plain.put(null, 2);
        assertThat(plain.remove(null)).isEqualTo(2);
        assertThat(plain.containsKey(null)).isFalse();

        map.put(null, 7);
        advanceMs(4500);
        assertThat(expired).containsExactly(entry(null, 7));
    }

    @Test
    void nullCallbackIsAcceptedByEveryConstructor() {
        List<TimeCacheMap<String, Integer>> maps = List.of(new TimeCacheMap<>(5, 3, null),
                new TimeCacheMap<>(5, (TimeCacheMap.ExpiredCallback<String, Integer>) null),
                new TimeCacheMap<>(Duration.ofSeconds(5), 3, null, ticker));
        for (TimeCacheMap<String, Integer> m : maps) {
            m.put("a", 1);
            assertThat(m.get("a")).isEqualTo(1);
            m.cleanup();
        }
    }

    @Test
    void subMillisecondRotationPeriodIsAcceptedAndEntriesExpireWithinTheirBounds() {
        // Storm's (1, 2000): one second over 1999 periods of about half a millisecond each.
        TimeCacheMap<String, Integer> fine = new TimeCacheMap<>(Duration.ofSeconds(1), 2000,
                (k, v) -> expired.add(entry(k, v)), ticker, false);
        long period = 1_000_000_000L / 1999 + 1; // rounded up: never before the expiration
        fine.put("a", 1);
        ticker.advance(999, TimeUnit.MILLISECONDS);
        fine.expireDue();
        assertThat(fine.containsKey("a")).isTrue();
        ticker.advance(1_000_000_000L - 1 - ticker.read(), TimeUnit.NANOSECONDS);
        fine.expireDue();
        assertThat(fine.containsKey("a")).as("a nanosecond before its expiration").isTrue();
        ticker.advance(2000 * period - 1 - ticker.read(), TimeUnit.NANOSECONDS);
        fine.expireDue();
        assertThat(fine.containsKey("a")).as("a nanosecond before its 2000th rotation").isTrue();
        ticker.advance(1, TimeUnit.NANOSECONDS);
        fine.expireDue();
        assertThat(fine.containsKey("a")).isFalse();
        assertThat(2000 * period).as("the upper bound, up to a nanosecond of rounding per bucket")
                .isLessThanOrEqualTo(1_000_000_000L + 1_000_000_000L / 1999 + 2000);
        assertThat(expired).containsExactly(entry("a", 1));
        fine.close();
    }

    @Test
    void subMillisecondRotationOnTheEngineExpiresAfterTheExpiration() {
        try (TimeCacheMap<Integer, Integer> fine = new TimeCacheMap<>(Duration.ofSeconds(1), 2000,
                (k, v) -> expired.add(entry(String.valueOf(k), v)), ticker)) {
            fine.put(1, 1);
            for (int ms = 1; ms < 1000; ms++) {
                ticker.advance(1, TimeUnit.MILLISECONDS);
                if (ms % 100 == 0) {
                    Await.until("the engine performs the rotations due", fine::isQuiet);
                    assertThat(fine.containsKey(1)).as("at %d ms", ms).isTrue();
                }
            }
            ticker.advance(2, TimeUnit.MILLISECONDS); // 1.001 s: past 2000 periods of about 0.5 ms
            // The rotation drops the entry, then calls the callback: wait for both.
            Await.until("the entry expires and is reported", () -> !fine.containsKey(1) && !expired.isEmpty());
            Await.until("the engine finishes the rotation", fine::isQuiet);
            assertThat(expired).containsExactly(entry("1", 1));
        }
    }

    @Test
    void badArgumentsAreRejectedWithTheirNames() {
        assertThatThrownBy(() -> new TimeCacheMap<String, Integer>(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expirationSecs").hasMessageContaining("at least 1");
        assertThatThrownBy(() -> new TimeCacheMap<String, Integer>(5, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("numBuckets");
        assertThatThrownBy(() -> new TimeCacheMap<String, Integer>(Duration.ZERO, 3, (k, v) -> { }, ticker))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiration must be positive");
        assertThatThrownBy(() -> new TimeCacheMap<String, Integer>(null, 3, (k, v) -> { }, ticker))
                .isInstanceOf(NullPointerException.class).hasMessage("expiration");
        assertThatThrownBy(() -> new TimeCacheMap<String, Integer>(Duration.ofSeconds(1), 3, (k, v) -> { }, null))
                .isInstanceOf(NullPointerException.class).hasMessage("ticker");
    }

    @Test
    void mapsOnOneTickerShareOneEngineThreadThatExpiresEntriesWhenTimeMovesAndStopsWithTheLastMap() {
        List<String> seen = new CopyOnWriteArrayList<>();
        TimeCacheMap<String, Integer> first = new TimeCacheMap<>(Duration.ofSeconds(2), 3, (k, v) -> seen.add(k),
                ticker);
        TimeCacheMap<String, Integer> second = new TimeCacheMap<>(Duration.ofSeconds(10), 2, (k, v) -> seen.add(k),
                ticker);
        Set<Thread> callbackThreads = ConcurrentHashMap.newKeySet();
        try (TimeCacheMap<String, Integer> third = new TimeCacheMap<>(Duration.ofSeconds(2), 3,
                (k, v) -> callbackThreads.add(Thread.currentThread()), ticker)) {
            assertThat(SharedDriver.isRunning(ticker)).isTrue();
            first.put("first", 1);
            second.put("second", 2);
            third.put("third", 3);
            ticker.advance(3, TimeUnit.SECONDS);
            Await.until("the first map's entry expires", () -> seen.contains("first"));
            Await.until("the third map's entry expires", () -> !callbackThreads.isEmpty());
            assertThat(second.containsKey("second")).isTrue();
            ticker.advance(20, TimeUnit.SECONDS);
            Await.until("the second map's entry expires", () -> seen.contains("second"));
            assertThat(seen).containsExactly("first", "second");
            assertThat(callbackThreads).singleElement()
                    .satisfies(t -> assertThat(t.getName()).startsWith(SharedDriver.THREAD_NAME));
        } finally {
            first.close();
            second.close();
        }
        assertThat(SharedDriver.isRunning(ticker)).as("the engine thread of a ticker with no open map").isFalse();
        Await.until("the stopped engine thread stops watching the ticker", () -> ticker.watchCount() == 0);
        TimeCacheMap<String, Integer> again = new TimeCacheMap<>(Duration.ofSeconds(1), 2, (k, v) -> seen.add(k),
                ticker);
        again.put("again", 3);
        ticker.advance(2, TimeUnit.SECONDS);
        Await.until("a new engine thread serves a new map", () -> seen.contains("again"));
        again.close();
    }
}

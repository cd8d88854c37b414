package io.clockwork.storm;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.time.ManualTicker;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.storm.utils.Time;
import org.junit.jupiter.api.Test;

/**
 * Seeded random operation sequences run against the face and against Storm's released classes
 * ({@code org.apache.storm:storm-client}, test scope), comparing every answer: {@code put}, {@code get},
 * {@code containsKey}, {@code remove}, {@code size}, {@code rotate()}'s result and the expired-callback calls (as
 * multisets: Storm reports in {@code HashMap} order). Keys include null, values include null, and maps with and
 * without a callback take part.
 *
 * <p>{@code TimeCacheMap} sequences move two clocks together: a {@link ManualTicker} under the face, which the
 * engine's shared driver follows, and Storm's simulated {@link Time} under Storm's cleaner thread. Storm's cleaner
 * measures each sleep from the simulated time at which it wakes, so the clocks stop on every rotation boundary
 * (never stepping over one), and after each move the test waits, with a deadline, until Storm's cleaner sleeps again
 * ({@link Time#isThreadWaiting}) and the face has performed its rotations and returned from its callbacks
 * ({@link TimeCacheMap#isQuiet()}). Periods are whole milliseconds, so both maps rotate on the same instants.
 */
class StormDifferentialTest {

    private static final long SEED = 0x5707_2024_16L;
    private static final int KEYS = 8;
    private static final long AWAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final int[][] TIME_CACHE_SHAPES = { {1, 2}, {1, 3}, {1, 5}, {2, 3}, {2, 5}, {1, 6}, {2, 2} };

    /** Key index {@code KEYS - 1} is the null key, which Storm's {@code HashMap}s accept. */
    private static String key(Random random) {
        int k = random.nextInt(KEYS);
        return k == KEYS - 1 ? null : "k" + k;
    }

    private static Integer value(Random random) {
        return random.nextInt(8) == 0 ? null : random.nextInt(100);
    }

    private static Map.Entry<String, Integer> pair(String key, Integer value) {
        return new SimpleEntry<>(key, value);
    }

    @Test
    void rotatingMapAnswersAsStorms() {
        for (int sequence = 0; sequence < 300; sequence++) {
            Random random = new Random(SEED + sequence);
            int numBuckets = 2 + random.nextInt(4);
            boolean withCallback = random.nextInt(4) != 0;
            List<Map.Entry<String, Integer>> ourExpired = new ArrayList<>();
            List<Map.Entry<String, Integer>> stormExpired = new ArrayList<>();
            RotatingMap<String, Integer> ours = withCallback
                    ? new RotatingMap<>(numBuckets, (k, v) -> ourExpired.add(pair(k, v)))
                    : new RotatingMap<>(numBuckets);
            org.apache.storm.utils.RotatingMap<String, Integer> storm = withCallback
                    ? new org.apache.storm.utils.RotatingMap<>(numBuckets, (k, v) -> stormExpired.add(pair(k, v)))
                    : new org.apache.storm.utils.RotatingMap<>(numBuckets);
            for (int step = 0; step < 200; step++) {
                String at = "sequence " + sequence + " (" + numBuckets + " buckets), step " + step;
                String key = key(random);
                switch (random.nextInt(8)) {
                    case 0, 1 -> {
                        Integer value = value(random);
                        ours.put(key, value);
                        storm.put(key, value);
                    }
                    case 2 -> assertThat(ours.get(key)).as(at).isEqualTo(storm.get(key));
                    case 3 -> assertThat(ours.containsKey(key)).as(at).isEqualTo(storm.containsKey(key));
                    case 4 -> assertThat(ours.remove(key)).as(at).isEqualTo(storm.remove(key));
                    case 5 -> assertThat(ours.size()).as(at).isEqualTo(storm.size());
                    default -> {
                        assertThat(ours.rotate()).as(at).isEqualTo(storm.rotate());
                        assertThat(ourExpired).as(at).containsExactlyInAnyOrderElementsOf(stormExpired);
                    }
                }
            }
        }
    }

    @Test
    void timeCacheMapAnswersAsStormsUnderSimulatedTime() throws Exception {
        Field cleanerField = org.apache.storm.utils.TimeCacheMap.class.getDeclaredField("cleaner");
        cleanerField.setAccessible(true);
        int[] seen = new int[2]; // rotation boundaries reached while expiring, entries expired
        try (Time.SimulatedTime simulated = new Time.SimulatedTime()) {
            for (int sequence = 0; sequence < 14; sequence++) {
                runTimeCacheMapSequence(sequence, cleanerField, seen);
            }
        }
        assertThat(seen[0]).as("rotations compared").isGreaterThan(100);
        assertThat(seen[1]).as("expired entries compared").isGreaterThan(50);
    }

    private void runTimeCacheMapSequence(int sequence, Field cleanerField, int[] seen) throws Exception {
        Random random = new Random(SEED ^ (sequence * 0x9E3779B97F4A7C15L));
        int[] shape = TIME_CACHE_SHAPES[sequence % TIME_CACHE_SHAPES.length];
        int expirationSecs = shape[0];
        int numBuckets = shape[1];
        long periodMs = expirationSecs * 1000L / (numBuckets - 1);
        boolean withCallback = sequence % 4 != 3;
        int cleanupAt = sequence % 3 == 0 ? 60 + random.nextInt(40) : -1;
        List<Map.Entry<String, Integer>> ourExpired = new CopyOnWriteArrayList<>();
        List<Map.Entry<String, Integer>> stormExpired = new CopyOnWriteArrayList<>();
        ManualTicker ticker = new ManualTicker();
        TimeCacheMap<String, Integer> ours = new TimeCacheMap<>(Duration.ofSeconds(expirationSecs), numBuckets,
                withCallback ? (k, v) -> ourExpired.add(pair(k, v)) : null, ticker);
        org.apache.storm.utils.TimeCacheMap<String, Integer> storm = new org.apache.storm.utils.TimeCacheMap<>(
                expirationSecs, numBuckets, withCallback ? (k, v) -> stormExpired.add(pair(k, v)) : null);
        Thread cleaner = (Thread) cleanerField.get(storm);
        String shapeText = "sequence " + sequence + " (" + expirationSecs + " s, " + numBuckets + " buckets)";
        try {
            awaitBoth(shapeText + " at start", ours, cleaner);
            long elapsedMs = 0;
            boolean stopped = false;
            for (int step = 0; step < 130; step++) {
                String at = shapeText + ", step " + step + ", " + elapsedMs + " ms";
                if (step == cleanupAt) {
                    ours.cleanup();
                    storm.cleanup();
                    cleaner.join(TimeUnit.NANOSECONDS.toMillis(AWAIT_NANOS));
                    assertThat(cleaner.isAlive()).as(at + ": Storm's cleaner ends on cleanup").isFalse();
                    stopped = true;
                }
                String key = key(random);
                switch (random.nextInt(9)) {
                    case 0, 1 -> {
                        Integer value = value(random);
                        ours.put(key, value);
                        storm.put(key, value);
                    }
                    case 2 -> assertThat(ours.get(key)).as(at).isEqualTo(storm.get(key));
                    case 3 -> assertThat(ours.containsKey(key)).as(at).isEqualTo(storm.containsKey(key));
                    case 4 -> assertThat((Object) ours.remove(key)).as(at).isEqualTo(storm.remove(key));
                    case 5 -> assertThat(ours.size()).as(at).isEqualTo(storm.size());
                    default -> {
                        // Stop on the next rotation boundary rather than step over it.
                        long toBoundary = periodMs - elapsedMs % periodMs;
                        long ms = Math.min(1 + random.nextInt((int) periodMs), toBoundary);
                        Time.advanceTime(ms);
                        ticker.advance(ms, TimeUnit.MILLISECONDS);
                        elapsedMs += ms;
                        if (!stopped) {
                            awaitBoth(at + " + " + ms + " ms", ours, cleaner);
                            seen[0] += elapsedMs % periodMs == 0 ? 1 : 0;
                        }
                        assertSameState(at + " + " + ms + " ms", ours, storm);
                        assertThat(ourExpired).as(at + " + " + ms + " ms: expired entries")
                                .containsExactlyInAnyOrderElementsOf(stormExpired);
                    }
                }
            }
            assertSameState(shapeText + " at the end", ours, storm);
            assertThat(ourExpired).containsExactlyInAnyOrderElementsOf(stormExpired);
            seen[1] += ourExpired.size();
        } finally {
            ours.cleanup();
            storm.cleanup();
            cleaner.join(TimeUnit.NANOSECONDS.toMillis(AWAIT_NANOS));
        }
    }

    private static void assertSameState(String at, TimeCacheMap<String, Integer> ours,
            org.apache.storm.utils.TimeCacheMap<String, Integer> storm) {
        for (int k = 0; k < KEYS; k++) {
            String key = k == KEYS - 1 ? null : "k" + k;
            assertThat(ours.containsKey(key)).as(at + ": containsKey(" + key + ")").isEqualTo(storm.containsKey(key));
            assertThat(ours.get(key)).as(at + ": get(" + key + ")").isEqualTo(storm.get(key));
        }
        assertThat(ours.size()).as(at + ": size").isEqualTo(storm.size());
    }

    /** Waits until Storm's cleaner sleeps again and the face has done every rotation due, each with a deadline. */
    private static void awaitBoth(String at, TimeCacheMap<?, ?> ours, Thread cleaner) {
        await(at + ": Storm's cleaner sleeps again", () -> Time.isThreadWaiting(cleaner));
        await(at + ": the face's rotations are done", ours::isQuiet);
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + AWAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting: " + what);
            }
            LockSupport.parkNanos(100_000);
        }
    }
}

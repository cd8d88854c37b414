package io.clockwork.timer;

import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several threads schedule and cancel a million timers on the real clock while the driver expires them; every
 * timer must end either run exactly once or cancelled (by a cancel that returned true), never both, never neither.
 */
class WheelTimerStressTest {

    private static final int THREADS = 4;
    private static final int PER_THREAD = 250_000;

    @Test
    void everyTimerRunsExactlyOnceOrIsCancelled() throws Exception {
        int total = THREADS * PER_THREAD;
        AtomicIntegerArray runs = new AtomicIntegerArray(total);
        AtomicIntegerArray cancelled = new AtomicIntegerArray(total);
        ExecutorService producers = Executors.newFixedThreadPool(THREADS);
        try (WheelTimer timer = WheelTimer.builder().name("stress").build()) {
            Future<?>[] done = new Future<?>[THREADS];
            for (int t = 0; t < THREADS; t++) {
                int base = t * PER_THREAD;
                done[t] = producers.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    Timeout[] recent = new Timeout[64];
                    int[] recentId = new int[64];
                    for (int i = 0; i < PER_THREAD; i++) {
                        int id = base + i;
                        // delays from "now" to 30 ms: many expire while others are still being scheduled
                        long delayMicros = random.nextInt(30_000);
                        Timeout timeout = timer.schedule(() -> runs.incrementAndGet(id), delayMicros,
                                TimeUnit.MICROSECONDS);
                        int slot = i & 63;
                        // cancel an older timer: sometimes still pending, sometimes already run (cancel -> false)
                        if (recent[slot] != null && random.nextBoolean() && recent[slot].cancel()) {
                            cancelled.incrementAndGet(recentId[slot]);
                        }
                        recent[slot] = timeout;
                        recentId[slot] = id;
                        if (random.nextInt(8) == 0 && timeout.cancel()) {
                            cancelled.incrementAndGet(id);
                        }
                    }
                    return null;
                });
            }
            for (Future<?> f : done) {
                f.get(2, TimeUnit.MINUTES);
            }
            Await.until("every timer settled", Duration.ofMinutes(1), () -> timer.pendingCount() == 0);
            Await.until("every non-cancelled task ran", Duration.ofMinutes(1), () -> {
                for (int i = 0; i < total; i++) {
                    if (runs.get(i) + cancelled.get(i) != 1) {
                        return false;
                    }
                }
                return true;
            });
            int ran = 0;
            int cancels = 0;
            for (int i = 0; i < total; i++) {
                assertThat(runs.get(i) + cancelled.get(i)).as("timer %d: runs + cancels", i).isEqualTo(1);
                ran += runs.get(i);
                cancels += cancelled.get(i);
            }
            assertThat(ran + cancels).isEqualTo(total);
            assertThat(cancels).as("the test really exercised cancellation").isGreaterThan(total / 10);
            assertThat(ran).as("and expiry").isGreaterThan(total / 10);
            assertThat(timer.pendingCount()).isZero();
        } finally {
            producers.shutdownNow();
        }
    }

    /**
     * Producers schedule timers due right around the driver's next sweeps (young ones, taken only at a sweep) as fast
     * as they can while the test moves a manual clock 1 ms at a time and lets the driver catch up after each step, so
     * pushes overlap the sweeps: a producer that pushes while the owner takes the young inbox must neither lose its
     * timer nor make it late.
     */
    @Test
    void timersPushedWhileTheDriverSweepsAreNeitherLostNorLate() throws Exception {
        ManualTicker ticker = new ManualTicker();
        int producers = 2;
        int perProducer = 200_000;
        long[] scheduledFrom = new long[producers * perProducer];
        long[] scheduledTo = new long[producers * perProducer];
        long[] delayNanos = new long[producers * perProducer];
        long[] ranAt = new long[producers * perProducer];
        java.util.Arrays.fill(ranAt, -1);
        AtomicIntegerArray runs = new AtomicIntegerArray(producers * perProducer);
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        try (WheelTimer timer = WheelTimer.builder().name("sweeps").ticker(ticker).build()) {
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Future<?>[] done = new Future<?>[producers];
            for (int p = 0; p < producers; p++) {
                int base = p * perProducer;
                done[p] = pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < perProducer && !stop.get(); i++) {
                        int id = base + i;
                        // 40-140 ms: mostly young (past the next sweep, at most 64 ms away), some urgent
                        delayNanos[id] = TimeUnit.MICROSECONDS.toNanos(40_000 + random.nextInt(100_000));
                        scheduledFrom[id] = ticker.read();
                        timer.schedule(() -> {
                            ranAt[id] = ticker.read();
                            runs.incrementAndGet(id);
                        }, delayNanos[id], TimeUnit.NANOSECONDS);
                        scheduledTo[id] = ticker.read();
                    }
                    return null;
                });
            }
            int steps = 0;
            while (!allDone(done) && steps < 20_000) {
                ticker.advance(1, TimeUnit.MILLISECONDS);
                WheelTimerTest.quiesce(timer);
                steps++;
            }
            stop.set(true);
            for (Future<?> f : done) {
                f.get(1, TimeUnit.MINUTES);
            }
            for (int i = 0; i < 200; i++) { // past every deadline
                ticker.advance(1, TimeUnit.MILLISECONDS);
                WheelTimerTest.quiesce(timer);
            }
            long tick = TimeUnit.MILLISECONDS.toNanos(1);
            int checked = 0;
            for (int id = 0; id < ranAt.length; id++) {
                if (scheduledFrom[id] == 0 && delayNanos[id] == 0) {
                    continue; // never scheduled: the producer stopped early
                }
                checked++;
                assertThat(runs.get(id)).as("runs of timer %d", id).isEqualTo(1);
                assertThat(ranAt[id]).as("timer %d never runs early", id)
                        .isGreaterThanOrEqualTo(scheduledFrom[id] + delayNanos[id]);
                // the clock moves 1 ms per step and the driver catches up after each: one tick of rounding plus
                // one step is the most a timer may lag; a straggler left to the next sweep would lag up to 64 ms
                assertThat(ranAt[id]).as("timer %d runs in time", id)
                        .isLessThanOrEqualTo(scheduledTo[id] + delayNanos[id] + 2 * tick);
            }
            assertThat(checked).as("timers checked").isGreaterThan(1_000);
            assertThat(timer.pendingCount()).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    private static boolean allDone(Future<?>[] futures) {
        for (Future<?> f : futures) {
            if (!f.isDone()) {
                return false;
            }
        }
        return true;
    }
}

package io.clockwork.timer;

import io.clockwork.testing.Await;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
 * With 4 threads each usually has its own lane; with 40, more than there are lanes, many share the inbox.
 */
class WheelTimerStressTest {

    private static final int TIMERS = 1_000_000;

    @ParameterizedTest(name = "{0} threads")
    @ValueSource(ints = {4, 40})
    void everyTimerRunsExactlyOnceOrIsCancelled(int threads) throws Exception {
        int total = TIMERS;
        int perThread = TIMERS / threads;
        AtomicIntegerArray runs = new AtomicIntegerArray(total);
        AtomicIntegerArray cancelled = new AtomicIntegerArray(total);
        ExecutorService producers = Executors.newFixedThreadPool(threads);
        try (WheelTimer timer = WheelTimer.builder().name("stress").build()) {
            Future<?>[] done = new Future<?>[threads];
            for (int t = 0; t < threads; t++) {
                int base = t * perThread;
                done[t] = producers.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    Timeout[] recent = new Timeout[64];
                    int[] recentId = new int[64];
                    for (int i = 0; i < perThread; i++) {
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
}

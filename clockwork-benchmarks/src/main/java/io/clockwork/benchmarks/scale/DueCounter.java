package io.clockwork.benchmarks.scale;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The task of every counted timer: counts runs, and notes when the first and the last of a batch ran. Thread-safe;
 * the timers measured run their tasks on one thread, so the first run's time is noted before the last's.
 *
 * <p>Time: instants are {@link System#nanoTime()}; a run costs one atomic increment, plus a clock read for the
 * first and the last of a batch.
 */
final class DueCounter implements Runnable {

    private final AtomicInteger ran = new AtomicInteger();
    private volatile int expected;
    private volatile CountDownLatch done = new CountDownLatch(0);
    private volatile long first;
    private volatile long last;

    /**
     * Starts a batch; the previous one must be over.
     *
     * @param count how many runs make up the batch
     */
    void expect(int count) {
        ran.set(0);
        done = new CountDownLatch(1);
        expected = count;
    }

    @Override
    public void run() {
        int n = ran.incrementAndGet();
        if (n == 1) {
            first = System.nanoTime();
        }
        if (n == expected) {
            last = System.nanoTime();
            done.countDown();
        }
    }

    /**
     * Waits for the batch's last run.
     *
     * @param timeoutNanos how long at most
     * @return from the first run to the last
     * @throws InterruptedException  if interrupted
     * @throws IllegalStateException if the batch did not complete in time
     */
    Subject.Span await(long timeoutNanos) throws InterruptedException {
        if (!done.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("only " + ran.get() + " of " + expected + " counted timers ran in "
                    + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s");
        }
        return new Subject.Span(first, last);
    }
}

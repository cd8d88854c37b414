package io.clockwork.benchmarks.postgres;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the rivals' handlers report: for each expected job id (0 to {@code expected - 1}), the {@link System#nanoTime()}
 * its handler first ran, how many distinct jobs ran, and how many runs were repeats or ids outside the expected range
 * (a far-future job handled early). Thread-safe: handlers report from their own threads; {@link #expect(int)} starts a
 * phase while no handler runs.
 */
final class HandledJobs {

    private volatile AtomicLongArray firstRun = new AtomicLongArray(0);
    private final AtomicInteger distinct = new AtomicInteger();
    private final AtomicInteger repeats = new AtomicInteger();
    private final AtomicInteger unexpected = new AtomicInteger();

    /** Starts a phase that expects jobs 0 to {@code count - 1}, forgetting the previous phase. */
    void expect(int count) {
        firstRun = new AtomicLongArray(count);
        distinct.set(0);
        repeats.set(0);
        unexpected.set(0);
    }

    /** A handler ran job {@code id}. */
    void handled(int id) {
        long now = System.nanoTime();
        AtomicLongArray runs = firstRun;
        if (id < 0 || id >= runs.length()) {
            unexpected.incrementAndGet();
        } else if (runs.compareAndSet(id, 0, now == 0 ? 1 : now)) {
            distinct.incrementAndGet();
        } else {
            repeats.incrementAndGet();
        }
    }

    /** @return distinct expected jobs handled so far */
    int count() {
        return distinct.get();
    }

    /** @return when job {@code id}'s handler first ran ({@link System#nanoTime()}), 0 if it has not */
    long firstRun(int id) {
        return firstRun.get(id);
    }

    /**
     * Waits until every expected job ran.
     *
     * @param limit how long to wait at most
     * @throws IllegalStateException if some did not run in time, or a job outside the expected range ran
     */
    void awaitAll(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        int expected = firstRun.length();
        while (distinct.get() < expected) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + distinct.get() + " of " + expected + " jobs handled within "
                        + limit);
            }
            Thread.sleep(1); // a polling interval of the wait, shorter than any figure it times
        }
        if (unexpected.get() > 0) {
            throw new IllegalStateException(unexpected.get() + " jobs outside the phase's range were handled");
        }
    }

    /** @return handler runs of a job that had run already in this phase (at-least-once redeliveries) */
    int repeats() {
        return repeats.get();
    }
}

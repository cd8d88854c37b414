package io.clockwork.benchmarks.scale;

import java.util.concurrent.TimeUnit;

/**
 * Schedules a batch of counted items all due at one instant, far enough ahead that the scheduling is over before
 * the first of them comes due: otherwise delivery would overlap scheduling and be timed at the scheduling's pace.
 * It learns how far ahead that is (three times the last batch's scheduling time, at least 20 ms), and when the
 * scheduling still overruns the due instant it lets that batch be delivered, discards it, and tries again further
 * ahead. Not thread-safe: owned by the thread that schedules.
 *
 * <p>Time: each item's delay is the due instant minus {@link System#nanoTime()} read just before its call, so every
 * item is due at the same instant give or take one call's duration.
 */
final class DueBatch {

    private static final long MIN_LEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** Scheduling must end this long before the due instant to count as on time. */
    private static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(10);
    private static final int TRIES = 5;

    private final Subject subject;
    private final Subject.Producer producer;
    private long leadNanos;

    /**
     * @param subject  where the batches go
     * @param producer the calling thread's producer, with at least as many slots as the largest batch
     * @param firstBatch the size of the first batch, to guess the first lead from (500 ns an item)
     */
    DueBatch(Subject subject, Subject.Producer producer, int firstBatch) {
        this.subject = subject;
        this.producer = producer;
        this.leadNanos = Math.max(MIN_LEAD_NANOS, 500L * firstBatch);
    }

    /**
     * Schedules {@code count} counted items due at one instant, announcing the batch to the subject first.
     *
     * @param count how many
     * @return the instant they are due, on {@link System#nanoTime()}'s timeline
     * @throws InterruptedException  if interrupted while a discarded batch is delivered
     * @throws IllegalStateException if the scheduling overran the due instant every time
     */
    long schedule(int count) throws InterruptedException {
        return schedule(count, 0L);
    }

    /**
     * Schedules as {@link #schedule(int)} does, due {@code extraNanos} later than it would be: time the caller
     * needs between the scheduling and the due instant.
     *
     * @param count      how many
     * @param extraNanos added to the learned lead
     * @return the instant they are due, on {@link System#nanoTime()}'s timeline
     * @throws InterruptedException  if interrupted while a discarded batch is delivered
     * @throws IllegalStateException if the scheduling overran the due instant every time
     */
    long schedule(int count, long extraNanos) throws InterruptedException {
        for (int attempt = 0; attempt < TRIES; attempt++) {
            subject.expect(count);
            long start = System.nanoTime();
            long due = start + leadNanos + extraNanos;
            for (int i = 0; i < count; i++) {
                producer.scheduleCounted(i, due - System.nanoTime());
            }
            long end = System.nanoTime();
            long took = end - start;
            if (due - end >= MARGIN_NANOS) {
                leadNanos = Math.max(MIN_LEAD_NANOS, 3 * took);
                return due;
            }
            subject.deliver(due, TIMEOUT_NANOS);
            leadNanos = Math.max(2 * leadNanos, 3 * took);
        }
        throw new IllegalStateException(subject + ": scheduling " + count + " items overran their due instant "
                + TRIES + " times");
    }

    /** @return how far ahead of its scheduling the next batch will be due, as {@link #schedule} would set it */
    long leadNanos() {
        return leadNanos;
    }

    /** @return how many times a batch is scheduled again after overrunning its due instant */
    static int tries() {
        return TRIES;
    }

    /** @return how long the subject may take to deliver a batch before the harness gives up */
    static long timeoutNanos() {
        return TIMEOUT_NANOS;
    }
}

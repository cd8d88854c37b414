package io.clockwork.inprocess;

import io.clockwork.queue.RateLimit;

/**
 * One {@link RateLimit} of the in-process queue, kept as its sliding log: the ticker readings of the deliveries made
 * under it in the last interval, oldest first, in a ring that grows as needed up to {@code permits} entries. Not
 * thread-safe: guarded by the queue's lock.
 *
 * <p>A delivery at {@code now} may go while fewer than {@code permits} readings are younger than the interval
 * ({@link #mayTake}); otherwise the next permit frees when the oldest of them is {@code interval} old
 * ({@link #permitAt}). Readings are compared by difference, so the ticker may wrap.
 */
final class SlidingLog {

    private final int permits;
    private final long intervalNanos;
    private long[] times = new long[4];
    private int head;
    private int size;

    SlidingLog(RateLimit limit) {
        this.permits = limit.permits();
        this.intervalNanos = limit.interval().toNanos();
    }

    /** @return whether a delivery may go at {@code now}; forgets the readings the interval has left behind */
    boolean mayTake(long now) {
        prune(now);
        return size < permits;
    }

    /** @return whether no delivery is younger than the interval at {@code now} */
    boolean isEmpty(long now) {
        prune(now);
        return size == 0;
    }

    /** @return when the oldest delivery's permit frees; only while {@link #mayTake} is false */
    long permitAt() {
        return times[head] + intervalNanos;
    }

    /** Records a delivery at {@code now}, which {@link #mayTake} allowed. */
    void record(long now) {
        if (size == times.length) {
            grow();
        }
        times[(head + size) % times.length] = now;
        size++;
    }

    private void prune(long now) {
        while (size > 0 && now - times[head] >= intervalNanos) {
            head = (head + 1) % times.length;
            size--;
        }
    }

    private void grow() {
        long[] larger = new long[(int) Math.min((long) times.length * 2, Math.max(permits, times.length + 1))];
        for (int i = 0; i < size; i++) {
            larger[i] = times[(head + i) % times.length];
        }
        times = larger;
        head = 0;
    }
}

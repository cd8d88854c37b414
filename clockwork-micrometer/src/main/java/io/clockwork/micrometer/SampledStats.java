package io.clockwork.micrometer;

import io.clockwork.queue.QueueStats;

/**
 * The last stats sampled from a queue, read by its gauges. Thread-safe: the sampler writes, scrapes read.
 */
final class SampledStats {

    /** The last sample, or null before the first and after a failed read. */
    private volatile QueueStats last;
    /** Whether the last read failed; sampler thread only. */
    private boolean failing;

    /** Whether the queue was paused at the last sample; NaN-backed like the counts (see {@link #paused()}). */
    private volatile Boolean paused;

    void set(QueueStats stats, boolean paused) {
        failing = false;
        last = stats;
        this.paused = paused;
    }

    /** @return true if this failure starts a run of failures (the one worth logging) */
    boolean markFailed() {
        last = null;
        paused = null;
        boolean first = !failing;
        failing = true;
        return first;
    }

    double delayed() {
        QueueStats s = last;
        return s == null ? Double.NaN : s.delayed();
    }

    double ready() {
        QueueStats s = last;
        return s == null ? Double.NaN : s.ready();
    }

    double inFlight() {
        QueueStats s = last;
        return s == null ? Double.NaN : s.inFlight();
    }

    double dead() {
        QueueStats s = last;
        return s == null ? Double.NaN : s.dead();
    }

    /** @return 1 if the queue was paused at the last sample, 0 if not, NaN before the first and after a failed read */
    double paused() {
        Boolean p = paused;
        return p == null ? Double.NaN : p ? 1 : 0;
    }
}

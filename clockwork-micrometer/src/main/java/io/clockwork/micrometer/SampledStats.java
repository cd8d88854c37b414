package io.clockwork.micrometer;

import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import java.util.Optional;

/**
 * The last stats and counters sampled from a queue, read by its gauges and function counters. Thread-safe: the
 * sampler writes, scrapes read.
 */
final class SampledStats {

    /** The last sample, or null before the first and after a failed read. */
    private volatile QueueStats last;
    /** Whether the last read failed; sampler thread only. */
    private boolean failing;

    /** Whether the queue was paused at the last sample; NaN-backed like the counts (see {@link #paused()}). */
    private volatile Boolean paused;

    /**
     * The queue's count of rate-limited polls at the last sample that had counters. A counter never goes down, so a
     * failed read keeps it (unlike the gauges); 0 before the first sample and for a backend that keeps no counters.
     */
    private volatile long rateLimited;

    void set(QueueStats stats, boolean paused, Optional<QueueCounters> counters) {
        failing = false;
        last = stats;
        this.paused = paused;
        counters.ifPresent(c -> rateLimited = Math.max(rateLimited, c.rateLimited()));
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

    /** @return the queue's rate-limited polls ({@link QueueCounters#rateLimited()}) as last sampled */
    double rateLimited() {
        return rateLimited;
    }
}

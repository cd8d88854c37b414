package io.clockwork.queue;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Counts of a {@link DelayedQueue}'s messages by state, and when the next delayed one falls due. Immutable.
 *
 * @param delayed   messages not yet due
 * @param ready     messages due and waiting for a consumer
 * @param inFlight  messages delivered and not yet acked, nacked or timed out
 * @param dead      messages in the dead-letter set
 * @param lost      messages the backend can no longer deliver because its store dropped part of their state (on
 *                  Redis: keys evicted under memory pressure, see {@code RedisDelayedQueue}): counted, never silently
 *                  forgotten. Always 0 in process.
 * @param nextDueIn time until the earliest delayed message is due; empty if none is delayed
 * @param trimmed   dead letters removed by the queue's retention (older than its {@code deadLetterMaxAge}, or
 *                  beyond its {@code deadLetterMaxCount}) since the queue was created
 */
public record QueueStats(long delayed, long ready, long inFlight, long dead, long lost,
                         Optional<Duration> nextDueIn, long trimmed) {

    /** Validates the counts. */
    public QueueStats {
        if (delayed < 0 || ready < 0 || inFlight < 0 || dead < 0 || lost < 0 || trimmed < 0) {
            throw new IllegalArgumentException("counts must not be negative: delayed=" + delayed + ", ready="
                    + ready + ", inFlight=" + inFlight + ", dead=" + dead + ", lost=" + lost + ", trimmed="
                    + trimmed);
        }
        Objects.requireNonNull(nextDueIn, "nextDueIn");
    }

    /**
     * Counts of a queue that has trimmed no dead letter.
     *
     * @param delayed   messages not yet due
     * @param ready     messages due and waiting for a consumer
     * @param inFlight  messages delivered and not yet acked
     * @param dead      dead letters
     * @param lost      messages lost to the store
     * @param nextDueIn time until the earliest delayed message is due
     */
    public QueueStats(long delayed, long ready, long inFlight, long dead, long lost, Optional<Duration> nextDueIn) {
        this(delayed, ready, inFlight, dead, lost, nextDueIn, 0);
    }

    /**
     * Counts of a queue that has lost nothing.
     *
     * @param delayed   messages not yet due
     * @param ready     messages due and waiting for a consumer
     * @param inFlight  messages delivered and not yet acked
     * @param dead      dead letters
     * @param nextDueIn time until the earliest delayed message is due
     */
    public QueueStats(long delayed, long ready, long inFlight, long dead, Optional<Duration> nextDueIn) {
        this(delayed, ready, inFlight, dead, 0, nextDueIn, 0);
    }

    /** @return every message the queue holds, dead letters included (lost messages are not held) */
    public long total() {
        return delayed + ready + inFlight + dead;
    }
}

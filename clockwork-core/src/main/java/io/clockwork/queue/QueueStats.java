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
 * @param nextDueIn time until the earliest delayed message is due; empty if none is delayed
 */
public record QueueStats(long delayed, long ready, long inFlight, long dead, Optional<Duration> nextDueIn) {

    /** Validates the counts. */
    public QueueStats {
        if (delayed < 0 || ready < 0 || inFlight < 0 || dead < 0) {
            throw new IllegalArgumentException("counts must not be negative: delayed=" + delayed + ", ready="
                    + ready + ", inFlight=" + inFlight + ", dead=" + dead);
        }
        Objects.requireNonNull(nextDueIn, "nextDueIn");
    }

    /** @return every message the queue holds, dead letters included */
    public long total() {
        return delayed + ready + inFlight + dead;
    }
}

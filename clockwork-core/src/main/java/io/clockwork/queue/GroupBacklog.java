package io.clockwork.queue;

import java.util.Objects;

/**
 * One group's share of a {@link DelayedQueue}'s work at one moment, as {@link DelayedQueue#largestGroups(int)} reads
 * it: how many of its messages are ready (due, waiting their group's turn) and how many are in flight. Immutable.
 *
 * @param group    the group key ({@link Message#group()})
 * @param ready    its messages that are due and not taken
 * @param inFlight its messages taken and not yet acked, nacked or expired
 */
public record GroupBacklog(String group, long ready, long inFlight) {

    /** Validates the fields. */
    public GroupBacklog {
        Objects.requireNonNull(group, "group");
        if (ready < 0 || inFlight < 0) {
            throw new IllegalArgumentException("counts must not be negative: ready=" + ready + ", inFlight="
                    + inFlight);
        }
    }
}

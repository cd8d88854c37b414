package io.clockwork.queue;

import java.util.Objects;

/**
 * What {@link DelayedQueue#offer(Message)} did with one message: its id (the caller's, or the one the queue
 * generated) and the outcome. Immutable and thread-safe.
 *
 * @param id      the message id
 * @param outcome what happened
 */
public record Offered(String id, Outcome outcome) {

    /** What an offer did. Thread-safe (an enum). */
    public enum Outcome {
        /** The id was not in the queue: the message was added. */
        ADDED,
        /** The id was in the queue and the policy was {@link Message.Conflict#KEEP}: nothing changed. */
        KEPT,
        /** A scheduled message took the new value, headers and due time ({@link Message.Conflict#REPLACE}). */
        REPLACED,
        /**
         * A scheduled message took the new due time, keeping its value and headers ({@link Message.Conflict#EXTEND}).
         */
        EXTENDED,
        /** REPLACE or EXTEND found the message in flight with a consumer: nothing changed. */
        IN_FLIGHT,
        /** REPLACE or EXTEND found the message dead: nothing changed (requeue or purge it first). */
        DEAD
    }

    /** Validates. */
    public Offered {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(outcome, "outcome");
    }

    /** @return whether the queue now holds this offer's value: added or replaced */
    public boolean stored() {
        return outcome == Outcome.ADDED || outcome == Outcome.REPLACED;
    }
}

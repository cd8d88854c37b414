package io.clockwork.inprocess;

/**
 * Where an in-process queue's message is ({@link Item#state}): the structure of the {@link QueueStore} that holds it.
 * Constants only; the state belongs to the store's owner (see {@link Item#claim()} for the word other threads touch).
 *
 * <p>A byte rather than an enum: an enum constant is a reference into another heap region, so with an enum every
 * transition of a tenured message (promoted, taken, acked) would mark its card for G1's concurrent refinement, whose
 * threads then take a core from other producers during an expiry storm.
 */
final class State {

    /** Offered without the lock and not yet filed: in no structure (the inbox carries it to the store). */
    static final byte NEW = 0;
    /** In the due-time wheel. */
    static final byte DELAYED = 1;
    /** In the ready order. */
    static final byte READY = 2;
    /** In the visibility wheel, held by a delivery. */
    static final byte IN_FLIGHT = 3;
    /** A dead letter. */
    static final byte DEAD = 4;
    /** Acked, cancelled, purged or trimmed: in no structure and known by no id. */
    static final byte GONE = 5;
    private static final String[] NAMES = {"NEW", "DELAYED", "READY", "IN_FLIGHT", "DEAD", "GONE"};

    private State() {
    }

    static String name(byte state) {
        return NAMES[state];
    }
}

package io.clockwork.worker;

/**
 * What a {@link Worker}'s shutdown did. Immutable.
 *
 * @param released    prefetched messages that never started and were handed back at once
 * @param finished    handlers that were running when the shutdown began and finished before its deadline
 * @param interrupted handlers still running at the deadline, interrupted: their messages come back after the
 *                    visibility timeout (unless they were acked or settled before)
 * @param unacked     messages handled successfully whose ack never reached the backend before the deadline: they
 *                    come back after the visibility timeout and are handled again
 */
public record WorkerShutdown(int released, int finished, int interrupted, int unacked) {

    /** @return true if every handler finished and every ack landed before the deadline */
    public boolean clean() {
        return interrupted == 0 && unacked == 0;
    }
}

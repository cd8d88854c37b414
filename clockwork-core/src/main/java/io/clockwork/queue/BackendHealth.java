package io.clockwork.queue;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A worker's view of its backend, per kind of operation: how many calls failed in a row, how long to back off after
 * the last failure, and a log line at each change of state (the first failure after a success, the first success
 * after failures), never one per failure. Thread-safe.
 *
 * <p>Backoff is bounded exponential: {@link #MIN_BACKOFF_NANOS} after one failure, doubling per further failure up to
 * {@link #MAX_BACKOFF_NANOS}, so a worker whose backend is down asks it a few times a second at most and resumes
 * within that bound once it is back.
 */
final class BackendHealth {

    /** Operations a worker calls on its queue, each with its own failure count. */
    enum Operation {
        POLL("poll"), ACK("ack"), EXTEND("extend"), NACK("nack"), DEAD_LETTER("deadLetter"), RELEASE("release");

        final String label;

        Operation(String label) {
            this.label = label;
        }
    }

    static final long MIN_BACKOFF_NANOS = 50_000_000L;
    static final long MAX_BACKOFF_NANOS = 2_000_000_000L;

    private static final System.Logger LOG = System.getLogger(Worker.class.getName());

    private final String subject;
    private final AtomicIntegerArray failures = new AtomicIntegerArray(Operation.values().length);

    /** @param subject what the log lines name, e.g. "worker 'emails' of queue 'emails'" */
    BackendHealth(String subject) {
        this.subject = subject;
    }

    /** Records a failure, logging it if it is the first in a row; returns how long to back off. */
    long failed(Operation op, RuntimeException error) {
        int n = failures.incrementAndGet(op.ordinal());
        if (n == 1) {
            LOG.log(System.Logger.Level.WARNING, subject + ": " + op.label + " failed, backing off and retrying"
                    + " until the backend answers again: " + error, error);
        }
        return backoffNanos(n);
    }

    /** Records a success, logging the recovery if calls had failed. Writes nothing while healthy. */
    void succeeded(Operation op) {
        if (failures.get(op.ordinal()) != 0) {
            int n = failures.getAndSet(op.ordinal(), 0);
            if (n > 0) {
                LOG.log(System.Logger.Level.INFO, subject + ": " + op.label + " works again after " + n
                        + " failed call(s)");
            }
        }
    }

    /** @return the failures in a row of {@code op} */
    int failures(Operation op) {
        return failures.get(op.ordinal());
    }

    /** @return the backoff after {@code n} failures in a row */
    static long backoffNanos(int n) {
        if (n <= 0) {
            return 0L;
        }
        return Math.min(MAX_BACKOFF_NANOS, MIN_BACKOFF_NANOS << Math.min(n - 1, 20));
    }
}

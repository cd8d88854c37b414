package io.clockwork.worker;

import io.clockwork.worker.BackendHealth.Operation;

import java.time.Duration;

/**
 * A {@link Worker}'s calls into its {@link WorkerListener}: each event is one call, and a listener that throws is
 * logged and the worker goes on. Thread-safe as the listener is (the worker calls it from several threads). Without a
 * listener nothing is called or allocated: the worker checks {@link #on()} before building an event's arguments.
 *
 * @param <V> the value type
 */
final class WorkerEvents<V> {

    /** The life-cycle events of a job, one per {@link WorkerListener} method. */
    enum Event { DELIVERED, ACKED, RETRIED, DEAD_LETTERED, RELEASED, LEASE_LOST, TIMED_OUT }

    private static final System.Logger LOG = System.getLogger(Worker.class.getName());

    private final WorkerListener<V> listener;
    private final String worker;

    /**
     * @param listener the listener, or null for none
     * @param worker   the worker's name, for the log
     */
    WorkerEvents(WorkerListener<V> listener, String worker) {
        this.listener = listener;
        this.worker = worker;
    }

    /** @return whether a listener is set */
    boolean on() {
        return listener != null;
    }

    /**
     * Tells the listener, if any, of a job's event.
     *
     * @param job   the job
     * @param event what happened
     * @param error the error or reason of RETRIED and DEAD_LETTERED, else null
     * @param delay the retry delay of RETRIED, the exceeded timeout of TIMED_OUT, else null
     */
    void fire(Job<V> job, Event event, String error, Duration delay) {
        if (listener == null) {
            return;
        }
        try {
            switch (event) {
                case DELIVERED -> listener.delivered(job);
                case ACKED -> listener.acked(job);
                case RETRIED -> listener.retried(job, delay, error);
                case DEAD_LETTERED -> listener.deadLettered(job, error);
                case RELEASED -> listener.released(job);
                case LEASE_LOST -> listener.leaseLost(job);
                case TIMED_OUT -> listener.timedOut(job, delay);
                default -> throw new AssertionError(event);
            }
        } catch (RuntimeException bad) {
            listenerFailed(bad);
        }
    }

    /** Tells the listener, if any, how long a job's handler ran and what it threw (null if nothing). */
    void handled(Job<V> job, long nanos, Throwable failure) {
        if (listener == null) {
            return;
        }
        try {
            listener.handled(job, nanos, failure);
        } catch (RuntimeException bad) {
            listenerFailed(bad);
        }
    }

    /** Tells the listener, if any, that a call to the backend failed. */
    void backendError(Operation op, RuntimeException e) {
        if (listener == null) {
            return;
        }
        try {
            listener.backendError(op.label, e);
        } catch (RuntimeException bad) {
            listenerFailed(bad);
        }
    }

    private void listenerFailed(RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "worker '" + worker + "': listener threw; the worker goes on", e);
    }
}

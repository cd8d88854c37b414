package io.clockwork.worker;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Hears a {@link Worker}'s life-cycle events, for metrics, tracing and logs. Implementations must be thread-safe and
 * quick: events come from the worker's threads (handler, acker, heartbeat, poller) as they happen. Every method does
 * nothing by default; one that throws is logged and the worker goes on. A worker without a listener allocates
 * nothing for events. A worker has one listener: {@link #compose} makes one of several (say the application's own
 * and a metrics listener).
 *
 * @param <V> the value type
 */
public interface WorkerListener<V> {

    /**
     * A message was taken from the queue (before its handler runs; a prefetched one may wait for a free handler).
     *
     * @param job the job
     */
    default void delivered(Job<V> job) {
    }

    /**
     * The handler returned or threw, on the handler's thread, before the worker settles the job (the ack, retry or
     * dead letter follows and is heard through the other methods). The worker reads the clock for it only when it
     * has a listener.
     *
     * @param job     the job
     * @param nanos   how long the handler ran, in nanoseconds ({@link System#nanoTime()})
     * @param failure what the handler threw, or null if it returned normally
     */
    default void handled(Job<V> job, long nanos, Throwable failure) {
    }

    /**
     * The handler returned normally and the message is acked.
     *
     * @param job the job
     */
    default void acked(Job<V> job) {
    }

    /**
     * The handler failed and the message is due again after {@code delay}.
     *
     * @param job   the job
     * @param delay the retry delay
     * @param error the recorded error, {@code "class: message"}
     */
    default void retried(Job<V> job, Duration delay, String error) {
    }

    /**
     * The handler failed for good (an exception never retried, or the last attempt) and the message is dead.
     *
     * @param job    the job
     * @param reason the dead letter's reason, {@code "class: message"}
     */
    default void deadLettered(Job<V> job, String reason) {
    }

    /**
     * A prefetched message that never started was handed back at shutdown
     * ({@link io.clockwork.queue.Delivery#release()}).
     *
     * @param job the job
     */
    default void released(Job<V> job) {
    }

    /**
     * The job's lease was lost (a heartbeat's extend, or the ack, found the delivery no longer holding its message):
     * it may be delivered to another consumer, and this worker will not ack or retry it. An ack retried after a call
     * that failed without an answer (a backend that froze) also ends here when it finds the message gone: the failed
     * call may have acked it after all.
     *
     * @param job the job
     */
    default void leaseLost(Job<V> job) {
    }

    /**
     * The job's handler still ran when its timeout passed ({@link Worker.Builder#timeout}, or the message's own): it
     * was interrupted, and its attempt is settled as failed ({@link #retried} or {@link #deadLettered} follows, with
     * the {@link JobTimeoutException} as the error).
     *
     * @param job     the job
     * @param timeout the timeout it exceeded
     */
    default void timedOut(Job<V> job, Duration timeout) {
    }

    /**
     * A queue operation failed (the backend is down, paused or refusing); the worker backs off and tries again.
     *
     * @param operation what failed: {@code poll}, {@code ack}, {@code extend}, {@code nack}, {@code deadLetter} or
     *                  {@code release}
     * @param error     the failure
     */
    default void backendError(String operation, RuntimeException error) {
    }

    /**
     * Makes one listener of several: each event goes to every listener, in the order given. A listener that throws
     * does not keep the event from the ones after it; once all have heard it, the first failure is thrown on (the
     * others added to it as suppressed), so the worker logs it as it logs any listener that throws.
     *
     * @param listeners the listeners, at least one
     * @param <V>       the value type
     * @return a listener calling them all; the listener itself when there is one
     * @throws IllegalArgumentException if no listener is given
     */
    @SafeVarargs
    static <V> WorkerListener<V> compose(WorkerListener<V>... listeners) {
        Objects.requireNonNull(listeners, "listeners");
        if (listeners.length == 0) {
            throw new IllegalArgumentException("listeners must hold at least one listener, held none");
        }
        for (int i = 0; i < listeners.length; i++) {
            Objects.requireNonNull(listeners[i], "listeners[" + i + "]");
        }
        return listeners.length == 1 ? listeners[0] : new CompositeWorkerListener<>(List.of(listeners));
    }
}

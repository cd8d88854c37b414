package io.clockwork.worker;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by a {@link JobHandler} to retry its job after a delay of its own choosing, overriding the worker's
 * {@link RetryPolicy} delay for this attempt (e.g. the {@code Retry-After} of a rate-limited call). Immutable.
 *
 * <p>The attempt counts as failed like any other: the policy's and the queue's {@code maxAttempts} still apply, and
 * the error recorded (the dead letter's reason if the message later dies) is the cause's, or this exception's if it
 * has no cause.
 */
public class RetryLater extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The retry delay; a {@link Duration} is serializable. */
    private final Duration delay;

    /**
     * @param delay how long until the job is due again; zero or negative: now
     */
    public RetryLater(Duration delay) {
        this(delay, null);
    }

    /**
     * @param delay how long until the job is due again; zero or negative: now
     * @param cause what went wrong, recorded as the job's last error; may be null
     */
    public RetryLater(Duration delay, Throwable cause) {
        super(message(delay, cause), cause);
        this.delay = delay;
    }

    /** @return how long until the job is due again */
    public Duration delay() {
        return delay;
    }

    private static String message(Duration delay, Throwable cause) {
        Objects.requireNonNull(delay, "delay");
        return cause == null ? "retry in " + delay : "retry in " + delay + ": " + cause;
    }
}

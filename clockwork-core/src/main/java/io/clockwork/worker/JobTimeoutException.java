package io.clockwork.worker;

import java.time.Duration;

/**
 * The failure a {@link Worker} records for a job still running when its timeout passed ({@link
 * Worker.Builder#timeout(Duration)}, or the message's own, {@link io.clockwork.queue.Message#timeout(Duration)}): the
 * handler was interrupted and the attempt counts as failed, so the {@link RetryPolicy} retries it (this exception is
 * retried unless the policy says otherwise) or dead-letters it with this as the reason. Immutable and thread-safe.
 */
public final class JobTimeoutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The timeout the job exceeded. */
    private final transient Duration timeout;

    /**
     * @param id      the job's message id
     * @param attempt the attempt that timed out
     * @param timeout the timeout it exceeded
     */
    public JobTimeoutException(String id, int attempt, Duration timeout) {
        super("job " + id + " (attempt " + attempt + ") still ran after its timeout of " + timeout.toMillis()
                + " ms: interrupted");
        this.timeout = timeout;
    }

    /** @return the timeout the job exceeded */
    public Duration timeout() {
        return timeout;
    }
}

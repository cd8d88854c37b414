package io.clockwork.worker;

/**
 * The work a {@link Worker} does for each message. Implementations must be thread-safe: a worker with a concurrency
 * above 1 calls one handler from several threads at once.
 *
 * <p>Returning normally means done: the worker acks the message. Throwing means failed: the worker retries it by its
 * {@link RetryPolicy} or, for an exception the policy never retries, dead-letters it at once; throwing
 * {@link RetryLater} chooses this attempt's retry delay. A handler interrupted at the end of a worker's shutdown
 * deadline should return promptly; its message comes back after the visibility timeout.
 *
 * @param <V> the value type
 */
@FunctionalInterface
public interface JobHandler<V> {

    /**
     * Handles one job.
     *
     * @param job the message
     * @throws Exception to have it retried or dead-lettered
     */
    void handle(Job<V> job) throws Exception;
}

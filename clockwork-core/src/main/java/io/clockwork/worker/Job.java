package io.clockwork.worker;

import java.util.Map;

/**
 * One message as a {@link Worker} hands it to its {@link JobHandler}: a read-only view of one delivery. Thread-safe.
 *
 * <p>The worker owns the delivery: it acks the message when the handler returns normally and retries or
 * dead-letters it when the handler throws (see {@link RetryPolicy} and {@link RetryLater}), so a handler never acks,
 * nacks or extends anything itself.
 *
 * @param <V> the value type
 */
public interface Job<V> {

    /** @return the message id */
    String id();

    /** @return the decoded value */
    V value();

    /** @return which delivery of this message this is, starting at 1 */
    int attempt();

    /** @return the message's headers (trace context, tenant, ...): unmodifiable, empty when it has none */
    Map<String, String> headers();

    /**
     * Tells whether the worker found this job's lease lost: the message may already be delivered to another
     * consumer, and the worker will neither ack nor retry it. A long handler may check it to stop early.
     *
     * @return true once the lease is known to be lost
     */
    boolean isLeaseLost();
}

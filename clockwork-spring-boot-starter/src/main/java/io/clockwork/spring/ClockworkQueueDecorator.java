package io.clockwork.spring;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.JobHandler;
import io.clockwork.queue.Worker;

/**
 * Wraps each queue {@link ClockworkQueues} opens, and each listener's handler and worker, for cross-cutting concerns
 * such as metrics or tracing. Implementations must be thread-safe. Every bean of this type applies, in bean order.
 */
public interface ClockworkQueueDecorator {

    /**
     * @param queue the queue as opened (or as the previous decorator returned it)
     * @param <V>   the value type
     * @return the queue the application and the listeners use
     */
    <V> DelayedQueue<V> decorate(DelayedQueue<V> queue);

    /**
     * @param queue   the decorated queue the handler's worker polls
     * @param handler the listener's handler
     * @param <V>     the value type
     * @return the handler the worker runs; by default {@code handler}
     */
    default <V> JobHandler<V> decorate(DelayedQueue<V> queue, JobHandler<V> handler) {
        return handler;
    }

    /**
     * Sets options of a listener's worker before it is built, such as its {@link io.clockwork.queue.WorkerListener}
     * (a worker has one: one decorator may set it). Does nothing by default.
     *
     * @param queue  the decorated queue the worker polls
     * @param worker the worker's builder
     * @param <V>    the value type
     */
    default <V> void customize(DelayedQueue<V> queue, Worker.Builder<V> worker) {
    }
}

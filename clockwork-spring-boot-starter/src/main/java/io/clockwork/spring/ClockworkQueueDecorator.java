package io.clockwork.spring;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.worker.JobHandler;
import io.clockwork.worker.Worker;
import io.clockwork.worker.WorkerListener;

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
     * A listener for the life-cycle events of a listener's worker. The worker hears every decorator's listener and
     * the application's {@link WorkerListener} beans of its value type, composed into its one listener. None by
     * default.
     *
     * @param queue the decorated queue the worker polls
     * @param <V>   the value type
     * @return the listener, or null for none
     */
    default <V> WorkerListener<V> workerListener(DelayedQueue<V> queue) {
        return null;
    }

    /**
     * Sets options of a listener's worker before it is built, other than its listener ({@link #workerListener}).
     * Does nothing by default.
     *
     * @param queue  the decorated queue the worker polls
     * @param worker the worker's builder
     * @param <V>    the value type
     */
    default <V> void customize(DelayedQueue<V> queue, Worker.Builder<V> worker) {
    }
}

package io.clockwork.spring;

import io.clockwork.micrometer.MeteredDelayedQueue;
import io.clockwork.micrometer.QueueStatsSampler;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.ForwardingDelayedQueue;
import io.clockwork.worker.WorkerListener;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Meters every queue into the application's {@link MeterRegistry} through clockwork-micrometer, and times every
 * listener's handler through its worker's listener; one {@link QueueStatsSampler} samples the queues' state gauges.
 * Thread-safe. Does nothing when the application has no registry.
 */
public final class MetricsQueueDecorator implements ClockworkQueueDecorator, AutoCloseable {

    private final ObjectProvider<MeterRegistry> registry;
    private final QueueStatsSampler sampler;
    private final boolean deliveryLateness;

    /**
     * @param registry         the application's registry, looked up when the first queue opens
     * @param sampler          samples the state gauges; closed with this decorator
     * @param deliveryLateness whether offers carry the due-time header for the delivery lateness timer
     */
    public MetricsQueueDecorator(ObjectProvider<MeterRegistry> registry, QueueStatsSampler sampler,
                                 boolean deliveryLateness) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.sampler = Objects.requireNonNull(sampler, "sampler");
        this.deliveryLateness = deliveryLateness;
    }

    @Override
    public <V> DelayedQueue<V> decorate(DelayedQueue<V> queue) {
        MeterRegistry r = registry.getIfAvailable();
        return r == null ? queue : MeteredDelayedQueue.builder(queue, r).sampler(sampler)
                .deliveryLateness(deliveryLateness).build();
    }

    /** The metered queue's listener for the worker, wherever the metered queue sits among the decorators. */
    @Override
    public <V> WorkerListener<V> workerListener(DelayedQueue<V> queue) {
        DelayedQueue<V> q = queue;
        while (!(q instanceof MeteredDelayedQueue<V>) && q instanceof ForwardingDelayedQueue<V> f) {
            q = f.delegate();
        }
        return q instanceof MeteredDelayedQueue<V> metered ? metered.workerListener() : null;
    }

    /** Stops the sampler's thread. */
    @Override
    public void close() {
        sampler.close();
    }
}

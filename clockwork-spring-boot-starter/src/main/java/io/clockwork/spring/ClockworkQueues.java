package io.clockwork.spring;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.RedisQueueBuilder;
import io.lettuce.core.RedisClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The application's queues by name: opens each on first use with its {@code clockwork.queues.<name>} options, on
 * Redis when a {@link RedisClient} is configured, else in process, decorated by every
 * {@link ClockworkQueueDecorator}; closes them when the context closes. Thread-safe.
 *
 * <pre>{@code
 * DelayedQueue<Order> orders = queues.queue("orders", Order.class);
 * orders.offer(order, Duration.ofMinutes(15));
 * }</pre>
 */
public final class ClockworkQueues implements AutoCloseable {

    private record Opened(Class<?> type, DelayedQueue<?> queue) {
    }

    private final ClockworkProperties properties;
    private final ClockworkCodecs codecs;
    private final RedisClient redis;
    private final List<ClockworkQueueDecorator> decorators;
    private final Map<String, Opened> open = new LinkedHashMap<>();
    private boolean closed;

    /**
     * @param properties the queue options
     * @param codecs     chooses each value type's codec
     * @param redis      the Redis client of the queues; null for in-process queues
     * @param decorators applied to each queue in order
     * @throws IllegalArgumentException naming the property if a queue's flow-control option is out of range
     * @throws IllegalStateException    naming the properties if the queues are on Redis, which refuses the
     *                                  flow-control options ({@code rate-limit}, {@code group-rate-limit},
     *                                  {@code max-in-flight-per-group}, {@code group-weights})
     */
    public ClockworkQueues(ClockworkProperties properties, ClockworkCodecs codecs, RedisClient redis,
                           List<ClockworkQueueDecorator> decorators) {
        this.properties = Objects.requireNonNull(properties, "properties");
        this.codecs = Objects.requireNonNull(codecs, "codecs");
        this.redis = redis;
        this.decorators = List.copyOf(decorators);
        QueueFlowProperties.check(properties.getQueues());
    }

    /**
     * Returns the queue of this name, opening it on first use. Every call with one name returns the same handle.
     *
     * @param name the queue's name
     * @param type its value type; one name has one type
     * @param <V>  the value type
     * @return the (decorated) queue
     * @throws IllegalArgumentException if the queue was opened with another value type
     * @throws IllegalStateException    if the context is closing
     */
    @SuppressWarnings("unchecked")
    public synchronized <V> DelayedQueue<V> queue(String name, Class<V> type) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (closed) {
            throw new IllegalStateException("the Clockwork queues are closed; queue '" + name + "' cannot open");
        }
        Opened o = open.get(name);
        if (o != null) {
            if (o.type != type) {
                throw new IllegalArgumentException("queue '" + name + "' holds " + o.type.getName()
                        + " values, not " + type.getName());
            }
            return (DelayedQueue<V>) o.queue;
        }
        DelayedQueue<V> q = openQueue(name, type);
        for (ClockworkQueueDecorator d : decorators) {
            q = d.decorate(q);
        }
        open.put(name, new Opened(type, q));
        return q;
    }

    private <V> DelayedQueue<V> openQueue(String name, Class<V> type) {
        ClockworkProperties.QueueProperties options = properties.getQueues()
                .getOrDefault(name, new ClockworkProperties.QueueProperties());
        if (redis == null) {
            return QueueFlowProperties.apply(name, options, InMemoryDelayedQueue.<V>builder().name(name)
                    .codec(codecs.codecFor(type)).visibilityTimeout(options.getVisibilityTimeout())
                    .maxAttempts(options.getMaxAttempts())).build();
        }
        RedisQueueBuilder<V> b = QueueFlowProperties.apply(name, options, RedisDelayedQueue.builder(redis, name,
                        codecs.codecFor(type)))
                .visibilityTimeout(options.getVisibilityTimeout()).maxAttempts(options.getMaxAttempts())
                .partitions(options.getPartitions()).compactAfter(options.getCompactAfter())
                .commandTimeout(properties.getRedis().getCommandTimeout())
                .retryOnConnectionLoss(properties.getRedis().getRetryFor())
                .recheckInterval(properties.getRedis().getRecheckInterval());
        if (properties.getRedis().isAllowEvictingServer()) {
            b.allowEvictingServer();
        }
        return b.build();
    }

    /** @return the queues opened so far, by name */
    public synchronized Map<String, DelayedQueue<?>> opened() {
        Map<String, DelayedQueue<?>> m = new LinkedHashMap<>();
        open.forEach((k, v) -> m.put(k, v.queue));
        return m;
    }

    /** @return true if the queues are on Redis */
    public boolean onRedis() {
        return redis != null;
    }

    /** Closes every queue opened; later calls to {@link #queue} fail. */
    @Override
    public void close() {
        List<DelayedQueue<?>> toClose;
        synchronized (this) {
            closed = true;
            toClose = new ArrayList<>();
            open.values().forEach(o -> toClose.add(o.queue));
        }
        for (DelayedQueue<?> q : toClose) {
            q.close();
        }
    }
}

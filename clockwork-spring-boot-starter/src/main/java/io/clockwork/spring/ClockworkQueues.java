package io.clockwork.spring;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.RedisQueueBuilder;
import io.lettuce.core.RedisClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The application's queues by name: opens each on first use with its {@code clockwork.queues.<name>} options, on the
 * backend {@code clockwork.backend} names (unset: on Redis when a {@link RedisClient} is configured, else in
 * process; {@code postgres}: on the application's {@link DataSource}, joining its Spring transactions), decorated by
 * every {@link ClockworkQueueDecorator}; closes them when the context closes. Thread-safe.
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
    private final DataSource dataSource;
    private final ClockworkProperties.Backend backend;
    private final List<ClockworkQueueDecorator> decorators;
    private final Map<String, Opened> open = new LinkedHashMap<>();
    private boolean closed;

    /**
     * Queues in process or on Redis, as {@code clockwork.backend} (unset, {@code in-process} or {@code redis}) says.
     *
     * @param properties the queue options
     * @param codecs     chooses each value type's codec
     * @param redis      the Redis client of the queues; null for in-process queues
     * @param decorators applied to each queue in order
     * @throws IllegalArgumentException naming the property if a queue's flow-control option is out of range
     * @throws IllegalStateException    if {@code clockwork.backend} names a backend without its client
     */
    public ClockworkQueues(ClockworkProperties properties, ClockworkCodecs codecs, RedisClient redis,
                           List<ClockworkQueueDecorator> decorators) {
        this(properties, codecs, redis, null, decorators);
    }

    /**
     * Queues on the backend {@code clockwork.backend} names.
     *
     * @param properties the queue options
     * @param codecs     chooses each value type's codec
     * @param redis      the Redis client of the queues; null if there is none
     * @param dataSource the application's DataSource, for {@code clockwork.backend=postgres}; null if there is none
     * @param decorators applied to each queue in order
     * @throws IllegalArgumentException naming the property if a queue's flow-control option is out of range
     * @throws IllegalStateException    if {@code clockwork.backend} names a backend whose client or DataSource is
     *                                  missing, or a flow-control option the backend does not support is set
     */
    public ClockworkQueues(ClockworkProperties properties, ClockworkCodecs codecs, RedisClient redis,
                           DataSource dataSource, List<ClockworkQueueDecorator> decorators) {
        this.properties = Objects.requireNonNull(properties, "properties");
        this.codecs = Objects.requireNonNull(codecs, "codecs");
        this.backend = backend(properties.getBackend(), redis, dataSource);
        this.redis = backend == ClockworkProperties.Backend.REDIS ? redis : null;
        this.dataSource = backend == ClockworkProperties.Backend.POSTGRES ? dataSource : null;
        this.decorators = List.copyOf(decorators);
        QueueFlowProperties.check(properties.getQueues());
    }

    /** @return the backend chosen, checking that its client is there */
    private static ClockworkProperties.Backend backend(ClockworkProperties.Backend chosen, RedisClient redis,
                                                       DataSource dataSource) {
        if (chosen == null) {
            return redis != null ? ClockworkProperties.Backend.REDIS : ClockworkProperties.Backend.IN_PROCESS;
        }
        if (chosen == ClockworkProperties.Backend.REDIS && redis == null) {
            throw new IllegalStateException("clockwork.backend=redis needs a Redis server: set clockwork.redis.uri "
                    + "or define a Lettuce RedisClient bean");
        }
        if (chosen == ClockworkProperties.Backend.POSTGRES && dataSource == null) {
            throw new IllegalStateException("clockwork.backend=postgres needs the application's DataSource: set "
                    + "spring.datasource.url (with spring-boot-starter-jdbc and the PostgreSQL driver), or define a "
                    + "DataSource bean");
        }
        return chosen;
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
        if (backend == ClockworkProperties.Backend.POSTGRES) {
            return PostgresQueues.open(dataSource, name, codecs.codecFor(type), options, properties.getPostgres());
        }
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

    /** @return where the queues are: in process, on Redis or on PostgreSQL */
    public ClockworkProperties.Backend backend() {
        return backend;
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

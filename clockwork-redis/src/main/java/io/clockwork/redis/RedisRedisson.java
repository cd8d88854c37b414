package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.redisson.RBlockingDeque;
import io.clockwork.redisson.RBlockingQueue;
import io.clockwork.redisson.RDelayedQueue;
import io.clockwork.redisson.RQueue;
import io.clockwork.redisson.RedissonClient;
import io.clockwork.time.Ticker;
import io.lettuce.core.RedisURI;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The Redisson face on Redis: a {@link RedissonClient} whose queues, deques and delayed queues keep
 * Redisson's names and semantics over Clockwork's data model. Thread-safe.
 *
 * <p>Moving from Redisson: replace {@code Redisson.create(config)} by {@code RedisRedisson.create(redisUri)} and the
 * {@code org.redisson.api} imports of {@code RedissonClient}, {@code RQueue}, {@code RBlockingQueue},
 * {@code RDeque}, {@code RBlockingDeque} and {@code RDelayedQueue} by {@code io.clockwork.redisson}; the calls stay.
 *
 * <p>Each destination name is a one-partition Clockwork queue of that name (so {@code clockwork queue stats} and a
 * {@code RedisDelayedQueue} see it) plus two indexes (offer order, and values by digest), all in one hash tag; its
 * delayed queue is the elements not yet due. What Redisson's {@code RDelayedQueue} does and this does not: no
 * transfer task (an element is due by the server's clock, not moved by a client, so none is late because no client
 * runs and none is stuck between two structures), no client clock (due times come from the server's {@code TIME}),
 * and no O(n) {@code LREM} ({@code remove(Object)} and {@code contains} go through the value index, O(log n) per copy
 * of the value). Like Redisson's, a take removes the element (at most once); use {@code RedisDelayedQueue} for
 * acknowledged delivery with retries.
 *
 * <p>{@code build} checks as {@code RedisDelayedQueue}'s builder does: the server must not evict keys, and a queue
 * created with several partitions cannot be opened here.
 */
public final class RedisRedisson implements RedissonClient {

    /** How long one command may wait for its reply. */
    public static final Duration COMMAND_TIMEOUT = RedisQueueBuilder.DEFAULT_COMMAND_TIMEOUT;

    private final Connections connections;
    private final String where;
    private final Ticker ticker = Ticker.system();
    private final ConcurrentMap<String, FaceStore> stores = new ConcurrentHashMap<>();
    private volatile boolean shutdown;

    private RedisRedisson(Connections connections, String where) {
        this.connections = connections;
        this.where = where;
    }

    /**
     * Connects to a Redis server and checks that it does not evict keys.
     *
     * @param redisUri the server, e.g. {@code redis://127.0.0.1:6379} (Lettuce URI syntax)
     * @return the client; {@link #shutdown()} closes its connections
     * @throws IllegalArgumentException if {@code redisUri} is not a Redis URI
     * @throws RedisQueueException      if the server cannot be reached, or may evict keys
     */
    public static RedisRedisson create(String redisUri) {
        RedisURI uri = Connections.parse(redisUri);
        String where = Connections.describe(uri);
        Connections c;
        try {
            c = Connections.owned(uri, RedisQueueBuilder.DEFAULT_CONNECT_TIMEOUT);
        } catch (RuntimeException e) {
            Throwable cause = e instanceof Connections.ConnectFailure ? e.getCause() : e;
            throw new RedisQueueException("Redisson face on " + where + ": cannot connect: " + e.getMessage(), cause);
        }
        try {
            ScriptRunner probe = new ScriptRunner(c, "(Redisson face)", COMMAND_TIMEOUT, Duration.ZERO,
                    Ticker.system());
            EvictionCheck.requireNoEviction(c, probe, "(Redisson face)");
            return new RedisRedisson(c, where);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    @Override
    public <V> RBlockingQueue<V> getBlockingQueue(String name, Codec<V> codec) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(codec, "codec");
        QueueSupport<V> support = new QueueSupport<>(QueueOptions.<V>builder().name(name).codec(codec).build());
        checkOpen();
        return new FaceBlockingQueue<>(this, store(name), support);
    }

    @Override
    public <V> RBlockingDeque<V> getBlockingDeque(String name, Codec<V> codec) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(codec, "codec");
        QueueSupport<V> support = new QueueSupport<>(QueueOptions.<V>builder().name(name).codec(codec).build());
        checkOpen();
        return new FaceBlockingDeque<>(this, store(name), support);
    }

    @Override
    public <V> RDelayedQueue<V> getDelayedQueue(RQueue<V> destinationQueue) {
        Objects.requireNonNull(destinationQueue, "destinationQueue");
        if (!(destinationQueue instanceof FaceView<V> view) || view.client != this) {
            throw new IllegalArgumentException("destinationQueue must be a queue of this client, was "
                    + destinationQueue.getClass().getName());
        }
        checkOpen();
        return new FaceDelayedQueue<>(this, view.store, view.support);
    }

    @Override
    public void shutdown() {
        if (shutdown) {
            return;
        }
        shutdown = true;
        stores.values().forEach(FaceStore::close);
        connections.close();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    /** @return the client's connections */
    Connections connections() {
        return connections;
    }

    /** @throws IllegalStateException if shut down */
    void checkOpen() {
        if (shutdown) {
            throw new IllegalStateException("RedisRedisson on " + where + " is shut down");
        }
    }

    /**
     * @param name a queue's name
     * @return its keys and script calls, opened (and its partition count stored) on first use
     */
    FaceStore store(String name) {
        checkOpen();
        QueueOptions.Builder.checkName(name);
        return stores.computeIfAbsent(name, n -> {
            ScriptRunner runner = new ScriptRunner(connections, n, COMMAND_TIMEOUT, Duration.ZERO, ticker);
            StoredPartitions.resolve(runner, connections, n, 1, false);
            Signals signals = new Signals(n, connections, runner, new KeyLayout(n, 1, false).signalKey(), ticker);
            return new FaceStore(n, runner, signals);
        });
    }

    @Override
    public String toString() {
        return "RedisRedisson[" + where + "]";
    }
}

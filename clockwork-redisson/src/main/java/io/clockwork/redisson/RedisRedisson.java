package io.clockwork.redisson;

import io.clockwork.queue.Codec;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.redis.FaceConnections;
import io.clockwork.redis.FaceStore;
import io.clockwork.redis.RedisQueueException;

import java.time.Duration;
import java.util.Objects;

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
    public static final Duration COMMAND_TIMEOUT = FaceConnections.COMMAND_TIMEOUT;

    private final FaceConnections connections;
    private volatile boolean shutdown;

    private RedisRedisson(FaceConnections connections) {
        this.connections = connections;
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
        return new RedisRedisson(FaceConnections.connect(redisUri));
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
        connections.close();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    /** @throws IllegalStateException if shut down */
    void checkOpen() {
        if (shutdown) {
            throw new IllegalStateException("RedisRedisson on " + connections.where() + " is shut down");
        }
    }

    /**
     * @param name a queue's name
     * @return its keys and script calls, opened (and its partition count stored) on first use
     */
    FaceStore store(String name) {
        checkOpen();
        return connections.store(name);
    }

    @Override
    public String toString() {
        return "RedisRedisson[" + connections.where() + "]";
    }
}

package io.clockwork.redisson;

import io.clockwork.queue.Codec;

import java.util.Objects;

/**
 * The entry point of the Redisson face: Redisson's {@code org.redisson.api.RedissonClient} methods for queues and
 * deques. Thread-safe.
 *
 * <p>A queue is named: every handle to one name, from any client of the same store, sees the same elements. The
 * delayed queue of a destination is identified by the destination's name, as in Redisson; a queue and a deque of
 * the same name are the same elements (in Redisson both are one Redis list). Values without a codec
 * use {@link ValueCodec}.
 */
public interface RedissonClient extends AutoCloseable {

    /**
     * @param name the queue's name
     * @param <V>  the element type
     * @return a handle to the queue, with {@link ValueCodec}
     */
    default <V> RQueue<V> getQueue(String name) {
        return getBlockingQueue(name);
    }

    /**
     * @param name  the queue's name
     * @param codec turns elements into bytes and back; equal elements must encode to equal bytes
     * @param <V>   the element type
     * @return a handle to the queue
     */
    default <V> RQueue<V> getQueue(String name, Codec<V> codec) {
        return getBlockingQueue(name, codec);
    }

    /**
     * @param name the queue's name
     * @param <V>  the element type
     * @return a handle to the queue, with {@link ValueCodec}
     */
    @SuppressWarnings("unchecked")
    default <V> RBlockingQueue<V> getBlockingQueue(String name) {
        Objects.requireNonNull(name, "name");
        return getBlockingQueue(name, (Codec<V>) (Codec<?>) ValueCodec.INSTANCE);
    }

    /**
     * @param name  the queue's name
     * @param codec turns elements into bytes and back; equal elements must encode to equal bytes
     * @param <V>   the element type
     * @return a handle to the queue
     */
    <V> RBlockingQueue<V> getBlockingQueue(String name, Codec<V> codec);

    /**
     * @param name the deque's name: the same elements as the queue of that name
     * @param <V>  the element type
     * @return a handle to the deque, with {@link ValueCodec}
     */
    default <V> RDeque<V> getDeque(String name) {
        return getBlockingDeque(name);
    }

    /**
     * @param name  the deque's name: the same elements as the queue of that name
     * @param codec turns elements into bytes and back; equal elements must encode to equal bytes
     * @param <V>   the element type
     * @return a handle to the deque
     */
    default <V> RDeque<V> getDeque(String name, Codec<V> codec) {
        return getBlockingDeque(name, codec);
    }

    /**
     * @param name the deque's name: the same elements as the queue of that name
     * @param <V>  the element type
     * @return a handle to the deque, with {@link ValueCodec}; also a destination for {@link #getDelayedQueue}
     */
    @SuppressWarnings("unchecked")
    default <V> RBlockingDeque<V> getBlockingDeque(String name) {
        Objects.requireNonNull(name, "name");
        return getBlockingDeque(name, (Codec<V>) (Codec<?>) ValueCodec.INSTANCE);
    }

    /**
     * @param name  the deque's name: the same elements as the queue of that name
     * @param codec turns elements into bytes and back; equal elements must encode to equal bytes
     * @param <V>   the element type
     * @return a handle to the deque; also a destination for {@link #getDelayedQueue}
     */
    <V> RBlockingDeque<V> getBlockingDeque(String name, Codec<V> codec);

    /**
     * @param destinationQueue the queue that receives the elements when due (a handle from this client)
     * @param <V>              the element type
     * @return the delayed queue of that destination, with the destination's codec
     */
    <V> RDelayedQueue<V> getDelayedQueue(RQueue<V> destinationQueue);

    /** Closes the client; later calls through it or its handles fail with {@link IllegalStateException}. */
    void shutdown();

    /** @return whether {@link #shutdown()} was called */
    boolean isShutdown();

    /** Same as {@link #shutdown()}. */
    @Override
    default void close() {
        shutdown();
    }
}

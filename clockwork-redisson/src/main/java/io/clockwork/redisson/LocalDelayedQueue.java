package io.clockwork.redisson;

import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A handle to the delayed queue of an {@link InMemoryRedisson} queue: its pending elements, in offer order.
 * Thread-safe.
 *
 * <p>The handle owns nothing but a flag: {@link #destroy()} makes it unusable and leaves the pending elements to fall
 * due as they would (no task stops, because none runs).
 *
 * @param <V> the element type
 */
final class LocalDelayedQueue<V> extends LocalQueueView<V> implements RDelayedQueue<V> {

    private volatile boolean destroyed;

    LocalDelayedQueue(LocalBlockingQueue<V> destination) {
        super(destination.client, destination.store, destination.codec);
    }

    @Override
    LocalStore.View view() {
        return store.pending;
    }

    @Override
    void checkUsable() {
        client.checkOpen(store.name);
        if (destroyed) {
            throw new IllegalStateException("the RDelayedQueue of '" + store.name + "' is destroyed: get a new handle"
                    + " from RedissonClient.getDelayedQueue");
        }
    }

    @Override
    public void offer(V e, long delay, TimeUnit timeUnit) {
        Objects.requireNonNull(e, "e");
        Objects.requireNonNull(timeUnit, "timeUnit");
        long nanos = delay <= 0 ? 0 : timeUnit.toNanos(delay);
        ByteKey key = encode(e);
        locked(v -> {
            store.offerPending(key, nanos);
            return null;
        });
    }

    private UnsupportedOperationException needsDelay() {
        return new UnsupportedOperationException("the RDelayedQueue of '" + store.name + "' files elements with a"
                + " delay only: use offer(e, delay, timeUnit)");
    }

    /** Refused, as in Redisson: an element needs a delay. */
    @Override
    public boolean offer(V e) {
        throw needsDelay();
    }

    /** Refused, as in Redisson: an element needs a delay. */
    @Override
    public boolean add(V e) {
        throw needsDelay();
    }

    /** Refused, as in Redisson: an element needs a delay. */
    @Override
    public boolean addAll(Collection<? extends V> c) {
        throw needsDelay();
    }

    @Override
    public void destroy() {
        destroyed = true;
    }

    @Override
    public String toString() {
        return "RDelayedQueue[" + store.name + "]";
    }
}

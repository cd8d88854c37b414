package io.clockwork.redisson;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.redis.FaceStore;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The delayed queue of a destination on Redis: the elements of a face queue that are not yet due, in offer order.
 * Thread-safe.
 *
 * <p>An element is filed with its due time from the server's clock and needs no client to reach the destination:
 * it is in the destination from the moment the server's clock reaches its due time. Polling or removing it before
 * then takes it out for good.
 *
 * @param <V> the element type
 */
final class FaceDelayedQueue<V> extends FaceView<V> implements RDelayedQueue<V> {

    private volatile boolean destroyed;

    FaceDelayedQueue(RedisRedisson client, FaceStore store, QueueSupport<V> support) {
        super(client, store, support, FaceStore.Scope.DELAYED);
    }

    @Override
    public void offer(V e, long delay, TimeUnit timeUnit) {
        Objects.requireNonNull(e, "e");
        Objects.requireNonNull(timeUnit, "timeUnit");
        checkOpen();
        byte[] p = support.encode(e);
        long ms = timeUnit.toMillis(delay);
        if (ms > DelayedQueue.MAX_DELAY.toMillis()) {
            throw new IllegalArgumentException("delay must be at most " + DelayedQueue.MAX_DELAY
                    + ", was " + delay + " " + timeUnit);
        }
        if (delay > 0 && timeUnit.convert(ms, TimeUnit.MILLISECONDS) < delay) {
            ms++; // a part of a millisecond: rounded up, never early
        }
        store.offer(p, ms);
    }

    /** Refused, as in Redisson: an element of a delayed queue needs a delay. */
    @Override
    public boolean offer(V e) {
        throw new UnsupportedOperationException("use offer(element, delay, timeUnit): an element of delayed queue '"
                + getName() + "' needs a delay");
    }

    /** Refused, as in Redisson: an element of a delayed queue needs a delay. */
    @Override
    public boolean add(V e) {
        return offer(e);
    }

    @Override
    public void destroy() {
        destroyed = true;
    }

    @Override
    void checkOpen() {
        super.checkOpen();
        if (destroyed) {
            throw new IllegalStateException("the delayed queue of '" + getName() + "' was destroyed");
        }
    }

    @Override
    List<byte[]> take(int limit, boolean remove) {
        return store.delayedEnd(limit, false, remove);
    }
}

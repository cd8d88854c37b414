package io.clockwork.redisson;

import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.redis.FaceStore;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A destination of the Redisson face on Redis as a deque: the due elements of a face queue, in due order, open at
 * both ends. Thread-safe: each method it adds to {@link FaceBlockingQueue} is one script call, atomic on the server.
 *
 * <p>The same elements as the {@link FaceBlockingQueue} of the same name. {@link #offerFirst} files an element due
 * just before the head ({@code face_offer.lua}'s {@code first}), so it is the next one taken; the tail is the
 * element due last, at or before the server's clock. A blocked {@link #takeLast()} waits as a blocked {@code take}
 * does and takes from the tail.
 *
 * @param <V> the element type
 */
final class FaceBlockingDeque<V> extends FaceBlockingQueue<V> implements RBlockingDeque<V> {

    FaceBlockingDeque(RedisRedisson client, FaceStore store, QueueSupport<V> support) {
        super(client, store, support);
    }

    @Override
    public boolean offerFirst(V e) {
        Objects.requireNonNull(e, "e");
        checkOpen();
        store.offerFirst(support.encode(e));
        return true;
    }

    @Override
    public boolean offerLast(V e) {
        return offer(e);
    }

    @Override
    public V pollFirst() {
        return poll();
    }

    @Override
    public V pollLast() {
        checkOpen();
        List<byte[]> r = store.take(1, true, true).payloads();
        return r.isEmpty() ? null : support.decode(r.get(0));
    }

    @Override
    public V peekFirst() {
        return peek();
    }

    @Override
    public V peekLast() {
        checkOpen();
        List<byte[]> r = store.take(1, true, false).payloads();
        return r.isEmpty() ? null : support.decode(r.get(0));
    }

    @Override
    public List<V> pollFirst(int limit) {
        return poll(limit);
    }

    @Override
    public List<V> pollLast(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        checkOpen();
        return decodeAll(store.take(limit, true, true).payloads());
    }

    /** Removes the copy of {@code o} nearest the tail; O(log n) per copy of the value. */
    @Override
    public boolean removeLastOccurrence(Object o) {
        Objects.requireNonNull(o, "o");
        checkOpen();
        byte[] p = encodeOrNull(o);
        return p != null && store.find(FaceStore.Scope.DUE, 1, true, true, List.of(p))[0] > 0;
    }

    @Override
    public V takeFirst() throws InterruptedException {
        return take();
    }

    @Override
    public V takeLast() throws InterruptedException {
        return await(Long.MAX_VALUE, true);
    }

    @Override
    public V pollFirst(long timeout, TimeUnit unit) throws InterruptedException {
        return poll(timeout, unit);
    }

    @Override
    public V pollLast(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return await(Math.max(0, unit.toNanos(timeout)), true);
    }
}

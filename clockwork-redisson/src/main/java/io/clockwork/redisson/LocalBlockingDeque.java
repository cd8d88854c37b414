package io.clockwork.redisson;

import io.clockwork.queue.Codec;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A handle to a queue of an {@link InMemoryRedisson} as a deque: its due elements, open at both ends, as
 * {@link RDeque} and {@link RBlockingDeque}. Thread-safe.
 *
 * <p>The same elements as the {@link LocalBlockingQueue} of the same name. {@link #offerFirst} puts an element
 * before the head of the store's due part (the head grows backwards), so it is the next one taken; a blocked
 * {@link #takeLast()} or {@link #pollLast(long, TimeUnit)} waits on the store's condition as a blocked {@code take}
 * does, and takes from the tail.
 *
 * @param <V> the element type
 */
final class LocalBlockingDeque<V> extends LocalBlockingQueue<V> implements RBlockingDeque<V> {

    LocalBlockingDeque(InMemoryRedisson client, LocalStore store, Codec<V> codec) {
        super(client, store, codec);
    }

    @Override
    public boolean offerFirst(V e) {
        ByteKey key = encode(Objects.requireNonNull(e, "e"));
        return locked(v -> {
            store.offerDueFirst(key);
            return true;
        });
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
        return decode(locked(LocalStore.View::pollLast));
    }

    @Override
    public V peekFirst() {
        return peek();
    }

    @Override
    public V peekLast() {
        return decode(locked(LocalStore.View::peekLast));
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
        return decodeAll(locked(v -> {
            List<ByteKey> taken = new ArrayList<>(Math.min(limit, v.size()));
            ByteKey key;
            while (taken.size() < limit && (key = v.pollLast()) != null) {
                taken.add(key);
            }
            return taken;
        }));
    }

    @Override
    public boolean removeLastOccurrence(Object o) {
        Objects.requireNonNull(o, "o");
        ByteKey key = keyOrNull(o);
        return locked(v -> key != null && v.removeLast(key));
    }

    @Override
    public V takeFirst() throws InterruptedException {
        return take();
    }

    @Override
    public V takeLast() throws InterruptedException {
        return decode(store.awaitEnd(true, false, 0, this::checkUsable));
    }

    @Override
    public V pollFirst(long timeout, TimeUnit unit) throws InterruptedException {
        return poll(timeout, unit);
    }

    @Override
    public V pollLast(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = Objects.requireNonNull(unit, "unit").toNanos(timeout);
        return decode(store.awaitEnd(true, true, nanos, this::checkUsable));
    }

    @Override
    public String toString() {
        return "RBlockingDeque[" + store.name + "]";
    }
}

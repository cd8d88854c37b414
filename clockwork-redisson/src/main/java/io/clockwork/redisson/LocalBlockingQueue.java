package io.clockwork.redisson;

import io.clockwork.queue.Codec;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A handle to a queue of an {@link InMemoryRedisson}: its due elements, as {@link RQueue} and {@link RBlockingQueue}.
 * Thread-safe.
 *
 * <p>A blocked {@link #take()} or {@link #poll(long, TimeUnit)} waits on the store's condition and wakes when an
 * element arrives, when the next pending element falls due, when the client's ticker jumps, or when the client shuts
 * down (it then throws {@link IllegalStateException}). A timed poll's timeout runs on the client's ticker.
 *
 * @param <V> the element type
 */
class LocalBlockingQueue<V> extends LocalQueueView<V> implements RBlockingQueue<V> {

    LocalBlockingQueue(InMemoryRedisson client, LocalStore store, Codec<V> codec) {
        super(client, store, codec);
    }

    @Override
    LocalStore.View view() {
        return store.due;
    }

    @Override
    void checkUsable() {
        client.checkOpen(store.name);
    }

    @Override
    public boolean offer(V e) {
        ByteKey key = encode(Objects.requireNonNull(e, "e"));
        return locked(v -> {
            store.offerDue(key);
            return true;
        });
    }

    @Override
    public boolean addAll(Collection<? extends V> c) {
        Objects.requireNonNull(c, "c");
        if (c == this) {
            throw new IllegalArgumentException("c is this queue: a queue cannot add itself");
        }
        List<ByteKey> keys = encodeAll(c);
        return locked(v -> {
            keys.forEach(store::offerDue);
            return !keys.isEmpty();
        });
    }

    @Override
    public void put(V e) {
        offer(e);
    }

    @Override
    public boolean offer(V e, long timeout, TimeUnit unit) {
        Objects.requireNonNull(e, "e");
        Objects.requireNonNull(unit, "unit");
        return offer(e);
    }

    @Override
    public V take() throws InterruptedException {
        return decode(store.awaitEnd(false, false, 0, this::checkUsable));
    }

    @Override
    public V poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = Objects.requireNonNull(unit, "unit").toNanos(timeout);
        return decode(store.awaitEnd(false, true, nanos, this::checkUsable));
    }

    @Override
    public int remainingCapacity() {
        checkUsable();
        return Integer.MAX_VALUE;
    }

    @Override
    public String toString() {
        return "RBlockingQueue[" + store.name + "]";
    }
}

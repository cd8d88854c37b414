package io.clockwork.redisson;

import io.clockwork.queue.Codec;
import io.clockwork.queue.CodecException;

import java.util.AbstractQueue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * What the two handles of an {@link InMemoryRedisson} queue share: the {@link RQueue} operations over one part of a
 * {@link LocalStore}. Thread-safe: every operation runs under the store's lock, and encoding and decoding run outside
 * it.
 *
 * <p>A value the codec cannot encode (or of a type it does not take) is in no queue: {@code contains} and
 * {@code remove} report false for it, and {@code removeAll} and {@code retainAll} match nothing with it.
 *
 * @param <V> the element type
 */
abstract class LocalQueueView<V> extends AbstractQueue<V> implements RQueue<V> {

    final InMemoryRedisson client;
    final LocalStore store;
    final Codec<V> codec;

    LocalQueueView(InMemoryRedisson client, LocalStore store, Codec<V> codec) {
        this.client = client;
        this.store = store;
        this.codec = codec;
    }

    /** @return the part of the store this handle shows */
    abstract LocalStore.View view();

    /** Throws {@link IllegalStateException} naming the queue if this handle can no longer be used. */
    abstract void checkUsable();

    @Override
    public String getName() {
        return store.name;
    }

    /** Runs {@code op} on this handle's part under the store's lock, after the due elements are promoted. */
    final <T> T locked(Function<LocalStore.View, T> op) {
        store.lock.lock();
        try {
            checkUsable();
            store.promote();
            return op.apply(view());
        } finally {
            store.lock.unlock();
        }
    }

    // ---- codec ----

    final ByteKey encode(V value) {
        byte[] bytes;
        try {
            bytes = codec.encode(value);
        } catch (CodecException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CodecException(codec + " cannot encode a " + value.getClass().getName() + ": " + e, e);
        }
        if (bytes == null) {
            throw new CodecException(codec + " encoded a " + value.getClass().getName() + " as null", null);
        }
        return new ByteKey(bytes);
    }

    /** Encodes every element of {@code c}, or throws (storing nothing) at the first null or unencodable one. */
    final List<ByteKey> encodeAll(Collection<? extends V> c) {
        List<ByteKey> keys = new ArrayList<>(c.size());
        for (V e : c) {
            keys.add(encode(Objects.requireNonNull(e, "c contains a null element")));
        }
        return keys;
    }

    /** @return the key of {@code o}, or null if the codec cannot encode it (so it is in no queue) */
    @SuppressWarnings("unchecked")
    final ByteKey keyOrNull(Object o) {
        try {
            return encode((V) o);
        } catch (CodecException | ClassCastException notEncodable) {
            return null;
        }
    }

    /** The keys of the encodable values of {@code c}, and whether every value was encodable. */
    private record Keys(Set<ByteKey> keys, boolean complete) {
    }

    private Keys keysOf(Collection<?> c) {
        Set<ByteKey> keys = new HashSet<>();
        boolean complete = true;
        for (Object o : c) {
            ByteKey key = keyOrNull(Objects.requireNonNull(o, "c contains a null element"));
            if (key != null) {
                keys.add(key);
            } else {
                complete = false;
            }
        }
        return new Keys(keys, complete);
    }

    final V decode(ByteKey key) {
        if (key == null) {
            return null;
        }
        try {
            return codec.decode(key.bytes);
        } catch (CodecException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CodecException(codec + " cannot decode an element of queue '" + getName() + "': " + e, e);
        }
    }

    final List<V> decodeAll(List<ByteKey> keys) {
        List<V> values = new ArrayList<>(keys.size());
        for (ByteKey key : keys) {
            values.add(decode(key));
        }
        return values;
    }

    // ---- reading ----

    @Override
    public List<V> readAll() {
        return decodeAll(locked(LocalStore.View::keys));
    }

    @Override
    public int size() {
        return locked(LocalStore.View::size);
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public V peek() {
        return decode(locked(LocalStore.View::peekFirst));
    }

    @Override
    public boolean contains(Object o) {
        ByteKey key = keyOrNull(Objects.requireNonNull(o, "o"));
        return locked(v -> key != null && v.contains(key));
    }

    @Override
    public boolean containsAll(Collection<?> c) {
        Objects.requireNonNull(c, "c");
        Keys keys = keysOf(c);
        return locked(v -> {
            if (!keys.complete()) {
                return false;
            }
            for (ByteKey key : keys.keys()) {
                if (!v.contains(key)) {
                    return false;
                }
            }
            return true;
        });
    }

    @Override
    public Object[] toArray() {
        return readAll().toArray();
    }

    @Override
    public <T> T[] toArray(T[] a) {
        Objects.requireNonNull(a, "a");
        return readAll().toArray(a);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The iterator walks a snapshot taken when it is created; {@link Iterator#remove()} removes the very element it
     * returned (not another copy of its value) if that element is still in the queue.
     */
    @Override
    public Iterator<V> iterator() {
        List<LocalStore.Slot> slots = locked(LocalStore.View::slots);
        List<V> values = new ArrayList<>(slots.size());
        for (LocalStore.Slot slot : slots) {
            values.add(decode(slot.key()));
        }
        return new Iterator<>() {
            private int next;
            private int last = -1;

            @Override
            public boolean hasNext() {
                return next < values.size();
            }

            @Override
            public V next() {
                if (next >= values.size()) {
                    throw new NoSuchElementException("no element after the " + next + " of queue '" + getName() + "'");
                }
                last = next;
                return values.get(next++);
            }

            @Override
            public void remove() {
                if (last < 0) {
                    throw new IllegalStateException("next() has not returned an element since the last remove()");
                }
                LocalStore.Slot slot = slots.get(last);
                last = -1;
                locked(v -> v.removeSlot(slot.position(), slot.key()));
            }
        };
    }

    // ---- taking and removing ----

    @Override
    public V poll() {
        return decode(locked(LocalStore.View::pollFirst));
    }

    @Override
    public List<V> poll(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        return decodeAll(locked(v -> {
            List<ByteKey> taken = new ArrayList<>(Math.min(limit, v.size()));
            ByteKey key;
            while (taken.size() < limit && (key = v.pollFirst()) != null) {
                taken.add(key);
            }
            return taken;
        }));
    }

    @Override
    public V pollLastAndOfferFirstTo(String queueName) {
        LocalStore target = client.store(Objects.requireNonNull(queueName, "queueName"));
        ByteKey last;
        LocalStore.lockBoth(store, target);
        try {
            checkUsable();
            store.promote();
            target.promote();
            last = view().pollLast();
            if (last != null) {
                target.offerDueFirst(last);
            }
        } finally {
            LocalStore.unlockBoth(store, target);
        }
        return decode(last);
    }

    @Override
    public boolean remove(Object o) {
        ByteKey key = keyOrNull(Objects.requireNonNull(o, "o"));
        return locked(v -> key != null && v.removeFirst(key));
    }

    @Override
    public boolean removeAll(Collection<?> c) {
        Set<ByteKey> keys = keysOf(Objects.requireNonNull(c, "c")).keys();
        return locked(v -> v.removeAll(keys));
    }

    @Override
    public boolean retainAll(Collection<?> c) {
        Set<ByteKey> keys = keysOf(Objects.requireNonNull(c, "c")).keys();
        return locked(v -> v.retainAll(keys));
    }

    @Override
    public void clear() {
        locked(LocalStore.View::clear);
    }

    @Override
    public boolean delete() {
        return locked(LocalStore.View::clear);
    }
}

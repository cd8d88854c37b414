package io.clockwork.redisson;

import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.redis.FaceStore;

import java.util.AbstractQueue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The {@link RQueue} view of one scope of a face queue: the delayed elements (an {@code RDelayedQueue}) or the due
 * ones (its destination). Thread-safe: every method is one script call, atomic on the server, except
 * {@link #retainAll} (a read, then a removal of what is not retained) and the iterator (a snapshot).
 *
 * @param <V> the element type
 */
abstract class FaceView<V> extends AbstractQueue<V> implements RQueue<V> {

    final RedisRedisson client;
    final FaceStore store;
    final QueueSupport<V> support;
    private final FaceStore.Scope scope;

    FaceView(RedisRedisson client, FaceStore store, QueueSupport<V> support, FaceStore.Scope scope) {
        this.client = client;
        this.store = store;
        this.support = support;
        this.scope = scope;
    }

    /** @throws IllegalStateException if the client was shut down or this handle released */
    void checkOpen() {
        client.checkOpen();
    }

    @Override
    public String getName() {
        return store.name();
    }

    @Override
    public int size() {
        checkOpen();
        return (int) Math.min(Integer.MAX_VALUE, store.count(scope));
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public boolean contains(Object o) {
        Objects.requireNonNull(o, "o");
        checkOpen();
        byte[] p = encodeOrNull(o);
        return p != null && store.find(scope, 1, false, List.of(p))[0] > 0;
    }

    @Override
    public boolean containsAll(Collection<?> c) {
        Objects.requireNonNull(c, "c");
        checkOpen();
        List<byte[]> payloads = new ArrayList<>(c.size());
        for (Object o : c) {
            byte[] p = encodeOrNull(o);
            if (p == null) {
                return false;
            }
            payloads.add(p);
        }
        if (payloads.isEmpty()) {
            return true;
        }
        for (long n : store.find(scope, 1, false, payloads)) {
            if (n == 0) {
                return false;
            }
        }
        return true;
    }

    /** Removes the earliest copy of {@code o} (in offer order, or due order for due elements); O(log n) per copy. */
    @Override
    public boolean remove(Object o) {
        Objects.requireNonNull(o, "o");
        checkOpen();
        byte[] p = encodeOrNull(o);
        return p != null && store.find(scope, 1, true, List.of(p))[0] > 0;
    }

    /** Removes every copy of every element of {@code c}. */
    @Override
    public boolean removeAll(Collection<?> c) {
        Objects.requireNonNull(c, "c");
        checkOpen();
        List<byte[]> payloads = distinct(c);
        if (payloads.isEmpty()) {
            return false;
        }
        for (long n : store.find(scope, 0, true, payloads)) {
            if (n > 0) {
                return true;
            }
        }
        return false;
    }

    /** Removes every element not in {@code c}: a read of the scope, then one removal of the others (O(n)). */
    @Override
    public boolean retainAll(Collection<?> c) {
        Objects.requireNonNull(c, "c");
        checkOpen();
        Map<Key, byte[]> keep = new LinkedHashMap<>();
        for (byte[] p : distinct(c)) {
            keep.put(new Key(p), p);
        }
        Map<Key, byte[]> drop = new LinkedHashMap<>();
        for (byte[] p : store.read(scope)) {
            Key k = new Key(p);
            if (!keep.containsKey(k)) {
                drop.put(k, p);
            }
        }
        if (drop.isEmpty()) {
            return false;
        }
        store.find(scope, 0, true, new ArrayList<>(drop.values()));
        return true;
    }

    @Override
    public void clear() {
        checkOpen();
        store.clear(scope);
    }

    @Override
    public boolean delete() {
        checkOpen();
        return store.clear(scope) > 0;
    }

    @Override
    public List<V> readAll() {
        checkOpen();
        return decodeAll(store.read(scope));
    }

    /** A snapshot, in the queue's order; its {@code remove()} removes the earliest copy of the element returned. */
    @Override
    public Iterator<V> iterator() {
        Iterator<V> snapshot = readAll().iterator();
        return new Iterator<>() {
            private V last;

            @Override
            public boolean hasNext() {
                return snapshot.hasNext();
            }

            @Override
            public V next() {
                last = snapshot.next();
                return last;
            }

            @Override
            public void remove() {
                if (last == null) {
                    throw new IllegalStateException("next() was not called, or remove() was already called");
                }
                FaceView.this.remove(last);
                last = null;
            }
        };
    }

    @Override
    public V pollLastAndOfferFirstTo(String queueName) {
        Objects.requireNonNull(queueName, "queueName");
        checkOpen();
        byte[] p = store.moveLastToFront(scope, client.store(queueName));
        return p == null ? null : support.decode(p);
    }

    @Override
    public List<V> poll(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        checkOpen();
        return decodeAll(take(limit, true));
    }

    @Override
    public V poll() {
        checkOpen();
        List<byte[]> r = take(1, true);
        return r.isEmpty() ? null : support.decode(r.get(0));
    }

    @Override
    public V peek() {
        checkOpen();
        List<byte[]> r = take(1, false);
        return r.isEmpty() ? null : support.decode(r.get(0));
    }

    @Override
    public V element() {
        V v = peek();
        if (v == null) {
            throw new NoSuchElementException("queue '" + getName() + "' is empty");
        }
        return v;
    }

    /**
     * @param limit  the most elements
     * @param remove whether to remove them or only read them
     * @return the payloads at the head of this view
     */
    abstract List<byte[]> take(int limit, boolean remove);

    /**
     * @return the value's payload, or null if it cannot be an element: of another type, or refused by the codec (so
     *         no element equals it)
     */
    @SuppressWarnings("unchecked")
    final byte[] encodeOrNull(Object o) {
        Objects.requireNonNull(o, "element");
        try {
            return support.encode((V) o);
        } catch (ClassCastException | io.clockwork.queue.CodecException e) {
            return null;
        }
    }

    private List<byte[]> distinct(Collection<?> c) {
        Map<Key, byte[]> out = new LinkedHashMap<>();
        for (Object o : c) {
            byte[] p = encodeOrNull(o);
            if (p != null) {
                out.putIfAbsent(new Key(p), p);
            }
        }
        return new ArrayList<>(out.values());
    }

    List<V> decodeAll(List<byte[]> payloads) {
        List<V> out = new ArrayList<>(payloads.size());
        for (byte[] p : payloads) {
            out.add(support.decode(p));
        }
        return out;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + getName() + "]";
    }

    /** A payload as a map key. */
    private record Key(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && java.util.Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(bytes);
        }
    }
}

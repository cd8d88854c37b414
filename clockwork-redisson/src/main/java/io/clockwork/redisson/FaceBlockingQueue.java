package io.clockwork.redisson;

import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.redis.FaceStore;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A destination of the Redisson face on Redis: the due elements of a face queue, in due order. Thread-safe.
 *
 * <p>A blocked {@link #take()} or {@link #poll(long, TimeUnit)} takes at once what is due, else waits on the queue's
 * wake-up signal (pushed by an offer that is due now or before the previous head) for at most the time until the
 * next element falls due, as the server reports it, and re-checks at least every second, so a lost signal costs at
 * most that. Taking removes the element in the same script that finds it: two takers never get the same element.
 * An element the codec cannot decode is taken all the same (at most once), and the take throws the
 * {@link io.clockwork.queue.CodecException} that says so.
 *
 * @param <V> the element type
 */
class FaceBlockingQueue<V> extends FaceView<V> implements RBlockingQueue<V> {

    /** The longest a blocked taker waits before asking the server again, whatever it was told. */
    private static final long RECHECK_MS = 1000;

    FaceBlockingQueue(RedisRedisson client, FaceStore store, QueueSupport<V> support) {
        super(client, store, support, FaceStore.Scope.DUE);
    }

    @Override
    public boolean offer(V e) {
        Objects.requireNonNull(e, "e");
        checkOpen();
        store.offer(support.encode(e), 0);
        return true;
    }

    /**
     * Offers every element, each due at once, in the collection's order. Every element is encoded before any is
     * stored, so a null or an element the codec refuses stores none of them.
     */
    @Override
    public boolean addAll(Collection<? extends V> c) {
        Objects.requireNonNull(c, "c");
        if (c == this) {
            throw new IllegalArgumentException("cannot add a queue to itself");
        }
        checkOpen();
        List<byte[]> payloads = new java.util.ArrayList<>(c.size());
        for (V e : c) {
            payloads.add(support.encode(Objects.requireNonNull(e, "element of c")));
        }
        for (byte[] p : payloads) {
            store.offer(p, 0);
        }
        return !payloads.isEmpty();
    }

    @Override
    public void put(V e) {
        Objects.requireNonNull(e, "e");
        offer(e);
    }

    @Override
    public boolean offer(V e, long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        return offer(e);
    }

    @Override
    public V take() throws InterruptedException {
        return await(Long.MAX_VALUE, false);
    }

    @Override
    public V poll(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return await(Math.max(0, unit.toNanos(timeout)), false);
    }

    @Override
    public int remainingCapacity() {
        return Integer.MAX_VALUE;
    }

    @Override
    List<byte[]> take(int limit, boolean remove) {
        return store.take(limit, false, remove).payloads();
    }

    /**
     * @param nanos the longest wait, {@link Long#MAX_VALUE} for none
     * @param tail  whether to take the tail (the last due) instead of the head
     * @return the element taken, or null if the wait ended first
     */
    final V await(long nanos, boolean tail) throws InterruptedException {
        long start = System.nanoTime();
        while (true) {
            checkOpen();
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            FaceStore.Taken t = store.take(1, tail, true);
            if (!t.payloads().isEmpty()) {
                return support.decode(t.payloads().get(0));
            }
            long left = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : nanos - (System.nanoTime() - start);
            if (left <= 0) {
                return null;
            }
            long waitMs = Math.min(RECHECK_MS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            if (t.waitMs() >= 0) {
                waitMs = Math.min(waitMs, Math.max(1, t.waitMs()));
            }
            store.awaitSignal(waitMs);
        }
    }
}

package io.clockwork.redisson;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;

/**
 * A named blocking queue of the Redisson face: Redisson's {@code org.redisson.api.RBlockingQueue} names and semantics.
 * Thread-safe.
 *
 * <p>As the destination of an {@link RDelayedQueue} it holds the elements that have fallen due, in due order, then
 * in the order they were offered; an element offered to it directly is due at once. Elements reach it when due without
 * a transfer task: they are due by their stored due time (on Redis, the server's clock), so any reader sees them the
 * moment they fall due, and a blocked {@link #take()} wakes then. Taking an element removes it (at most once, as in
 * Redisson: a consumer that crashes after a take loses the element; use {@link io.clockwork.queue.DelayedQueue} for
 * acknowledged delivery). The queue is unbounded: {@link #remainingCapacity()} is {@link Integer#MAX_VALUE}.
 *
 * @param <V> the element type
 */
public interface RBlockingQueue<V> extends RQueue<V>, BlockingQueue<V> {

    /** The most elements one step of {@link #drainTo(Collection, int)} takes. */
    int DRAIN_STEP = 1000;

    @Override
    default int drainTo(Collection<? super V> c) {
        return drainTo(c, Integer.MAX_VALUE);
    }

    /**
     * Takes up to {@code maxElements} due elements, head first, into {@code c}, in steps of at most
     * {@link #DRAIN_STEP} (each one {@link #poll(int)}).
     */
    @Override
    default int drainTo(Collection<? super V> c, int maxElements) {
        Objects.requireNonNull(c, "c");
        if (c == this) {
            throw new IllegalArgumentException("c is this queue: a queue cannot drain into itself");
        }
        int drained = 0;
        while (drained < maxElements) {
            List<V> taken = poll(Math.min(maxElements - drained, DRAIN_STEP));
            if (taken.isEmpty()) {
                break;
            }
            c.addAll(taken);
            drained += taken.size();
        }
        return drained;
    }
}

package io.clockwork.redisson;

import java.util.concurrent.TimeUnit;

/**
 * The pending elements of a destination queue: Redisson's {@code org.redisson.api.RDelayedQueue} names and
 * semantics. Thread-safe.
 *
 * <p>{@link #offer(Object, long, TimeUnit)} files an element that reaches the destination when its delay has passed.
 * Until then it is in this queue, whose {@link java.util.Queue} view ({@code contains}, {@code peek}, {@code poll},
 * {@code readAll}, {@code remove}, {@code removeAll}, {@code retainAll}, {@code clear}, {@code size}, iteration) shows
 * the pending elements in the order they were offered; polling one takes it early, and removing it means it never
 * reaches the destination. The plain {@code add(e)} and {@code offer(e)} are refused, as in Redisson: an element
 * needs a delay.
 *
 * <p>Unlike Redisson's: no client runs a transfer task, so an element is due by its stored due time whether or not a
 * client is running (on Redis, by the server's clock, never a client's); {@code remove(Object)} and
 * {@code contains(Object)} find the element through an index of values, in O(log n) for each copy of the value,
 * instead of scanning the list; and no element is ever stuck between the two queues.
 *
 * @param <V> the element type
 */
public interface RDelayedQueue<V> extends RQueue<V> {

    /**
     * Files an element that reaches the destination after {@code delay}.
     *
     * @param e        the element, not null
     * @param delay    the delay; zero or negative means due at once
     * @param timeUnit the delay's unit
     */
    void offer(V e, long delay, TimeUnit timeUnit);

    /**
     * Releases this handle. The pending elements stay and still reach the destination when due (they need no
     * client); a later call through this handle fails with {@link IllegalStateException}. Idempotent.
     */
    void destroy();
}

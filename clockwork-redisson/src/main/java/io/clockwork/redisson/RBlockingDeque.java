package io.clockwork.redisson;

import java.util.Objects;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.TimeUnit;

/**
 * A named blocking double-ended queue of the Redisson face: Redisson's {@code org.redisson.api.RBlockingDeque} names
 * and semantics. Thread-safe.
 *
 * <p>As the destination of an {@link RDelayedQueue} it behaves as an {@link RBlockingQueue} (elements join the tail
 * when due, without a transfer task) with both ends open: {@link #takeFirst()} and {@link #takeLast()} block until an
 * element is due, {@link #pollFirst(long, TimeUnit)} and {@link #pollLast(long, TimeUnit)} for at most their timeout,
 * and a blocked taker wakes when an element falls due or is offered at either end. {@code take()} and
 * {@code poll(timeout, unit)} are the head's. Taking removes the element (at most once). The deque is unbounded: the
 * {@code put} and timed {@code offer} methods never wait.
 *
 * <p>Not provided, so that code using them does not compile rather than behave otherwise: Redisson's
 * {@code pollFirstFromAny}, {@code pollLastFromAny}, {@code move(Duration, DequeMoveArgs)} and the
 * {@code subscribeOn...Elements} listeners, as {@link RBlockingQueue} has no {@code pollFromAny} or
 * {@code subscribeOnElements}.
 *
 * @param <V> the element type
 */
public interface RBlockingDeque<V> extends RBlockingQueue<V>, RDeque<V>, BlockingDeque<V> {

    @Override
    default void addFirst(V e) {
        offerFirst(e);
    }

    @Override
    default void addLast(V e) {
        offerLast(e);
    }

    @Override
    default void push(V e) {
        offerFirst(e);
    }

    @Override
    default boolean removeFirstOccurrence(Object o) {
        return remove(o);
    }

    /** Same as {@link #offerFirst(Object)}: the deque is unbounded, so this never waits. */
    @Override
    default void putFirst(V e) {
        offerFirst(e);
    }

    /** Same as {@link #offerLast(Object)}: the deque is unbounded, so this never waits. */
    @Override
    default void putLast(V e) {
        offerLast(e);
    }

    /** Same as {@link #offerFirst(Object)}: the deque is unbounded, so this never waits. */
    @Override
    default boolean offerFirst(V e, long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        return offerFirst(e);
    }

    /** Same as {@link #offerLast(Object)}: the deque is unbounded, so this never waits. */
    @Override
    default boolean offerLast(V e, long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        return offerLast(e);
    }
}

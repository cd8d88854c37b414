package io.clockwork.redisson;

import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * A named double-ended queue of the Redisson face: Redisson's {@code org.redisson.api.RDeque} names and semantics.
 * Thread-safe.
 *
 * <p>As the destination of an {@link RDelayedQueue} its elements are the due ones, head first: an element that falls
 * due joins the tail, {@link #offerFirst} puts one before the head (it is the next element taken) and
 * {@link #offerLast} (or {@code add}, {@code offer}) after the tail, both due at once. Elements are compared by their
 * encoded bytes, as in {@link RQueue}; {@code null} is refused with a {@link NullPointerException}. The deque is
 * unbounded, so an insertion never fails for want of room.
 *
 * <p>Provided: every {@link Deque} method and Redisson's {@link #pollFirst(int)} and {@link #pollLast(int)}. Not
 * provided, so that code using them does not compile rather than behave otherwise: Redisson's varargs
 * {@code addFirst(V...)} and {@code addLast(V...)}, {@code addFirstIfExists}, {@code addLastIfExists} and
 * {@code move}.
 *
 * @param <V> the element type
 */
public interface RDeque<V> extends RQueue<V>, Deque<V> {

    /**
     * Removes and returns up to {@code limit} elements from the head.
     *
     * @param limit how many at most, at least 1
     * @return the elements, head first; empty if there is none
     * @throws IllegalArgumentException if {@code limit} is less than 1
     */
    List<V> pollFirst(int limit);

    /**
     * Removes and returns up to {@code limit} elements from the tail.
     *
     * @param limit how many at most, at least 1
     * @return the elements, tail first; empty if there is none
     * @throws IllegalArgumentException if {@code limit} is less than 1
     */
    List<V> pollLast(int limit);

    /** Inserts {@code e} at the head; the deque is unbounded, so this never fails for want of room. */
    @Override
    default void addFirst(V e) {
        offerFirst(e);
    }

    /** Inserts {@code e} at the tail; the deque is unbounded, so this never fails for want of room. */
    @Override
    default void addLast(V e) {
        offerLast(e);
    }

    @Override
    default V removeFirst() {
        V v = pollFirst();
        if (v == null) {
            throw new NoSuchElementException("deque '" + getName() + "' is empty");
        }
        return v;
    }

    @Override
    default V removeLast() {
        V v = pollLast();
        if (v == null) {
            throw new NoSuchElementException("deque '" + getName() + "' is empty");
        }
        return v;
    }

    @Override
    default V getFirst() {
        V v = peekFirst();
        if (v == null) {
            throw new NoSuchElementException("deque '" + getName() + "' is empty");
        }
        return v;
    }

    @Override
    default V getLast() {
        V v = peekLast();
        if (v == null) {
            throw new NoSuchElementException("deque '" + getName() + "' is empty");
        }
        return v;
    }

    /** Same as {@link #addFirst}. */
    @Override
    default void push(V e) {
        addFirst(e);
    }

    /** Same as {@link #removeFirst()}. */
    @Override
    default V pop() {
        return removeFirst();
    }

    /** Same as {@link #remove(Object)}: removes the copy of {@code o} nearest the head. */
    @Override
    default boolean removeFirstOccurrence(Object o) {
        return remove(o);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The iterator walks a snapshot, tail first, taken when it is created; its {@link Iterator#remove()} removes
     * the copy of the element returned nearest the tail ({@link #removeLastOccurrence}).
     */
    @Override
    default Iterator<V> descendingIterator() {
        List<V> snapshot = readAll();
        return new Iterator<>() {
            private int next = snapshot.size() - 1;
            private V last;

            @Override
            public boolean hasNext() {
                return next >= 0;
            }

            @Override
            public V next() {
                if (next < 0) {
                    throw new NoSuchElementException("no element before the head of deque '" + getName() + "'");
                }
                last = snapshot.get(next--);
                return last;
            }

            @Override
            public void remove() {
                if (last == null) {
                    throw new IllegalStateException("next() has not returned an element since the last remove()");
                }
                removeLastOccurrence(last);
                last = null;
            }
        };
    }
}

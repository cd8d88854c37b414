package io.clockwork.redisson;

import java.util.List;
import java.util.Queue;

/**
 * A named queue of the Redisson face: Redisson's {@code org.redisson.api.RQueue} names and semantics over a
 * Clockwork queue. Thread-safe.
 *
 * <p>Elements are compared by their encoded bytes (as Redisson compares them), so {@code contains} and
 * {@code remove(Object)} find an element equal to the argument under the queue's {@link io.clockwork.queue.Codec}.
 * {@code null} elements are refused with a {@link NullPointerException}, as in Redisson.
 *
 * @param <V> the element type
 */
public interface RQueue<V> extends Queue<V> {

    /** @return the queue's name */
    String getName();

    /** @return every element, in the queue's order (a snapshot; O(n)) */
    List<V> readAll();

    /**
     * Removes and returns up to {@code limit} elements from the head.
     *
     * @param limit how many at most, at least 1
     * @return the elements, head first; empty if there is none
     * @throws IllegalArgumentException if {@code limit} is less than 1
     */
    List<V> poll(int limit);

    /**
     * Removes the tail element and inserts it at the head of the queue named {@code queueName}, in one step.
     *
     * @param queueName the destination queue's name
     * @return the element moved, or {@code null} if this queue was empty
     */
    V pollLastAndOfferFirstTo(String queueName);

    /**
     * Deletes the queue and everything in it.
     *
     * @return whether there was anything to delete
     */
    boolean delete();
}

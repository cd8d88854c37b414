package io.clockwork.queue;

import io.clockwork.engine.EntryList;
import io.clockwork.engine.WheelEntry;

import java.util.Comparator;
import java.util.TreeSet;

/**
 * The in-process queue's ready messages in delivery order: a sorted collection whose common case costs O(1) and no
 * allocation. Not thread-safe: guarded by the queue's lock.
 *
 * <h2>Why</h2>
 * Messages mostly become ready in delivery order already: the due-time wheel hands them over tick by tick, and a
 * tick's messages in the order they were filed, which for messages offered with one delay is offer order. Those
 * are appended to an intrusive list (an {@link EntryList}, through the entries' own links). Only a message that
 * would not sort last (filed into a tick after a later-offered one, nacked back to ready, or falling due again)
 * goes to a sorted set, where it costs O(log n) and a tree node. The earliest message is the smaller of the two
 * heads. A storm of a million messages due in one tick is thus promoted without building a million-node tree.
 *
 * @param <E> the entry type
 */
final class ReadyOrder<E extends WheelEntry> {

    private final Comparator<? super E> order;
    /** Sorted by {@link #order}: a message is appended only if it sorts after the tail. */
    private final EntryList<E> run = new EntryList<>();
    /** The messages that arrived out of order. */
    private final TreeSet<E> rest;

    /**
     * @param order the delivery order; a total order (no two distinct messages equal), fixed while a message is here
     */
    ReadyOrder(Comparator<? super E> order) {
        this.order = order;
        this.rest = new TreeSet<>(order);
    }

    /**
     * Adds a message.
     *
     * @param e a message in no wheel
     */
    void add(E e) {
        E last = run.last();
        if (last == null || order.compare(last, e) < 0) {
            run.append(e);
        } else {
            rest.add(e);
        }
    }

    /** @return the earliest message, taken out; null if there is none */
    E pollFirst() {
        E a = run.first();
        E b = rest.isEmpty() ? null : rest.first();
        if (b == null || (a != null && order.compare(a, b) < 0)) {
            if (a != null) {
                run.remove(a);
            }
            return a;
        }
        return rest.pollFirst();
    }

    /**
     * Takes out a message that is here.
     *
     * @param e the message
     */
    void remove(E e) {
        if (e.isLinked()) {
            run.remove(e);
        } else {
            rest.remove(e);
        }
    }

    /** @return how many messages are here */
    int size() {
        return run.size() + rest.size();
    }

    /** @return true if none is */
    boolean isEmpty() {
        return run.isEmpty() && rest.isEmpty();
    }

    /** @return how many are in the sorted set rather than the list (for tests) */
    int outOfOrder() {
        return rest.size();
    }
}

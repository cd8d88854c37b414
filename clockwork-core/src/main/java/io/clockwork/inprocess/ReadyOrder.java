package io.clockwork.inprocess;

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
 * are appended to an intrusive list (an {@link EntryList}, through the entries' own links). A message that sorts a
 * few places before the list's tail is linked into the list there, found by a walk back of at most {@value #WALK}
 * entries: a message already due when it is filed goes straight to ready, so while a storm's messages still wait in
 * the wheel (each operation promotes a bounded slice) one offered "due now" sorts after them, and every message the
 * wheel promotes after it sorts one place before the tail. Only a message that sorts further back (nacked back to
 * ready, falling due again, or filed behind a longer run of later ones) goes to a sorted set, where it costs
 * O(log n) and a tree node. The earliest message is the smaller of the two heads. A storm of a million messages
 * due in one tick is thus promoted without building a million-node tree, whatever is offered meanwhile.
 *
 * @param <E> the entry type
 */
final class ReadyOrder<E extends WheelEntry> {

    /** The most list entries an out-of-order add looks back over before it goes to the sorted set. */
    static final int WALK = 16;

    private final Comparator<? super E> order;
    /** Sorted by {@link #order}: a message joins it only where it sorts between its neighbours. */
    private final EntryList<E> run = new EntryList<>();
    /** The messages that arrived out of order; null until the first (a queue's groups each have one of these). */
    private TreeSet<E> rest;

    /**
     * @param order the delivery order; a total order (no two distinct messages equal), fixed while a message is here
     */
    ReadyOrder(Comparator<? super E> order) {
        this.order = order;
    }

    /**
     * Adds a message.
     *
     * @param e a message in no wheel
     */
    void add(E e) {
        E after = run.last();
        if (after == null || order.compare(after, e) < 0) {
            run.append(e);
            return;
        }
        // e sorts before `after`; look back for the first entry it sorts after
        for (int step = 0; step < WALK; step++) {
            E before = run.previous(after);
            if (before == null || order.compare(before, e) < 0) {
                run.insertBefore(after, e);
                return;
            }
            after = before;
        }
        if (rest == null) {
            rest = new TreeSet<>(order);
        }
        rest.add(e);
    }

    /** @return the earliest message, taken out; null if there is none */
    E pollFirst() {
        E a = run.first();
        E b = rest == null || rest.isEmpty() ? null : rest.first();
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
        return run.size() + (rest == null ? 0 : rest.size());
    }

    /** @return true if none is */
    boolean isEmpty() {
        return run.isEmpty() && (rest == null || rest.isEmpty());
    }

    /** @return how many are in the sorted set rather than the list (for tests) */
    int outOfOrder() {
        return rest == null ? 0 : rest.size();
    }
}

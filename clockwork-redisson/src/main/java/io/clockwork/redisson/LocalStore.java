package io.clockwork.redisson;

import io.clockwork.time.Ticker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The elements filed under one queue name of an {@link InMemoryRedisson}: the pending elements of the name's delayed
 * queue and the due elements of the queue itself. Thread-safe through its {@link #lock}, which every caller holds
 * around a call of anything but {@link #wake()} and {@link #awaitEnd}.
 *
 * <p>Both parts are a {@link Sequence}: elements by position (offer order for the pending part; arrival order for the
 * due part, whose head may also grow backwards) with an index from encoded value to its positions, so that finding or
 * removing one copy of a value is O(log n). The pending part has a second order, by due time then offer order, whose
 * first entry is the next to fall due.
 *
 * <p>Elements fall due lazily: each access first calls {@link #promote()}, which moves every pending element whose due
 * time the ticker has reached to the tail of the due part, in due order. Elements offered straight to the due part are
 * appended after that promotion, so the due part stays in the order elements became due. No thread moves elements:
 * a consumer blocked in {@link #awaitEnd} sleeps on {@link #changed} until the next due time, a signal (an offer, a
 * promotion, a jump of the ticker through {@link Ticker#watch}, a shutdown) or its own deadline.
 *
 * <p>Times are nanoseconds since the store's first ticker reading, so they compare as plain {@code long}s; a due time
 * saturates at {@link Long#MAX_VALUE} rather than wrapping.
 */
final class LocalStore {

    /** An encoded element in a {@link Sequence}. */
    interface Keyed {
        ByteKey key();
    }

    /** A pending element: its value, its offer sequence number and its due time. */
    record Pending(ByteKey key, long position, long due) implements Keyed {
    }

    /** A due element. */
    record Due(ByteKey key) implements Keyed {
    }

    /** A position and the element there, for iterators. */
    record Slot(long position, ByteKey key) {
    }

    private static final Comparator<Pending> BY_DUE_THEN_OFFER =
            Comparator.comparingLong(Pending::due).thenComparingLong(Pending::position);

    final String name;
    /** The order in which two stores' locks are taken together (see {@link #lockBoth}). */
    private final long lockOrder;
    final ReentrantLock lock = new ReentrantLock();
    /** Signalled when an element may have become available or the next due time moved, and on shutdown. */
    private final Condition changed = lock.newCondition();
    private final Ticker ticker;
    private final long origin;

    // All below guarded by lock.
    private final TreeSet<Pending> pendingByDue = new TreeSet<>(BY_DUE_THEN_OFFER);
    private final Sequence<Pending> pendingElements = new Sequence<>();
    private final Sequence<Due> dueElements = new Sequence<>();
    private long nextPendingPosition;
    /** The due part's positions: the tail grows up from zero, the head (elements put first) down from -1. */
    private long dueHead;
    private long dueTail;

    /** The delayed queue's view: pending elements in offer order. */
    final View pending = new View(pendingElements) {
        @Override
        void forget(Keyed removed) {
            pendingByDue.remove((Pending) removed);
        }
    };

    /** The queue's own view: due elements in the order they became due. */
    final View due = new View(dueElements) {
        @Override
        void forget(Keyed removed) {
        }
    };

    LocalStore(String name, long lockOrder, Ticker ticker) {
        this.name = name;
        this.lockOrder = lockOrder;
        this.ticker = ticker;
        this.origin = ticker.read();
    }

    /** Takes both stores' locks in a fixed order, so that two moves between the same stores cannot deadlock. */
    static void lockBoth(LocalStore a, LocalStore b) {
        LocalStore first = a.lockOrder <= b.lockOrder ? a : b;
        first.lock.lock();
        (first == a ? b : a).lock.lock();
    }

    /** Releases what {@link #lockBoth} took. */
    static void unlockBoth(LocalStore a, LocalStore b) {
        b.lock.unlock();
        a.lock.unlock();
    }

    private long now() {
        return ticker.read() - origin;
    }

    /** Moves every pending element that is due to the tail of the due part, in due order. */
    void promote() {
        if (pendingByDue.isEmpty()) {
            return;
        }
        long now = now();
        boolean moved = false;
        while (!pendingByDue.isEmpty() && pendingByDue.first().due() <= now) {
            Pending p = pendingByDue.pollFirst();
            pendingElements.remove(p.position());
            dueElements.put(dueTail++, new Due(p.key()));
            moved = true;
        }
        if (moved) {
            changed.signalAll();
        }
    }

    /** Files a pending element due {@code delayNanos} (not negative) from now. */
    void offerPending(ByteKey key, long delayNanos) {
        long now = now();
        long due = now + delayNanos;
        if (due < now) {
            due = Long.MAX_VALUE;
        }
        Pending p = new Pending(key, nextPendingPosition++, due);
        pendingElements.put(p.position(), p);
        pendingByDue.add(p);
        promote();
        changed.signalAll(); // a consumer sleeping until a later due time recomputes its wait
    }

    /** Appends an element that is due at once. */
    void offerDue(ByteKey key) {
        dueElements.put(dueTail++, new Due(key));
        changed.signalAll();
    }

    /** Puts an element that is due at once at the head of the due part. */
    void offerDueFirst(ByteKey key) {
        dueElements.put(--dueHead, new Due(key));
        changed.signalAll();
    }

    /** Wakes every consumer blocked on this store, so it looks again (time jumped, or the client shut down). */
    void wake() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes and returns the head (or tail) of the due part, waiting for one to fall due or arrive; called without
     * the lock.
     *
     * @param last        whether to take the tail instead of the head
     * @param timed       whether {@code nanos} bounds the wait
     * @param nanos       the longest wait on the ticker's timeline, if timed
     * @param checkUsable throws if the handle or client can no longer be used; run before every look
     * @return the element taken, or null if the timed wait ended first
     */
    ByteKey awaitEnd(boolean last, boolean timed, long nanos, Runnable checkUsable) throws InterruptedException {
        Ticker.Watch watch = null;
        lock.lockInterruptibly();
        try {
            long start = now();
            long deadline = start + Math.max(0, nanos);
            if (deadline < start) {
                deadline = Long.MAX_VALUE;
            }
            while (true) {
                checkUsable.run();
                promote();
                ByteKey taken = last ? due.pollLast() : due.pollFirst();
                if (taken != null) {
                    return taken;
                }
                if (watch == null) {
                    // Registered before the time is read for the wait: a jump after this point takes the lock to
                    // signal, so it lands while this thread waits, never before.
                    watch = ticker.watch(this::wake);
                    continue;
                }
                long now = now();
                long wait = pendingByDue.isEmpty() ? Long.MAX_VALUE : pendingByDue.first().due() - now;
                if (timed) {
                    long left = deadline - now;
                    if (left <= 0) {
                        return null;
                    }
                    wait = Math.min(wait, left);
                }
                if (wait == Long.MAX_VALUE) {
                    changed.await();
                } else {
                    changed.awaitNanos(wait);
                }
            }
        } finally {
            lock.unlock();
            if (watch != null) {
                watch.close();
            }
        }
    }

    /** The queue operations on one part; callers hold the lock and have called {@link #promote()}. */
    abstract static class View {

        private final Sequence<? extends Keyed> elements;

        View(Sequence<? extends Keyed> elements) {
            this.elements = elements;
        }

        /** Drops a removed element from the part's other structures. */
        abstract void forget(Keyed removed);

        private ByteKey removeAt(long position) {
            Keyed removed = elements.remove(position);
            if (removed == null) {
                return null;
            }
            forget(removed);
            return removed.key();
        }

        int size() {
            return elements.size();
        }

        boolean contains(ByteKey key) {
            return elements.contains(key);
        }

        List<ByteKey> keys() {
            List<ByteKey> keys = new ArrayList<>(elements.size());
            for (Keyed k : elements.byPosition.values()) {
                keys.add(k.key());
            }
            return keys;
        }

        List<Slot> slots() {
            List<Slot> slots = new ArrayList<>(elements.size());
            for (Map.Entry<Long, ? extends Keyed> e : elements.byPosition.entrySet()) {
                slots.add(new Slot(e.getKey(), e.getValue().key()));
            }
            return slots;
        }

        ByteKey peekFirst() {
            Map.Entry<Long, ? extends Keyed> first = elements.byPosition.firstEntry();
            return first == null ? null : first.getValue().key();
        }

        ByteKey peekLast() {
            Map.Entry<Long, ? extends Keyed> last = elements.byPosition.lastEntry();
            return last == null ? null : last.getValue().key();
        }

        ByteKey pollFirst() {
            Map.Entry<Long, ? extends Keyed> first = elements.byPosition.firstEntry();
            return first == null ? null : removeAt(first.getKey());
        }

        ByteKey pollLast() {
            Map.Entry<Long, ? extends Keyed> last = elements.byPosition.lastEntry();
            return last == null ? null : removeAt(last.getKey());
        }

        /** Removes the element at {@code position} if it is still there and holds {@code key}. */
        boolean removeSlot(long position, ByteKey key) {
            Keyed at = elements.byPosition.get(position);
            return at != null && at.key().equals(key) && removeAt(position) != null;
        }

        /** Removes the first copy of {@code key}. O(log n). */
        boolean removeFirst(ByteKey key) {
            Long position = elements.firstPositionOf(key);
            return position != null && removeAt(position) != null;
        }

        /** Removes the last copy of {@code key}. O(log n). */
        boolean removeLast(ByteKey key) {
            Long position = elements.lastPositionOf(key);
            return position != null && removeAt(position) != null;
        }

        /** Removes every copy of every key. O(log n) per copy. */
        boolean removeAll(Set<ByteKey> keys) {
            boolean changed = false;
            for (ByteKey key : keys) {
                for (Long position = elements.firstPositionOf(key); position != null;
                        position = elements.firstPositionOf(key)) {
                    removeAt(position);
                    changed = true;
                }
            }
            return changed;
        }

        /** Removes every element whose key is not in {@code keys}. O(n log n). */
        boolean retainAll(Set<ByteKey> keys) {
            List<ByteKey> others = new ArrayList<>();
            for (ByteKey present : elements.positions.keySet()) {
                if (!keys.contains(present)) {
                    others.add(present);
                }
            }
            return removeAll(Set.copyOf(others));
        }

        /** Removes everything; returns whether there was anything. */
        boolean clear() {
            if (elements.size() == 0) {
                return false;
            }
            for (Iterator<? extends Keyed> it = elements.byPosition.values().iterator(); it.hasNext(); ) {
                forget(it.next());
            }
            elements.clear();
            return true;
        }
    }

    /** Elements by position, with an index from value to positions. Not thread-safe: guarded by the store's lock. */
    static final class Sequence<E extends Keyed> {

        final TreeMap<Long, E> byPosition = new TreeMap<>();
        final HashMap<ByteKey, TreeSet<Long>> positions = new HashMap<>();

        void put(long position, E element) {
            byPosition.put(position, element);
            positions.computeIfAbsent(element.key(), k -> new TreeSet<>()).add(position);
        }

        E remove(long position) {
            E removed = byPosition.remove(position);
            if (removed != null) {
                TreeSet<Long> of = positions.get(removed.key());
                of.remove(position);
                if (of.isEmpty()) {
                    positions.remove(removed.key());
                }
            }
            return removed;
        }

        Long firstPositionOf(ByteKey key) {
            TreeSet<Long> of = positions.get(key);
            return of == null ? null : of.first();
        }

        Long lastPositionOf(ByteKey key) {
            TreeSet<Long> of = positions.get(key);
            return of == null ? null : of.last();
        }

        boolean contains(ByteKey key) {
            return positions.containsKey(key);
        }

        int size() {
            return byPosition.size();
        }

        void clear() {
            byPosition.clear();
            positions.clear();
        }
    }
}

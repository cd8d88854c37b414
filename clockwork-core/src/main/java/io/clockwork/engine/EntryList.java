package io.clockwork.engine;

/**
 * A list of entries that are in no wheel, linked through the entries' own wheel links, so adding an entry
 * allocates nothing and every operation is O(1): first in, first out by {@link #append}, and in any place by
 * {@link #insertBefore}. A face uses it for entries between two wheels (the
 * in-process queue's ready messages): an entry in the list counts as {@link WheelEntry#isLinked() linked}, so it
 * must be taken out before it is scheduled again. Not thread-safe: owned by the thread (or lock) that owns the
 * entries' wheels.
 *
 * <p>The list is a {@code Bucket}: no sentinel, so the links it writes into its entries point only at entries or
 * at themselves (why that matters to G1: {@code Bucket}).
 *
 * @param <E> the entry type
 */
public final class EntryList<E extends WheelEntry> {

    private final Bucket list = new Bucket();
    private int size;

    /** Creates an empty list. */
    public EntryList() {
    }

    /**
     * Appends an entry at the tail.
     *
     * @param e an entry in no wheel and no list
     * @throws IllegalStateException if the entry is linked
     */
    public void append(E e) {
        requireUnlinked(e);
        list.append(e);
        size++;
    }

    /**
     * Links an entry just before one this list holds.
     *
     * @param at an entry that this list holds (not checked, as for {@link #remove})
     * @param e  an entry in no wheel and no list
     * @throws IllegalStateException if {@code e} is linked
     */
    public void insertBefore(E at, E e) {
        requireUnlinked(e);
        list.insertBefore(at, e);
        size++;
    }

    /**
     * Returns the entry before one this list holds.
     *
     * @param e an entry that this list holds (not checked, as for {@link #remove})
     * @return the entry nearer the head by one, or null if {@code e} is the first
     */
    @SuppressWarnings("unchecked")
    public E previous(E e) {
        WheelEntry p = e.prev;
        return p == e ? null : (E) p;
    }

    /** @return the entry at the head, or null if the list is empty */
    @SuppressWarnings("unchecked")
    public E first() {
        return (E) list.head;
    }

    /** @return the entry at the tail, or null if the list is empty */
    @SuppressWarnings("unchecked")
    public E last() {
        return (E) list.tail;
    }

    /**
     * Unlinks an entry of this list.
     *
     * @param e an entry that this list holds (the caller's bookkeeping says so; this is not checked)
     */
    public void remove(E e) {
        list.remove(e);
        size--;
    }

    /** @return the entry taken from the head, or null if the list is empty */
    public E pollFirst() {
        E e = first();
        if (e != null) {
            remove(e);
        }
        return e;
    }

    /** @return the number of entries */
    public int size() {
        return size;
    }

    /** @return true if the list holds no entry */
    public boolean isEmpty() {
        return size == 0;
    }

    private static void requireUnlinked(WheelEntry e) {
        if (e.isLinked()) {
            throw new IllegalStateException("entry is already linked into a wheel or a list");
        }
    }
}

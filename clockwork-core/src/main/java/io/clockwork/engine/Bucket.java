package io.clockwork.engine;

/**
 * One list of entries, linked through the entries' own links: a bucket of a {@link TimingWheel}, its due list, or
 * an {@link EntryList}. Adding, cutting and removing are O(1) and allocate nothing. Not thread-safe: owned by the
 * wheel's (or list's) thread.
 *
 * <p>The list has no sentinel entry. Its ends are held here; the first entry's {@code prev} is the entry itself and
 * the last one's {@code next} is null, so the links written into entries point only at other entries (usually
 * allocated near them) or at themselves. A sentinel would be an object of its own, in another heap region than
 * long-lived entries, and G1 queues the card of every tenured entry that a reference to it is stored into for its
 * concurrent refinement threads: a million tenured entries falling due together would mark hundreds of thousands of
 * cards on their way from bucket to bucket, and the refinement threads would take a core from the application while
 * they are delivered.
 */
final class Bucket {

    /** The first entry, or null if empty. */
    WheelEntry head;
    /** The last entry, or null if empty. */
    WheelEntry tail;

    boolean isEmpty() {
        return head == null;
    }

    /**
     * Tells whether an end of this list is the entry.
     *
     * @param e an entry that is the first or the last of some list
     * @return true if it is this list's
     */
    boolean holdsEnd(WheelEntry e) {
        return head == e || tail == e;
    }

    /** Appends at the tail, so entries of one bucket keep their scheduling order. */
    void append(WheelEntry e) {
        appendRun(e, e); // also clears e's next, which an entry that travelled through an inbox may still hold
    }

    /** Links {@code e} just before {@code at}, an entry of this list. */
    void insertBefore(WheelEntry at, WheelEntry e) {
        WheelEntry before = at.prev;
        linkAfter(before == at ? null : before, e);
        e.next = at;
        at.prev = e;
    }

    /** Appends a run cut out of another list: {@code first} to {@code last}, linked to each other already. */
    void appendRun(WheelEntry first, WheelEntry last) {
        linkAfter(tail, first);
        last.next = null;
        tail = last;
    }

    /** Links {@code first} after {@code before}, or as the head if that is null; what follows it is the caller's. */
    private void linkAfter(WheelEntry before, WheelEntry first) {
        if (before == null) {
            first.prev = first;
            head = first;
        } else {
            first.prev = before;
            before.next = first;
        }
    }

    /**
     * Cuts the run from {@code first} to {@code last} out of this list, leaving the run's inner links (and the
     * outer links of its ends) as they are.
     */
    void cut(WheelEntry first, WheelEntry last) {
        WheelEntry before = first.prev;
        WheelEntry after = last.next;
        boolean atHead = before == first;
        if (atHead) {
            head = after;
        } else {
            before.next = after;
        }
        if (after == null) {
            tail = atHead ? null : before;
        } else {
            after.prev = atHead ? after : before;
        }
    }

    /** Unlinks an entry of this list. */
    void remove(WheelEntry e) {
        cut(e, e);
        e.prev = null;
        e.next = null;
    }

    /** Moves every entry, in order, to the tail of {@code target}, in O(1). */
    void moveAllTo(Bucket target) {
        if (head == null) {
            return;
        }
        target.appendRun(head, tail);
        head = null;
        tail = null;
    }

    /**
     * Tells whether an entry of some list is at neither end, so that unlinking it writes only its neighbours.
     *
     * @param e a linked entry
     * @return true if it is neither the first nor the last of its list
     */
    static boolean isInner(WheelEntry e) {
        return e.prev != e && e.next != null;
    }

    /** Unlinks an entry at neither end of its list (see {@link #isInner}): only its neighbours are written. */
    static void unlinkInner(WheelEntry e) {
        WheelEntry before = e.prev;
        WheelEntry after = e.next;
        before.next = after;
        after.prev = before;
        e.prev = null;
        e.next = null;
    }
}

package io.clockwork.engine;

/** The sentinel of one circular bucket list. Not thread-safe: owned by the wheel's thread. */
final class Bucket extends WheelEntry {

    Bucket() {
        prev = this;
        next = this;
    }

    boolean isEmpty() {
        return next == this;
    }

    /** Appends at the tail, so entries of one bucket keep their scheduling order. */
    void append(WheelEntry e) {
        WheelEntry tail = prev;
        e.prev = tail;
        e.next = this;
        tail.next = e;
        prev = e;
    }

    /** Detaches the whole chain and returns its first node (null if empty); the chain ends with {@code null}. */
    WheelEntry detachAll() {
        if (isEmpty()) {
            return null;
        }
        WheelEntry first = next;
        prev.next = null;
        prev = this;
        next = this;
        return first;
    }

    /** Moves every entry, in order, to the tail of {@code target}, in O(1). */
    void moveAllTo(Bucket target) {
        if (isEmpty()) {
            return;
        }
        WheelEntry first = next;
        WheelEntry last = prev;
        WheelEntry tail = target.prev;
        tail.next = first;
        first.prev = tail;
        last.next = target;
        target.prev = last;
        next = this;
        prev = this;
    }

    /** Links {@code e} just before {@code at}, an entry of some bucket list. */
    static void linkBefore(WheelEntry at, WheelEntry e) {
        WheelEntry before = at.prev;
        e.prev = before;
        e.next = at;
        before.next = e;
        at.prev = e;
    }

    static void unlink(WheelEntry e) {
        e.prev.next = e.next;
        e.next.prev = e.prev;
        e.prev = null;
        e.next = null;
    }
}

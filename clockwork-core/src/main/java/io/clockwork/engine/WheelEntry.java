package io.clockwork.engine;

/**
 * A node of a {@link TimingWheel}: the handle a face gives its user is this node, so scheduling a timer costs one
 * allocation and no boxing. Not thread-safe: its links belong to the thread that owns the wheel (or, before the
 * owner takes it, to the {@link MpscInbox} it travels through).
 *
 * <p>Faces subclass it and add their own state (a task, a cancellation flag). The deadline is on the wheel's own
 * timeline: non-negative nanoseconds since the wheel's origin, computed by {@link TimingWheel#deadlineAfter}.
 */
public abstract class WheelEntry {

    /** Deadline in wheel time (nanoseconds since the wheel's origin, never negative). */
    long deadline;
    /**
     * The previous entry of its bucket list, the entry itself if it is the first, or {@code null}: "not in a wheel"
     * (nor in an {@link EntryList}).
     */
    WheelEntry prev;
    /** Next entry in the bucket list (null for the last), or in the inbox while the entry travels to the owner. */
    WheelEntry next;

    /** Creates an unlinked entry. */
    protected WheelEntry() {
    }

    /**
     * Returns the deadline in wheel time.
     *
     * @return nanoseconds since the wheel's origin
     */
    public final long deadline() {
        return deadline;
    }

    /**
     * Sets the deadline, in wheel time; only while the entry is in no wheel.
     *
     * @param wheelTimeNanos nanoseconds since the wheel's origin, from {@link TimingWheel#deadlineAfter}
     */
    public final void deadline(long wheelTimeNanos) {
        if (prev != null) {
            throw new IllegalStateException("entry is in a wheel; remove it before changing its deadline");
        }
        this.deadline = wheelTimeNanos;
    }

    /**
     * Tells whether the entry is linked into a wheel.
     *
     * @return true while scheduled in a wheel (owner thread only)
     */
    public final boolean isLinked() {
        return prev != null;
    }
}

package io.clockwork.expiry;

import io.clockwork.wheel.WheelEntry;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An element tracked by an {@link ExpiryWheel}: the wheel node itself, plus one state word that touches and the
 * expiry pass race on with compare-and-set. Thread-safe for the state word; the inherited links belong to the
 * wheel's poller.
 *
 * <p>State encoding, chosen so that every transition is one CAS on one {@code long}:
 * <ul>
 *   <li>{@code > 0}: live; the low bits are the expiry time in milliseconds since the wheel's origin (always a
 *       positive multiple of the interval), bit {@link #CLOSING} marks a session being closed;</li>
 *   <li>{@code < 0} and not {@link #REMOVED}: expired by a poll at time {@code -state};</li>
 *   <li>{@link #REMOVED}: removed by the user; terminal.</li>
 * </ul>
 */
abstract class ExpiryNode extends WheelEntry {

    static final long REMOVED = Long.MIN_VALUE;
    static final long CLOSING = 1L << 62;
    static final long EXPIRY_MASK = CLOSING - 1;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ExpiryNode.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile long state;

    ExpiryNode(long expiryMillis) {
        this.state = expiryMillis;
    }

    final long state() {
        return state;
    }

    final boolean casState(long expected, long update) {
        return STATE.compareAndSet(this, expected, update);
    }

    /** Marks the node removed and returns the state it had. */
    final long markRemoved() {
        return (long) STATE.getAndSet(this, REMOVED);
    }

    /** Sets the closing bit of a live node; a node that is expired or removed is closing already. */
    final void markClosing() {
        long s;
        do {
            s = state;
        } while (s > 0 && (s & CLOSING) == 0 && !casState(s, s | CLOSING));
    }

    final boolean isClosingState() {
        long s = state;
        return s <= 0 || (s & CLOSING) != 0;
    }

    static boolean isLive(long state) {
        return state > 0;
    }

    /** The expiry time held by a state, or -1 for {@link #REMOVED}. */
    static long expiryOf(long state) {
        if (state > 0) {
            return state & EXPIRY_MASK;
        }
        return state == REMOVED ? -1L : -state;
    }
}

package io.clockwork.zookeeper;

import io.clockwork.engine.WheelEntry;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An element tracked by an {@link ExpiryWheel}: the wheel node itself, the entry of its face's {@link NodeTable},
 * plus one state word that touches and the expiry pass race on with compare-and-set. Thread-safe for the state word
 * and the table link; the inherited links belong to the wheel's poller.
 *
 * <p>State encoding, chosen so that every transition is one CAS on one {@code long}:
 * <ul>
 *   <li>{@code > 0}: live; the low bits are the expiry time in milliseconds elapsed since the wheel's origin
 *       (always a positive multiple of the interval), bit {@link #CLOSING} marks a session being closed;</li>
 *   <li>{@code < 0} and not {@link #REMOVED}: expired by a poll at time {@code -state};</li>
 *   <li>{@link #REMOVED}: removed by the user; terminal.</li>
 * </ul>
 */
abstract class ExpiryNode extends WheelEntry {

    static final long REMOVED = Long.MIN_VALUE;
    static final long CLOSING = 1L << 62;
    static final long EXPIRY_MASK = CLOSING - 1;

    private static final VarHandle STATE;
    private static final VarHandle CHAIN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(ExpiryNode.class, "state", long.class);
            CHAIN = lookup.findVarHandle(ExpiryNode.class, "chain", ExpiryNode.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile long state;
    /** The key's spread hash, for the {@link NodeTable} this node is an entry of. */
    final int hash;
    /** The next node of the same {@link NodeTable} bucket; written under the bucket's lock, read lock-free. */
    @SuppressWarnings("unused") // through CHAIN
    private ExpiryNode chain;

    ExpiryNode(long expiryMillis, int hash) {
        this.state = expiryMillis;
        this.hash = hash;
    }

    /** Whether this node is the entry of the given key; nodes keyed by objects override it. */
    boolean hasKey(Object key) {
        return false;
    }

    /** Whether this node is the entry of the given {@code long} key; nodes keyed by longs override it. */
    boolean hasKey(long key) {
        return false;
    }

    /** Whether this node has the same key as another node of its table. */
    abstract boolean sameKey(ExpiryNode other);

    final ExpiryNode chain() {
        return (ExpiryNode) CHAIN.getAcquire(this);
    }

    final void chain(ExpiryNode next) {
        CHAIN.setRelease(this, next);
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

    final boolean isRemovedState() {
        return state == REMOVED;
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

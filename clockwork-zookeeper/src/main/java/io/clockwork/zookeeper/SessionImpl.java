package io.clockwork.zookeeper;

import io.clockwork.engine.NodeTable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A session of {@link SessionTrackerImpl}: its own wheel node and table entry, with its owner. Its id and timeout
 * are final; the owner is a volatile field claimed by compare-and-set, so any thread may read and claim it.
 */
final class SessionImpl extends ExpiryNode implements SessionTracker.Session {
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(SessionImpl.class, "owner", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long id;
    final int timeout;
    private volatile Object owner;

    SessionImpl(long id, int timeout, long expiry) {
        super(expiry, NodeTable.hash(id));
        this.id = id;
        this.timeout = timeout;
    }

    /** Makes {@code candidate} the owner if there is none; true if it is the owner then. */
    boolean claimOwner(Object candidate) {
        Object current = owner;
        if (current == null) {
            if (OWNER.compareAndSet(this, null, candidate)) {
                return true;
            }
            current = owner;
        }
        return current == candidate;
    }

    void owner(Object newOwner) {
        owner = newOwner;
    }

    @Override
    boolean hasKey(long key) {
        return key == id;
    }

    @Override
    boolean sameKey(ExpiryNode other) {
        return other.hasKey(id);
    }

    @Override
    public long getSessionId() {
        return id;
    }

    @Override
    public int getTimeout() {
        return timeout;
    }

    @Override
    public boolean isClosing() {
        return isClosingState();
    }

    @Override
    public String toString() {
        return "0x" + Long.toHexString(id);
    }
}

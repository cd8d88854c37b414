package io.clockwork.zookeeper;

/**
 * Thrown by {@link SessionTracker#checkSession(long)} for a session the tracker does not know (never tracked, or
 * removed), as ZooKeeper's {@code KeeperException.UnknownSessionException}. Immutable, so thread-safe.
 */
public class UnknownSessionException extends Exception {

    private final long sessionId;

    /**
     * Creates the exception.
     *
     * @param sessionId the session's id
     */
    public UnknownSessionException(long sessionId) {
        super("session 0x" + Long.toHexString(sessionId) + " is unknown to this tracker");
        this.sessionId = sessionId;
    }

    /** @return the id of the unknown session */
    public long getSessionId() {
        return sessionId;
    }
}

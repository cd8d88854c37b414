package io.clockwork.zookeeper;

/**
 * Thrown by {@link SessionTracker#checkSession(long)} for a session that has expired or is closing, as ZooKeeper's
 * {@code KeeperException.SessionExpiredException}. Immutable, so thread-safe.
 */
public class SessionExpiredException extends Exception {

    private final long sessionId;

    /**
     * Creates the exception.
     *
     * @param sessionId the session's id
     */
    public SessionExpiredException(long sessionId) {
        super("session 0x" + Long.toHexString(sessionId) + " has expired or is closing");
        this.sessionId = sessionId;
    }

    /** @return the id of the expired session */
    public long getSessionId() {
        return sessionId;
    }
}

package io.clockwork.zookeeper;

import java.io.PrintWriter;
import java.util.Map;
import java.util.Set;

/**
 * Tracks client sessions and expires those not touched within their timeout, with the names and signatures of
 * ZooKeeper's {@code org.apache.zookeeper.server.SessionTracker}. Implementations are thread-safe;
 * {@link SessionTrackerImpl} is the one Clockwork provides, and its Javadoc states the time semantics.
 */
public interface SessionTracker {

    /**
     * Creates a session with a new id and starts tracking it.
     *
     * @param sessionTimeout the session timeout in milliseconds
     * @return the session id
     */
    long createSession(int sessionTimeout);

    /**
     * Tracks a session with a given id: adds it if unknown, else touches it. Does not commit it.
     *
     * @param id             the session id
     * @param sessionTimeout the session timeout in milliseconds
     * @return true if the session was newly tracked, false if it was tracked already
     */
    boolean trackSession(long id, int sessionTimeout);

    /**
     * Records a session's timeout in the map of committed sessions (ZooKeeper's database copy).
     *
     * @param id             the session id
     * @param sessionTimeout the session timeout in milliseconds
     * @return true if the session was newly committed, false if it was committed already
     */
    boolean commitSession(long id, int sessionTimeout);

    /**
     * Moves a session's expiry to {@code sessionTimeout} from now.
     *
     * @param sessionId      the session id
     * @param sessionTimeout the timeout in milliseconds
     * @return false if the session is unknown, closing or expired
     */
    boolean touchSession(long sessionId, int sessionTimeout);

    /**
     * Marks a session closing: later touches fail and checks throw {@link KeeperException.SessionExpiredException}.
     *
     * @param sessionId the session id
     */
    void setSessionClosing(long sessionId);

    /** Stops expiring sessions. */
    void shutdown();

    /**
     * Stops tracking a session and forgets its committed timeout.
     *
     * @param sessionId the session id
     */
    void removeSession(long sessionId);

    /**
     * Tells whether the tracker knows a session (it may be closing).
     *
     * @param sessionId the session id
     * @return true if tracked
     */
    boolean isTrackingSession(long sessionId);

    /**
     * Checks that a session is known, open and owned by {@code owner}; the first owner to check a session without
     * one becomes its owner. Owners are compared by identity.
     *
     * @param sessionId the session id
     * @param owner     the caller's owner object (a connection or a server), may be null
     * @throws KeeperException.UnknownSessionException if the session is not tracked
     * @throws KeeperException.SessionExpiredException if it is closing or expired
     * @throws KeeperException.SessionMovedException   if another owner holds it
     */
    void checkSession(long sessionId, Object owner) throws KeeperException.SessionExpiredException,
            KeeperException.SessionMovedException, KeeperException.UnknownSessionException;

    /**
     * Like {@link #checkSession} for a session that must be global: an unknown session is an expired one.
     *
     * @param sessionId the session id
     * @param owner     the caller's owner object, may be null
     * @throws KeeperException.SessionExpiredException if the session is unknown, closing or expired
     * @throws KeeperException.SessionMovedException   if another owner holds it
     */
    void checkGlobalSession(long sessionId, Object owner) throws KeeperException.SessionExpiredException,
            KeeperException.SessionMovedException;

    /**
     * Sets a session's owner, replacing any other.
     *
     * @param id    the session id
     * @param owner the new owner, may be null
     * @throws KeeperException.SessionExpiredException if the session is unknown, closing or expired
     */
    void setOwner(long id, Object owner) throws KeeperException.SessionExpiredException;

    /**
     * Prints the sessions by expiry time, for diagnostics.
     *
     * @param pwriter where to print
     */
    void dumpSessions(PrintWriter pwriter);

    /**
     * Returns expiry time to the ids of the sessions that expire then.
     *
     * @return the map, sorted by time
     */
    Map<Long, Set<Long>> getSessionExpiryMap();

    /**
     * Returns how many local sessions the tracker holds; 0 if it has none.
     *
     * @return the number of local sessions
     */
    long getLocalSessionCount();

    /**
     * Tells whether the tracker supports local sessions.
     *
     * @return true if it does
     */
    boolean isLocalSessionsEnabled();

    /**
     * Returns the ids of the global sessions.
     *
     * @return the ids
     */
    Set<Long> globalSessions();

    /**
     * Returns the ids of the local sessions.
     *
     * @return the ids
     */
    Set<Long> localSessions();

    /** A tracked session, as ZooKeeper's {@code SessionTracker.Session}. Implementations are thread-safe. */
    interface Session {
        /** @return the session id */
        long getSessionId();

        /** @return the timeout the session was created with, in milliseconds */
        int getTimeout();

        /** @return true once the session is closing or has expired */
        boolean isClosing();
    }

    /**
     * Receives expired sessions, as ZooKeeper's {@code SessionTracker.SessionExpirer}. Need not be thread-safe for
     * {@link SessionTrackerImpl}: only one expiry step at a time calls it, on the engine's driver thread.
     */
    @FunctionalInterface
    interface SessionExpirer {
        /**
         * Called once for each expired session; a throw is logged and does not stop the tracker.
         *
         * @param session the session, already closing
         */
        void expire(Session session);

        /**
         * Returns the id of the server this expirer belongs to. ZooKeeper declares it abstract; here it defaults to
         * 0 so that a lambda can be an expirer. The tracker never calls it.
         *
         * @return the server id
         */
        default long getServerId() {
            return 0L;
        }
    }
}

package io.clockwork.zookeeper;

import io.clockwork.engine.NodeTable;
import io.clockwork.engine.Scheduler;
import io.clockwork.time.Ticker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.System.Logger.Level;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tracks client sessions and expires those not touched within their timeout, after ZooKeeper's
 * {@code SessionTrackerImpl}. Thread-safe.
 *
 * <p>Sessions expire in batches at tick boundaries: a session touched at {@code t} with timeout {@code timeout}
 * expires at {@code ((t + timeout) / tickTime + 1) * tickTime} milliseconds on the tracker's timeline. When it does,
 * the tracker marks it closing and calls {@link SessionExpirer#expire} once, on the engine's driver thread; the
 * session stays tracked (and {@link #checkSession} throws {@link SessionExpiredException}) until
 * {@link #removeSession} is called, usually by the expirer once the session is closed.
 *
 * <h2>Design</h2>
 * Each session is itself the node of an {@code ExpiryWheel} and the entry of a {@code long}-keyed, lock-free-read
 * hash table ({@code NodeTable}): no separate queue entry, map node or boxed id (ZooKeeper keeps a session in two
 * maps and a set, with boxed keys). One state word holds its expiry time and closing flag. A touch is a table
 * lookup (allocating nothing) and a CAS on that word, so touches from many threads never share a lock (ZooKeeper's
 * are {@code synchronized} on the tracker). Expiry is a CAS on the same word: a touch that races it either lands
 * first, and the session lives on, or fails, and returns {@code false}. Once {@code expire} is called for a session,
 * no touch succeeds for it. The tracker has no thread: each expiry step is a task on the engine's shared driver
 * ({@code Scheduler}) at the next tick boundary. Unlike ZooKeeper, {@link #trackSession} does not re-arm a closing
 * session (which in ZooKeeper could be expired twice), session ids start at 1 instead of at a value derived from a
 * server id and the clock, and use after {@link #shutdown()} fails.
 */
public final class SessionTracker {

    private static final System.Logger LOG = System.getLogger(SessionTracker.class.getName());

    private final NodeTable<SessionImpl> sessionsById = new ExpiryNodeTable<>();
    private final ExpiryWheel<SessionImpl> wheel;
    private final SessionExpirer expirer;
    private final Ticker ticker;
    private final AtomicLong nextSessionId = new AtomicLong(1);
    private final Object lifecycle = new Object();
    /** Held by an expiry step while it runs, so that {@link #shutdown()} can wait for it. */
    private final Object expiring = new Object();
    private volatile boolean shutdown;
    private Scheduler scheduler;  // guarded by lifecycle; set by start()
    private Scheduler.Task next;  // guarded by lifecycle

    /**
     * Creates a tracker on the system ticker; call {@link #start()} to begin expiring sessions.
     *
     * @param tickTimeMs the bucket width in milliseconds, at least 1
     * @param expirer    called once for each expired session
     */
    public SessionTracker(int tickTimeMs, SessionExpirer expirer) {
        this(tickTimeMs, expirer, Ticker.system());
    }

    /**
     * Creates a tracker that reads time from the given ticker; call {@link #start()} to begin expiring sessions.
     *
     * @param tickTimeMs the bucket width in milliseconds, at least 1
     * @param expirer    called once for each expired session
     * @param ticker     the time source
     * @throws IllegalArgumentException if {@code tickTimeMs} is less than 1
     */
    public SessionTracker(int tickTimeMs, SessionExpirer expirer, Ticker ticker) {
        if (tickTimeMs < 1) {
            throw new IllegalArgumentException("tickTimeMs must be at least 1, was " + tickTimeMs);
        }
        this.expirer = Objects.requireNonNull(expirer, "expirer");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.wheel = new ExpiryWheel<>(tickTimeMs, ticker);
    }

    /**
     * Starts expiring sessions, on the engine's shared driver thread for this tracker's ticker.
     *
     * @throws IllegalStateException if already started or shut down
     */
    public void start() {
        synchronized (lifecycle) {
            checkOpen();
            if (scheduler != null) {
                throw new IllegalStateException("SessionTracker is already started");
            }
            scheduler = Scheduler.acquire(ticker);
            armExpiry();
        }
    }

    /**
     * Stops expiring sessions and waits for an {@code expire} call in progress to return (unless called from it).
     * Afterwards no session expires, and creating, tracking or touching sessions fails. Idempotent.
     */
    public void shutdown() {
        synchronized (lifecycle) {
            if (shutdown) {
                return;
            }
            shutdown = true;
            if (scheduler == null) {
                return;
            }
            next.cancel();
        }
        synchronized (expiring) {
            // An expiry step in progress has finished (or is this thread's own, re-entering): none starts again.
            scheduler.release();
        }
    }

    /** Schedules the next expiry step at the next interval boundary. Under {@link #lifecycle}. */
    private void armExpiry() {
        next = scheduler.schedule(this::expiryStep, wheel.waitTimeNanos());
    }

    /** The scheduled step: expires what is due, then schedules the next step, unless shut down meanwhile. */
    private void expiryStep() {
        synchronized (expiring) {
            if (shutdown) {
                return;
            }
            expireDue();
            synchronized (lifecycle) {
                if (!shutdown) {
                    armExpiry();
                }
            }
        }
    }

    /** Expires the sessions that are due and calls the expirer for each; one expiry step. */
    int expireDue() {
        List<SessionImpl> expired = wheel.poll();
        for (SessionImpl session : expired) {
            try {
                expirer.expire(session);
            } catch (RuntimeException | Error e) {
                LOG.log(Level.ERROR, "SessionExpirer failed for session " + session + "; tracking goes on", e);
                if (e instanceof VirtualMachineError) {
                    throw e;
                }
            }
        }
        return expired.size();
    }

    /**
     * Creates a session with a new id, unique in this tracker, and starts tracking it.
     *
     * @param timeoutMs the session timeout in milliseconds, at least 1
     * @return the session id
     */
    public long createSession(int timeoutMs) {
        checkOpen();
        ExpiryQueue.checkTimeout(timeoutMs);
        while (true) {
            long id = nextSessionId.getAndIncrement();
            // Skip ids already taken through trackSession, so that created ids stay unique.
            SessionImpl session = new SessionImpl(id, timeoutMs, wheel.expiryAfter(timeoutMs));
            if (sessionsById.putIfAbsent(session) == null) {
                wheel.file(session);
                return id;
            }
        }
    }

    /**
     * Tracks a session with a given id: adds it if unknown, else touches it.
     *
     * @param id        the session id
     * @param timeoutMs the session timeout in milliseconds, at least 1
     * @return true if the session was added, false if it was already tracked
     */
    public boolean trackSession(long id, int timeoutMs) {
        checkOpen();
        ExpiryQueue.checkTimeout(timeoutMs);
        long expiry = wheel.expiryAfter(timeoutMs);
        SessionImpl session = sessionsById.get(id, NodeTable.hash(id));
        if (session == null) {
            SessionImpl created = new SessionImpl(id, timeoutMs, expiry);
            session = sessionsById.putIfAbsent(created);
            if (session == null) {
                wheel.file(created);
                return true;
            }
        }
        wheel.touch(session, expiry);
        return false;
    }

    /**
     * Moves a session's expiry to {@code timeoutMs} from now (rounded up to the next tick boundary).
     *
     * @param id        the session id
     * @param timeoutMs the timeout in milliseconds, at least 1
     * @return true if the session is tracked and was not closing or expired; false otherwise
     */
    public boolean touchSession(long id, int timeoutMs) {
        checkOpen();
        ExpiryQueue.checkTimeout(timeoutMs);
        SessionImpl session = sessionsById.get(id, NodeTable.hash(id));
        return session != null && wheel.touch(session, wheel.expiryAfter(timeoutMs)) != ExpiryWheel.REJECTED;
    }

    /**
     * Marks a session closing: later touches fail and {@link #checkSession} throws, but it stays tracked, and is
     * still expired when its time comes unless removed first. No effect on an unknown session.
     *
     * @param id the session id
     */
    public void setSessionClosing(long id) {
        SessionImpl session = sessionsById.get(id, NodeTable.hash(id));
        if (session != null) {
            session.markClosing();
        }
    }

    /**
     * Stops tracking a session; it will not be expired. No effect on an unknown session.
     *
     * @param id the session id
     */
    public void removeSession(long id) {
        int hash = NodeTable.hash(id);
        for (SessionImpl session; (session = sessionsById.get(id, hash)) != null; ) {
            if (sessionsById.remove(session)) {
                wheel.removed(session);
                return;
            }
        }
    }

    /**
     * Tells whether a session is tracked (it may be closing or expired but not yet removed).
     *
     * @param id the session id
     * @return true if tracked
     */
    public boolean isTrackingSession(long id) {
        return sessionsById.get(id, NodeTable.hash(id)) != null;
    }

    /**
     * Checks that a session is tracked and open.
     *
     * @param id the session id
     * @throws UnknownSessionException if the session is not tracked
     * @throws SessionExpiredException if it has expired or is closing
     */
    public void checkSession(long id) throws SessionExpiredException, UnknownSessionException {
        SessionImpl session = sessionsById.get(id, NodeTable.hash(id));
        if (session == null) {
            throw new UnknownSessionException(id);
        }
        if (session.isClosing()) {
            throw new SessionExpiredException(id);
        }
    }

    /**
     * Returns a snapshot of expiry time to the ids of the sessions due then, sorted by time; expired sessions are
     * not in it. O(n): for diagnostics.
     *
     * @return a new sorted map
     */
    public Map<Long, Set<Long>> getSessionExpiryMap() {
        return ExpiryWheel.snapshot(sessionsById, s -> s.id, HashSet::new);
    }

    /**
     * Prints the sessions by expiry time, in ZooKeeper's format, with times on this tracker's timeline.
     *
     * @param pwriter where to print
     */
    public void dumpSessions(PrintWriter pwriter) {
        Objects.requireNonNull(pwriter, "pwriter");
        pwriter.print("Session ");
        ExpiryQueue.dump(pwriter, ExpiryWheel.snapshot(sessionsById, s -> s, HashSet::new),
                sessionsById.size());
    }

    /**
     * Returns the current time on this tracker's timeline, the one expiry times are expressed in.
     *
     * @return milliseconds since the tracker was created
     */
    public long currentTime() {
        return wheel.nowMillis();
    }

    /** Milliseconds until the next tick boundary is due, 0 if it is; for tests. */
    long waitTimeMillis() {
        return wheel.waitTimeMillis();
    }

    private void checkOpen() {
        if (shutdown) {
            throw new IllegalStateException("SessionTracker is shut down");
        }
    }

    @Override
    public String toString() {
        StringWriter out = new StringWriter();
        try (PrintWriter pwriter = new PrintWriter(out)) {
            dumpSessions(pwriter);
        }
        return out.toString();
    }

    /** A tracked session, as ZooKeeper's {@code SessionTracker.Session}. Implementations are thread-safe. */
    public interface Session {
        /** @return the session id */
        long getSessionId();

        /** @return the timeout the session was created with, in milliseconds */
        int getTimeout();

        /** @return true once the session is closing or has expired */
        boolean isClosing();
    }

    /**
     * Receives expired sessions, as ZooKeeper's {@code SessionTracker.SessionExpirer}. Need not be thread-safe: only
     * one expiry step at a time calls it, on the engine's driver thread (or a caller of the package-private test hook).
     */
    @FunctionalInterface
    public interface SessionExpirer {
        /**
         * Called once for each expired session; a throw is logged and does not stop the tracker.
         *
         * @param s the session, already closing
         */
        void expire(Session s);
    }

    /** A session that is its own wheel node and table entry. */
    private static final class SessionImpl extends ExpiryNode implements Session {
        final long id;
        final int timeout;

        SessionImpl(long id, int timeout, long expiry) {
            super(expiry, NodeTable.hash(id));
            this.id = id;
            this.timeout = timeout;
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
}

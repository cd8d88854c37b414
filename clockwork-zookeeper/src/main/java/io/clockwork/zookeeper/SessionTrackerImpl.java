package io.clockwork.zookeeper;

import io.clockwork.engine.NodeTable;
import io.clockwork.engine.SharedDriver;
import io.clockwork.time.Ticker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tracks client sessions and expires those not touched within their timeout, with the names, signatures and
 * semantics of ZooKeeper's {@code org.apache.zookeeper.server.SessionTrackerImpl}. Thread-safe.
 *
 * <p>Sessions expire in batches at tick boundaries: a session touched at {@code t} with timeout {@code timeout}
 * expires at {@code ((t + timeout) / tickTime + 1) * tickTime}, where times are the ticker's in milliseconds
 * ({@code floor(reading / 1,000,000)}; on the system ticker, ZooKeeper's {@code Time.currentElapsedTime()}). The
 * boundaries are those of the ticker's time, not of the tracker's construction, so a session tracked just after
 * {@link #start()} expires anywhere in {@code (timeout, timeout + tickTime]}, as in ZooKeeper, and trackers with one
 * tick on one ticker expire together. Times stay continuous when the ticker wraps around. When a session expires,
 * the tracker marks it closing and calls {@link SessionExpirer#expire} once, on the engine's driver thread; the
 * session stays tracked (and {@link #checkSession} throws {@link KeeperException.SessionExpiredException}) until
 * {@link #removeSession} is called, usually by the expirer once the session is closed.
 *
 * <p>Constructed as ZooKeeper's, with a map of committed sessions and their timeouts (ZooKeeper's database copy),
 * the tracker tracks every session already in the map, {@link #commitSession} adds to it, {@link #removeSession}
 * removes from it and {@link #getSessionTimeout} reads it; session ids start at
 * {@link #initializeNextSessionId(long) initializeNextSessionId(serverId)}. The compact constructors keep their own
 * map, and their ids start at 1.
 *
 * <h2>Design</h2>
 * Each session is itself the node of an {@code ExpiryWheel} and the entry of a {@code long}-keyed, lock-free-read
 * hash table ({@code NodeTable}): no separate queue entry, map node or boxed id. One state word holds its expiry time
 * and closing flag. A touch is a table lookup (allocating nothing) and a CAS on that word, so touches from many
 * threads share no lock. Expiry is a CAS on the same word: a touch that races it either lands first, and the session
 * lives on, or fails, and returns {@code false}; once {@code expire} is called for a session, no touch succeeds for
 * it. The tracker has no thread: each expiry step is a task on the engine's shared driver ({@code SharedDriver}) at
 * the next tick boundary.
 *
 * <h2>What ZooKeeper's has and this one keeps out</h2>
 * <ul>
 *   <li>Touch, track, close, remove and the owner checks are {@code synchronized} on the tracker, one monitor for
 *       every client; here they take no lock shared with other sessions.</li>
 *   <li>Each session is a map entry with a boxed {@code Long} key plus an entry in the expiry queue's own map and
 *       bucket set; here it is one object.</li>
 *   <li>The expiry thread polls a bucket and then marks its sessions closing, so a touch in between succeeds and the
 *       session is expired anyway; here expiry and touch race on one CAS.</li>
 *   <li>{@code trackSession} of a closing or expired session re-arms it, so it can be expired twice; here it stays
 *       closing and is not expired again.</li>
 *   <li>{@code createSession} hands out an id already taken through {@code trackSession}; here it skips it.</li>
 *   <li>An expirer that throws kills the expiry thread, so no session expires again; here the failure is logged
 *       and tracking goes on. The listener is told only if expiry itself stops.</li>
 *   <li>A late expiry thread catches up one bucket per pass; here one step expires everything due.</li>
 * </ul>
 * Also unlike ZooKeeper's: the class is not a {@code Thread}; {@link #globalSessions()} is a snapshot, not a live
 * view; timeouts below 1 ms are rejected; create, track and touch after {@link #shutdown()} throw, and shutdown waits
 * for an {@code expire} in progress; {@link #dumpSessions} prints times as milliseconds, not dates.
 */
public final class SessionTrackerImpl implements SessionTracker {

    /** The name the listener is given, ZooKeeper's thread name. */
    static final String NAME = "SessionTracker";
    /** ZooKeeper's {@code ExitCode.UNEXPECTED_ERROR}. */
    static final int UNEXPECTED_ERROR = 1;

    private static final System.Logger LOG = System.getLogger(SessionTrackerImpl.class.getName());
    /** The low 40 bits of a time in milliseconds, which a session id carries above its 16 counter bits. */
    private static final long ID_TIME_MASK = (1L << 40) - 1;
    /** ZooKeeper's {@code EphemeralType.CONTAINER_EPHEMERAL_OWNER}, never a session id. */
    private static final long CONTAINER_EPHEMERAL_OWNER = Long.MIN_VALUE;

    private final NodeTable<SessionImpl> sessionsById = new ExpiryNodeTable<>();
    /** Sessions expired so far; one addition per expiry step that expires any. */
    private final AtomicLong expiredCount = new AtomicLong();
    private final ConcurrentMap<Long, Integer> sessionsWithTimeout;
    private final ExpiryWheel<SessionImpl> wheel;
    private final SessionExpirer expirer;
    private final ZooKeeperServerListener listener; // may be null, as ZooKeeper's tests pass
    private final Ticker ticker;
    private final AtomicLong nextSessionId;
    private final Object lifecycle = new Object();
    /** Held by an expiry step while it runs, so that {@link #shutdown()} can wait for it. */
    private final Object expiring = new Object();
    private volatile boolean shutdown;
    private SharedDriver scheduler;  // guarded by lifecycle; set by start()
    private SharedDriver.Task next;  // guarded by lifecycle

    /**
     * Creates a tracker on the system ticker, as ZooKeeper's constructor; call {@link #start()} to begin expiring.
     *
     * @param expirer             called once for each expired session
     * @param sessionsWithTimeout the committed sessions and their timeouts; tracked now, and kept up to date
     * @param tickTime            the bucket width in milliseconds, at least 1
     * @param serverId            the server id, the top byte of every session id
     * @param listener            told if expiry stops because of an error; may be null
     */
    public SessionTrackerImpl(SessionExpirer expirer, ConcurrentMap<Long, Integer> sessionsWithTimeout, int tickTime,
            long serverId, ZooKeeperServerListener listener) {
        this(expirer, sessionsWithTimeout, tickTime, serverId, listener, Ticker.system());
    }

    /**
     * Creates a tracker that reads time from the given ticker, otherwise as ZooKeeper's constructor.
     *
     * @param expirer             called once for each expired session
     * @param sessionsWithTimeout the committed sessions and their timeouts; tracked now, and kept up to date
     * @param tickTime            the bucket width in milliseconds, at least 1
     * @param serverId            the server id, the top byte of every session id
     * @param listener            told if expiry stops because of an error; may be null
     * @param ticker              the time source
     * @throws IllegalArgumentException if {@code tickTime} or a timeout in the map is less than 1
     */
    public SessionTrackerImpl(SessionExpirer expirer, ConcurrentMap<Long, Integer> sessionsWithTimeout, int tickTime,
            long serverId, ZooKeeperServerListener listener, Ticker ticker) {
        this(expirer, sessionsWithTimeout, tickTime, listener, ticker, -1L, serverId);
    }

    /**
     * Creates a tracker on the system ticker with its own map of committed sessions and ids starting at 1; call
     * {@link #start()} to begin expiring sessions.
     *
     * @param tickTime the bucket width in milliseconds, at least 1
     * @param expirer  called once for each expired session
     */
    public SessionTrackerImpl(int tickTime, SessionExpirer expirer) {
        this(tickTime, expirer, Ticker.system());
    }

    /**
     * Creates a tracker that reads time from the given ticker, with its own map of committed sessions and ids
     * starting at 1; call {@link #start()} to begin expiring sessions.
     *
     * @param tickTime the bucket width in milliseconds, at least 1
     * @param expirer  called once for each expired session
     * @param ticker   the time source
     * @throws IllegalArgumentException if {@code tickTime} is less than 1
     */
    public SessionTrackerImpl(int tickTime, SessionExpirer expirer, Ticker ticker) {
        this(expirer, new ConcurrentHashMap<>(), tickTime, null, ticker, 1L, 0L);
    }

    /** @param firstId the first session id, or -1 to derive it from {@code serverId} and the ticker's time */
    private SessionTrackerImpl(SessionExpirer expirer, ConcurrentMap<Long, Integer> sessionsWithTimeout, int tickTime,
            ZooKeeperServerListener listener, Ticker ticker, long firstId, long serverId) {
        if (tickTime < 1) {
            throw new IllegalArgumentException("tickTime must be at least 1 ms, was " + tickTime);
        }
        this.expirer = Objects.requireNonNull(expirer, "expirer");
        this.sessionsWithTimeout = Objects.requireNonNull(sessionsWithTimeout, "sessionsWithTimeout");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.listener = listener;
        this.wheel = new ExpiryWheel<>(tickTime, ticker);
        this.nextSessionId = new AtomicLong(firstId == -1L ? nextSessionIdAt(serverId, wheel.currentTime()) : firstId);
        for (Map.Entry<Long, Integer> e : sessionsWithTimeout.entrySet()) {
            trackSession(e.getKey(), e.getValue());
        }
    }

    /**
     * Returns the first session id of a server, laid out as ZooKeeper lays it out: the server id in the top byte,
     * the low 40 bits of the current time in milliseconds below it, and 16 zero bits for the ids that follow. The
     * time is the system ticker's ({@code System.nanoTime()} in milliseconds), so ids of a restarted server do not
     * repeat those it handed out before. The one value that is ZooKeeper's container-node owner marker is skipped.
     *
     * @param serverId the server id
     * @return the first session id
     */
    public static long initializeNextSessionId(long serverId) {
        return nextSessionIdAt(serverId, Math.floorDiv(Ticker.system().read(), IntervalClock.NANOS_PER_MILLI));
    }

    /** {@link #initializeNextSessionId(long)} at a given time in milliseconds. */
    static long nextSessionIdAt(long serverId, long timeMs) {
        long id = (serverId << 56) | ((timeMs & ID_TIME_MASK) << 16);
        return id == CONTAINER_EPHEMERAL_OWNER ? id + 1 : id;
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
            scheduler = SharedDriver.acquire(ticker);
            armExpiry();
        }
    }

    /**
     * Stops expiring sessions and waits for an {@code expire} call in progress to return (unless called from it).
     * Afterwards no session expires, and creating, tracking or touching sessions fails. Idempotent.
     */
    @Override
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
        next = scheduler.scheduleAt(this::expiryStep, wheel.nextExpirationReading());
    }

    /** The scheduled step: expires what is due, then schedules the next step, unless shut down meanwhile. */
    private void expiryStep() {
        synchronized (expiring) {
            if (shutdown) {
                return;
            }
            try {
                expireDue();
            } catch (RuntimeException | Error e) {
                stopped(e);
                throw e;
            }
            synchronized (lifecycle) {
                if (!shutdown) {
                    armExpiry();
                }
            }
        }
    }

    /** Expiry cannot go on: no step is armed again. Tells the listener, as ZooKeeper's dying thread does. */
    private void stopped(Throwable cause) {
        LOG.log(Level.ERROR, "SessionTracker stops expiring sessions", cause);
        if (listener != null) {
            try {
                listener.notifyStopping(NAME, UNEXPECTED_ERROR);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "ZooKeeperServerListener failed", e);
            }
        }
    }

    /** Expires the sessions that are due and calls the expirer for each; one expiry step. */
    int expireDue() {
        List<SessionImpl> expired = wheel.poll();
        if (!expired.isEmpty()) {
            expiredCount.addAndGet(expired.size());
        }
        for (SessionImpl session : expired) {
            try {
                expirer.expire(session);
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError) {
                    throw e;
                }
                LOG.log(Level.ERROR, "SessionExpirer failed for session " + session + "; tracking goes on", e);
            }
        }
        return expired.size();
    }

    /**
     * Counts the sessions tracked, for metrics. Any thread.
     *
     * @return sessions created or tracked and not yet removed (a moment's estimate while other threads work)
     */
    public int sessionCount() {
        return sessionsById.size();
    }

    /**
     * Counts the sessions that expired, for metrics. Any thread.
     *
     * @return sessions handed to the expirer since the tracker was created
     */
    public long expiredCount() {
        return expiredCount.get();
    }

    /**
     * Creates a session with a new id, unique in this tracker, and starts tracking it. The session is not
     * committed.
     *
     * @param sessionTimeout the session timeout in milliseconds, at least 1
     * @return the session id
     * @throws IllegalStateException if the tracker is shut down
     */
    @Override
    public long createSession(int sessionTimeout) {
        checkOpen();
        ExpiryQueue.checkTimeout(sessionTimeout);
        while (true) {
            long id = nextSessionId.getAndIncrement();
            // Skip ids already taken through trackSession, so that created ids stay unique.
            SessionImpl session = new SessionImpl(id, sessionTimeout, wheel.expiryAfter(sessionTimeout));
            if (sessionsById.putIfAbsent(session) == null) {
                wheel.file(session);
                return id;
            }
        }
    }

    /**
     * Tracks a session with a given id: adds it if unknown, else touches it. A closing or expired session stays so,
     * and is not expired again.
     *
     * @param id             the session id
     * @param sessionTimeout the session timeout in milliseconds, at least 1
     * @return true if the session was added, false if it was already tracked
     * @throws IllegalStateException if the tracker is shut down
     */
    @Override
    public boolean trackSession(long id, int sessionTimeout) {
        checkOpen();
        ExpiryQueue.checkTimeout(sessionTimeout);
        long expiry = wheel.expiryAfter(sessionTimeout);
        SessionImpl session = sessionsById.get(id, NodeTable.hash(id));
        if (session == null) {
            SessionImpl created = new SessionImpl(id, sessionTimeout, expiry);
            session = sessionsById.putIfAbsent(created);
            if (session == null) {
                wheel.file(created);
                return true;
            }
        }
        wheel.touch(session, expiry);
        return false;
    }

    @Override
    public boolean commitSession(long id, int sessionTimeout) {
        return sessionsWithTimeout.put(id, sessionTimeout) == null;
    }

    /**
     * Moves a session's expiry to {@code sessionTimeout} from now, rounded up to the next tick boundary.
     *
     * @param sessionId      the session id
     * @param sessionTimeout the timeout in milliseconds, at least 1
     * @return true if the session is tracked and was not closing or expired; false otherwise
     * @throws IllegalStateException if the tracker is shut down
     */
    @Override
    public boolean touchSession(long sessionId, int sessionTimeout) {
        checkOpen();
        ExpiryQueue.checkTimeout(sessionTimeout);
        SessionImpl session = sessionsById.get(sessionId, NodeTable.hash(sessionId));
        return session != null
                && wheel.touch(session, wheel.expiryAfter(sessionTimeout)) != ExpiryWheel.REJECTED;
    }

    /**
     * Marks a session closing: later touches fail and {@link #checkSession} throws, but it stays tracked, and is
     * still expired when its time comes unless removed first. No effect on an unknown session.
     *
     * @param sessionId the session id
     */
    @Override
    public void setSessionClosing(long sessionId) {
        SessionImpl session = sessionsById.get(sessionId, NodeTable.hash(sessionId));
        if (session != null) {
            session.markClosing();
        }
    }

    /**
     * Stops tracking a session, so it is never expired, and removes it from the committed sessions. No effect on an
     * unknown session.
     *
     * @param sessionId the session id
     */
    @Override
    public void removeSession(long sessionId) {
        int hash = NodeTable.hash(sessionId);
        for (SessionImpl session; (session = sessionsById.get(sessionId, hash)) != null; ) {
            if (sessionsById.remove(session)) {
                wheel.removed(session);
                break;
            }
        }
        sessionsWithTimeout.remove(sessionId);
    }

    /**
     * Tells whether a session is tracked (it may be closing or expired but not yet removed).
     *
     * @param sessionId the session id
     * @return true if tracked
     */
    @Override
    public boolean isTrackingSession(long sessionId) {
        return sessionsById.get(sessionId, NodeTable.hash(sessionId)) != null;
    }

    /**
     * Tells whether a session is global; every session this tracker holds is (ZooKeeper declares this on its
     * quorum trackers, which also hold local sessions).
     *
     * @param sessionId the session id
     * @return true if tracked
     */
    public boolean isGlobalSession(long sessionId) {
        return isTrackingSession(sessionId);
    }

    @Override
    public void checkSession(long sessionId, Object owner) throws KeeperException.SessionExpiredException,
            KeeperException.SessionMovedException, KeeperException.UnknownSessionException {
        SessionImpl session = sessionsById.get(sessionId, NodeTable.hash(sessionId));
        if (session == null || session.isRemovedState()) {
            throw new KeeperException.UnknownSessionException();
        }
        if (session.isClosingState()) {
            throw new KeeperException.SessionExpiredException();
        }
        if (!session.claimOwner(owner)) {
            throw new KeeperException.SessionMovedException();
        }
    }

    @Override
    public void checkGlobalSession(long sessionId, Object owner) throws KeeperException.SessionExpiredException,
            KeeperException.SessionMovedException {
        try {
            checkSession(sessionId, owner);
        } catch (KeeperException.UnknownSessionException e) {
            throw new KeeperException.SessionExpiredException();
        }
    }

    @Override
    public void setOwner(long id, Object owner) throws KeeperException.SessionExpiredException {
        SessionImpl session = sessionsById.get(id, NodeTable.hash(id));
        if (session == null || session.isClosingState()) {
            throw new KeeperException.SessionExpiredException();
        }
        session.owner(owner);
    }

    /**
     * Returns a session's committed timeout, from the map of committed sessions.
     *
     * @param sessionId the session id
     * @return the timeout in milliseconds
     * @throws NullPointerException if the session is not committed (ZooKeeper's unboxing of a missing value)
     */
    public int getSessionTimeout(long sessionId) {
        Integer timeout = sessionsWithTimeout.get(sessionId);
        if (timeout == null) {
            throw new NullPointerException("no committed timeout for session 0x" + Long.toHexString(sessionId));
        }
        return timeout;
    }

    /** @return 0: this tracker holds global sessions only */
    @Override
    public long getLocalSessionCount() {
        return 0;
    }

    /** @return false: this tracker holds global sessions only */
    @Override
    public boolean isLocalSessionsEnabled() {
        return false;
    }

    /**
     * Returns the ids of the tracked sessions. O(n).
     *
     * @return a new unmodifiable snapshot
     */
    @Override
    public Set<Long> globalSessions() {
        Set<Long> ids = new HashSet<>();
        sessionsById.forEach(s -> ids.add(s.id));
        return Collections.unmodifiableSet(ids);
    }

    /** @return an empty set: this tracker holds global sessions only */
    @Override
    public Set<Long> localSessions() {
        return Collections.emptySet();
    }

    /**
     * Returns a snapshot of expiry time to the ids of the sessions due then, sorted by time; expired sessions are
     * not in it. O(n): for diagnostics.
     *
     * @return a new sorted map
     */
    @Override
    public Map<Long, Set<Long>> getSessionExpiryMap() {
        return wheel.snapshot(sessionsById, s -> s.id, HashSet::new);
    }

    /**
     * Prints the sessions by expiry time in ZooKeeper's format, with times as milliseconds (ZooKeeper prints dates).
     *
     * @param pwriter where to print
     */
    @Override
    public void dumpSessions(PrintWriter pwriter) {
        Objects.requireNonNull(pwriter, "pwriter");
        pwriter.print("Session ");
        ExpiryQueue.dump(pwriter, wheel.snapshot(sessionsById, s -> s, HashSet::new), sessionsById.size());
    }

    /**
     * Returns the current time in the unit expiry times are expressed in.
     *
     * @return the ticker's time in milliseconds
     */
    public long currentTime() {
        return wheel.currentTime();
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

    /** @return what {@link #dumpSessions} prints */
    @Override
    public String toString() {
        StringWriter out = new StringWriter();
        try (PrintWriter pwriter = new PrintWriter(out)) {
            dumpSessions(pwriter);
        }
        return out.toString();
    }
}

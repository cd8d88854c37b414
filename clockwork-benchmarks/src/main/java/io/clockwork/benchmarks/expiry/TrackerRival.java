package io.clockwork.benchmarks.expiry;

import org.apache.zookeeper.server.SessionTrackerImpl;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One session tracker under test, holding the ids of the sessions it created. Thread-safe as far as the tracker is.
 *
 * <p>Neither tracker's expiry thread is started: with a 10 s timeout and every session touched well within it,
 * nothing would expire during a run, and on a 2-core machine an idle thread that wakes each interval only adds noise.
 * ZooKeeper's {@code SessionTrackerImpl} is built standalone with a no-op {@code SessionExpirer} and
 * {@code ZooKeeperServerListener}; its {@code touchSession} needs nothing else.
 */
abstract class TrackerRival {

    final long[] ids;

    TrackerRival(int sessions) {
        ids = new long[sessions];
    }

    static TrackerRival open(String name, int tickTimeMs, int sessions) {
        switch (name) {
            case ExpiryRivals.CLOCKWORK:
                return new Clockwork(tickTimeMs, sessions);
            case ExpiryRivals.ZOOKEEPER:
                return new ZooKeeper(tickTimeMs, sessions, false);
            case ExpiryRivals.ZOOKEEPER_SERVER:
                return new ZooKeeper(tickTimeMs, sessions, true);
            default:
                throw ExpiryRivals.unknown("tracker", name, ExpiryRivals.TRACKERS);
        }
    }

    /** Creates every session with the given timeout. */
    final void fill(int timeoutMs) {
        for (int i = 0; i < ids.length; i++) {
            ids[i] = create(timeoutMs);
        }
    }

    abstract long create(int timeoutMs);

    /** Touches session {@code i}; true if it is alive. */
    abstract boolean touch(int i, int timeoutMs);

    abstract void shutdown();

    /** Our SessionTrackerImpl, through its compact constructor. */
    static final class Clockwork extends TrackerRival {
        final io.clockwork.zookeeper.SessionTrackerImpl tracker;

        Clockwork(int tickTimeMs, int sessions) {
            super(sessions);
            tracker = new io.clockwork.zookeeper.SessionTrackerImpl(tickTimeMs, session -> { });
        }

        @Override
        long create(int timeoutMs) {
            return tracker.createSession(timeoutMs);
        }

        @Override
        boolean touch(int i, int timeoutMs) {
            return tracker.touchSession(ids[i], timeoutMs);
        }

        @Override
        void shutdown() {
            tracker.shutdown();
        }
    }

    /** ZooKeeper's SessionTrackerImpl, standalone. */
    static final class ZooKeeper extends TrackerRival {
        final SessionTrackerImpl tracker;
        final boolean commit;

        ZooKeeper(int tickTimeMs, int sessions, boolean commit) {
            super(sessions);
            this.commit = commit;
            tracker = new SessionTrackerImpl(new NoopExpirer(), new ConcurrentHashMap<>(), tickTimeMs, 1L,
                    (threadName, errorCode) -> { });
        }

        @Override
        long create(int timeoutMs) {
            long id = tracker.createSession(timeoutMs);
            if (commit) {
                tracker.commitSession(id, timeoutMs);
            }
            return id;
        }

        @Override
        boolean touch(int i, int timeoutMs) {
            return tracker.touchSession(ids[i], timeoutMs);
        }

        @Override
        void shutdown() {
            tracker.shutdown();
        }
    }

    /** ZooKeeper's expirer interface, doing nothing. */
    static final class NoopExpirer implements org.apache.zookeeper.server.SessionTracker.SessionExpirer {
        @Override
        public void expire(org.apache.zookeeper.server.SessionTracker.Session session) {
        }

        @Override
        public long getServerId() {
            return 1L;
        }
    }
}

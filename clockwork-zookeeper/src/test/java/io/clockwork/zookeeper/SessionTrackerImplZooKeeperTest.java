package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.clockwork.zookeeper.KeeperException.SessionExpiredException;
import io.clockwork.zookeeper.KeeperException.SessionMovedException;
import io.clockwork.zookeeper.KeeperException.UnknownSessionException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The ZooKeeper-shaped face of {@link SessionTrackerImpl}: construction, committed sessions, owners, ids. */
class SessionTrackerImplZooKeeperTest {

    private static final int TICK = 1000;

    private final ManualTicker ticker = new ManualTicker();
    private final ConcurrentHashMap<Long, Integer> committed = new ConcurrentHashMap<>();
    private final List<Long> expired = new CopyOnWriteArrayList<>();
    private final List<String> stopping = new CopyOnWriteArrayList<>();
    private final SessionTracker.SessionExpirer expirer = new SessionTracker.SessionExpirer() {
        @Override
        public void expire(SessionTracker.Session session) {
            expired.add(session.getSessionId());
        }

        @Override
        public long getServerId() {
            return 1;
        }
    };
    private final ZooKeeperServerListener listener = (name, code) -> stopping.add(name + ":" + code);
    private SessionTrackerImpl tracker;

    @AfterEach
    void shutdown() {
        if (tracker != null) {
            tracker.shutdown();
        }
    }

    private SessionTrackerImpl zooKeeperTracker(long serverId) {
        tracker = new SessionTrackerImpl(expirer, committed, TICK, serverId, listener, ticker);
        return tracker;
    }

    private void advanceMs(long ms) {
        ticker.advance(ms, TimeUnit.MILLISECONDS);
    }

    @Test
    void constructionTracksTheCommittedSessions() {
        committed.put(0xb100dedL, 3000);
        committed.put(0xdeadbeefL, 5000);
        SessionTrackerImpl t = zooKeeperTracker(1);
        assertThat(t.isTrackingSession(0xb100dedL)).isTrue();
        assertThat(t.isTrackingSession(0xdeadbeefL)).isTrue();
        assertThat(t.getSessionExpiryMap()).containsExactly(Map.entry(4000L, java.util.Set.of(0xb100dedL)),
                Map.entry(6000L, java.util.Set.of(0xdeadbeefL)));
        advanceMs(4000);
        t.expireDue();
        assertThat(expired).containsExactly(0xb100dedL);
    }

    @Test
    void commitSessionRecordsTheTimeoutInTheCallersMapOnce() {
        SessionTrackerImpl t = zooKeeperTracker(1);
        long id = t.createSession(3000);
        assertThat(committed).as("a created session is not committed").isEmpty();
        assertThatThrownBy(() -> t.getSessionTimeout(id)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining(Long.toHexString(id));
        assertThat(t.commitSession(id, 3000)).isTrue();
        assertThat(t.commitSession(id, 4000)).isFalse();
        assertThat(committed).containsExactly(Map.entry(id, 4000));
        assertThat(t.getSessionTimeout(id)).isEqualTo(4000);
    }

    @Test
    void removeSessionForgetsTheCommittedTimeoutToo() {
        SessionTrackerImpl t = zooKeeperTracker(1);
        long id = t.createSession(3000);
        t.commitSession(id, 3000);
        t.commitSession(77, 3000); // committed but not tracked: removal still forgets it
        t.removeSession(id);
        t.removeSession(77);
        assertThat(committed).isEmpty();
        assertThat(t.isTrackingSession(id)).isFalse();
    }

    @Test
    void sessionIdsCarryTheServerIdAboveTheTrackersTime() {
        ticker.advance(123_456_789, TimeUnit.MILLISECONDS);
        SessionTrackerImpl t = zooKeeperTracker(5);
        long first = t.createSession(3000);
        assertThat(first).isEqualTo((5L << 56) | (123_456_789L << 16));
        assertThat(t.createSession(3000)).isEqualTo(first + 1);
        assertThat(t.trackSession(first + 2, 3000)).isTrue();
        assertThat(t.createSession(3000)).as("skips an id taken by trackSession").isEqualTo(first + 3);
    }

    @Test
    void initializeNextSessionIdLaysOutServerIdTimeAndCounterBits() {
        long before = System.nanoTime() / 1_000_000;
        long id = SessionTrackerImpl.initializeNextSessionId(0x42);
        long after = System.nanoTime() / 1_000_000;
        assertThat(id >>> 56).isEqualTo(0x42);
        assertThat(id & 0xffff).as("low 16 bits count the sessions").isZero();
        assertThat((id >>> 16) & ((1L << 40) - 1)).isBetween(before & ((1L << 40) - 1), after & ((1L << 40) - 1));
        assertThat(SessionTrackerImpl.nextSessionIdAt(3, (1L << 40) + 7)).as("the time keeps its low 40 bits")
                .isEqualTo((3L << 56) | (7L << 16));
        assertThat(SessionTrackerImpl.nextSessionIdAt(0x80, 0)).as("never ZooKeeper's container owner marker")
                .isEqualTo(Long.MIN_VALUE + 1);
    }

    @Test
    void checkSessionGivesAnUnownedSessionToItsFirstCheckerAndRejectsOthers() throws Exception {
        SessionTrackerImpl t = zooKeeperTracker(1);
        long id = t.createSession(3000);
        Object first = new Object();
        Object second = new Object();
        t.checkSession(id, first);
        t.checkSession(id, first);
        assertThatThrownBy(() -> t.checkSession(id, second)).isInstanceOf(SessionMovedException.class)
                .hasMessage("KeeperErrorCode = Session moved");
        t.setOwner(id, second);
        t.checkSession(id, second);
        assertThatThrownBy(() -> t.checkSession(id, first)).isInstanceOf(SessionMovedException.class);
        assertThatThrownBy(() -> t.checkGlobalSession(id, first)).isInstanceOf(SessionMovedException.class);
    }

    @Test
    void aNullOwnerLeavesTheSessionUnowned() throws Exception {
        SessionTrackerImpl t = zooKeeperTracker(1);
        long id = t.createSession(3000);
        t.checkSession(id, null);
        Object owner = new Object();
        t.checkSession(id, owner);
        assertThatThrownBy(() -> t.checkSession(id, null)).isInstanceOf(SessionMovedException.class);
    }

    @Test
    void setOwnerOfAnUnknownOrClosingSessionThrowsSessionExpired() {
        SessionTrackerImpl t = zooKeeperTracker(1);
        assertThatThrownBy(() -> t.setOwner(9, new Object())).isInstanceOf(SessionExpiredException.class);
        long id = t.createSession(3000);
        t.setSessionClosing(id);
        assertThatThrownBy(() -> t.setOwner(id, new Object())).isInstanceOf(SessionExpiredException.class);
    }

    @Test
    void checkGlobalSessionTreatsAnUnknownSessionAsExpired() throws Exception {
        SessionTrackerImpl t = zooKeeperTracker(1);
        assertThatThrownBy(() -> t.checkSession(0xdeadbeefL, null)).isInstanceOf(UnknownSessionException.class);
        assertThatThrownBy(() -> t.checkGlobalSession(0xdeadbeefL, null))
                .isInstanceOf(SessionExpiredException.class);
        t.trackSession(0xdeadbeefL, 10_000);
        t.checkGlobalSession(0xdeadbeefL, null);
        t.setSessionClosing(0xdeadbeefL);
        assertThatThrownBy(() -> t.checkGlobalSession(0xdeadbeefL, null))
                .isInstanceOf(SessionExpiredException.class);
    }

    @Test
    void everySessionIsGlobalAndNoneIsLocal() {
        SessionTrackerImpl t = zooKeeperTracker(1);
        long a = t.createSession(3000);
        long b = t.createSession(3000);
        assertThat(t.globalSessions()).containsExactlyInAnyOrder(a, b);
        assertThatThrownBy(() -> t.globalSessions().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(t.isGlobalSession(a)).isTrue();
        assertThat(t.isGlobalSession(12)).isFalse();
        assertThat(t.localSessions()).isEmpty();
        assertThat(t.getLocalSessionCount()).isZero();
        assertThat(t.isLocalSessionsEnabled()).isFalse();
        t.removeSession(a);
        assertThat(t.globalSessions()).containsExactly(b);
    }

    /** ZooKeeper's SessionTrackerTest#testAddSessionAfterSessionExpiry, on a manual clock. */
    @Test
    void trackingAnExpiredSessionAgainNeitherRevivesNorExpiresItTwice() throws Exception {
        long sid = 339900;
        SessionTrackerImpl t = zooKeeperTracker(1);
        t.start();
        t.trackSession(sid, 3000);
        Object owner = new Object();
        t.checkSession(sid, owner);
        advanceMs(4000);
        Await.until("the session expires", () -> expired.contains(sid));
        assertThat(t.trackSession(sid, 3000)).isFalse();
        assertThatThrownBy(() -> t.checkSession(sid, owner)).isInstanceOf(SessionExpiredException.class);
        assertThat(t.touchSession(sid, 3000)).isFalse();
        advanceMs(10_000);
        t.expireDue(); // whatever is due now has expired, on this thread or the driver's
        assertThat(expired).containsExactly(sid);
    }

    /** ZooKeeper's SessionTrackerTest#testCloseSessionRequestAfterSessionExpiry. */
    @Test
    void anExpiredSessionIsRemovedWhenItsCloseIsProcessed() throws Exception {
        long sid = 339900;
        SessionTrackerImpl t = zooKeeperTracker(1);
        t.start();
        t.trackSession(sid, 3000);
        t.checkSession(sid, new Object());
        advanceMs(4000);
        Await.until("the session expires", () -> expired.contains(sid));
        assertThat(t.isTrackingSession(sid)).isTrue();
        t.removeSession(sid);
        assertThat(t.isTrackingSession(sid)).isFalse();
        assertThatThrownBy(() -> t.checkSession(sid, null)).isInstanceOf(UnknownSessionException.class);
    }

    /** ZooKeeper's ConnectionMetricsTest#testStaleSessionsExpired: sessions tracked before start expire. */
    @Test
    void sessionsTouchedBeforeStartExpireOnceStarted() {
        tracker = new SessionTrackerImpl(expirer, new ConcurrentHashMap<>(), TICK, 1L, null, ticker);
        tracker.trackSession(1L, TICK);
        tracker.trackSession(2L, TICK);
        assertThat(tracker.touchSession(1L, TICK)).isTrue();
        assertThat(tracker.touchSession(2L, TICK)).isTrue();
        tracker.start();
        advanceMs(2 * TICK);
        Await.until("both sessions expire", () -> expired.size() == 2);
        assertThat(expired).containsExactlyInAnyOrder(1L, 2L);
    }

    @Test
    void aFailingExpirerDoesNotStopTrackingNorTellTheListener() {
        AtomicInteger calls = new AtomicInteger();
        tracker = new SessionTrackerImpl(s -> {
            calls.incrementAndGet();
            throw new IllegalStateException("expirer failure (expected by the test)");
        }, committed, TICK, 1, listener, ticker);
        tracker.start();
        tracker.createSession(500);
        advanceMs(TICK);
        Await.until("the first session expires", () -> calls.get() == 1);
        tracker.createSession(500);
        advanceMs(TICK);
        Await.until("the second session expires", () -> calls.get() == 2);
        assertThat(stopping).isEmpty();
    }

    @Test
    void theListenerIsToldWhenExpiryStops() {
        tracker = new SessionTrackerImpl(s -> {
            throw new InternalError("fatal error in the expirer (expected by the test)");
        }, committed, TICK, 1, listener, ticker);
        tracker.start();
        tracker.createSession(500);
        advanceMs(TICK);
        Await.until("the listener is told", () -> !stopping.isEmpty());
        assertThat(stopping).containsExactly("SessionTracker:1");
    }

    @Test
    void aNullListenerIsAccepted() {
        tracker = new SessionTrackerImpl(expirer, committed, TICK, 1, null);
        assertThatCode(() -> tracker.createSession(3000)).doesNotThrowAnyException();
        assertThatThrownBy(() -> new SessionTrackerImpl(expirer, null, TICK, 1, null))
                .isInstanceOf(NullPointerException.class).hasMessage("sessionsWithTimeout");
        assertThatThrownBy(() -> new SessionTrackerImpl(expirer, committed, 0, 1, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tickTime");
    }

    @Test
    void aLambdaExpirerHasServerIdZero() {
        SessionTracker.SessionExpirer lambda = s -> { };
        assertThat(lambda.getServerId()).isZero();
        assertThat(expirer.getServerId()).isEqualTo(1);
    }

    /** The one real-time test: a session on the system ticker expires after its timeout, not before. */
    @Test
    void aSessionOnTheSystemClockExpiresAfterItsTimeout() {
        List<Long> expiredAt = new CopyOnWriteArrayList<>();
        tracker = new SessionTrackerImpl(s -> expiredAt.add(System.nanoTime()), new ConcurrentHashMap<>(), 50, 1,
                listener);
        tracker.start();
        long tracked = System.nanoTime();
        tracker.trackSession(1, 100);
        Await.until("the session expires", () -> !expiredAt.isEmpty());
        // Expiry is at a boundary after the timeout; times are whole milliseconds, so allow one below it.
        assertThat(TimeUnit.NANOSECONDS.toMillis(expiredAt.get(0) - tracked)).isGreaterThanOrEqualTo(99);
        assertThat(stopping).isEmpty();
    }
}

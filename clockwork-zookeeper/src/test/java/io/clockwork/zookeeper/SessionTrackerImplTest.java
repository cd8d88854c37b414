package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.engine.SharedDriver;
import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.clockwork.zookeeper.KeeperException.SessionExpiredException;
import io.clockwork.zookeeper.KeeperException.UnknownSessionException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SessionTrackerImplTest {

    private final ManualTicker ticker = new ManualTicker();
    private final List<SessionTracker.Session> expired = new CopyOnWriteArrayList<>();
    private final SessionTrackerImpl tracker = new SessionTrackerImpl(2000, expired::add, ticker);

    @AfterEach
    void shutdown() {
        tracker.shutdown();
    }

    private void advanceMs(long ms) {
        ticker.advance(ms, TimeUnit.MILLISECONDS);
    }

    private List<Long> expiredIds() {
        return expired.stream().map(SessionTracker.Session::getSessionId).toList();
    }

    @Test
    void countsTrackedAndExpiredSessions() {
        tracker.createSession(5000);
        tracker.createSession(5000);
        long kept = tracker.createSession(60_000);
        assertThat(tracker.sessionCount()).isEqualTo(3);
        assertThat(tracker.expiredCount()).isZero();
        advanceMs(6000);
        tracker.expireDue();
        assertThat(tracker.expiredCount()).isEqualTo(2);
        tracker.removeSession(kept);
        assertThat(tracker.expiredCount()).as("a removal is not an expiry").isEqualTo(2);
    }

    @Test
    void createdSessionIdsAreUnique() {
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            assertThat(ids.add(tracker.createSession(5000))).isTrue();
        }
    }

    @Test
    void createSessionSkipsIdsTakenByTrackSession() {
        assertThat(tracker.trackSession(1, 5000)).isTrue();
        assertThat(tracker.trackSession(2, 5000)).isTrue();
        assertThat(tracker.createSession(5000)).isEqualTo(3);
    }

    @Test
    void sessionExpiresAtItsRoundedDeadlineAndExpirerIsCalledOnce() {
        long id = tracker.createSession(5000); // (5000 / 2000 + 1) * 2000 = 6000
        advanceMs(5999);
        assertThat(tracker.expireDue()).isZero();
        advanceMs(1);
        assertThat(tracker.expireDue()).isEqualTo(1);
        assertThat(expiredIds()).containsExactly(id);
        assertThat(expired.get(0).isClosing()).isTrue();
        assertThat(expired.get(0).getTimeout()).isEqualTo(5000);
        advanceMs(10_000);
        tracker.expireDue();
        assertThat(expiredIds()).containsExactly(id);
    }

    @Test
    void touchMovesTheExpiry() {
        long id = tracker.createSession(5000);
        advanceMs(4000);
        assertThat(tracker.touchSession(id, 5000)).isTrue(); // now 10000
        advanceMs(2000);
        tracker.expireDue();
        assertThat(expired).isEmpty();
        advanceMs(4000);
        tracker.expireDue();
        assertThat(expiredIds()).containsExactly(id);
    }

    @Test
    void touchOfUnknownSessionReturnsFalse() {
        assertThat(tracker.touchSession(42, 5000)).isFalse();
    }

    @Test
    void touchAfterExpiryReturnsFalse() {
        long id = tracker.createSession(1000);
        advanceMs(2000);
        tracker.expireDue();
        assertThat(tracker.touchSession(id, 1000)).isFalse();
        assertThat(tracker.isTrackingSession(id)).isTrue();
    }

    @Test
    void checkSessionThrowsSessionExpiredAfterExpiry() {
        long id = tracker.createSession(1000);
        assertThatCode(() -> tracker.checkSession(id, null)).doesNotThrowAnyException();
        advanceMs(2000);
        tracker.expireDue();
        assertThatThrownBy(() -> tracker.checkSession(id, null)).isInstanceOf(SessionExpiredException.class)
                .hasMessage("KeeperErrorCode = Session expired");
    }

    @Test
    void checkSessionThrowsUnknownSessionForUntrackedOrRemovedSessions() {
        assertThatThrownBy(() -> tracker.checkSession(7, null)).isInstanceOf(UnknownSessionException.class)
                .hasMessage("KeeperErrorCode = Unknown error UNKNOWNSESSION");
        long id = tracker.createSession(1000);
        tracker.removeSession(id);
        assertThatThrownBy(() -> tracker.checkSession(id, null)).isInstanceOf(UnknownSessionException.class);
        assertThat(tracker.isTrackingSession(id)).isFalse();
    }

    @Test
    void closingSessionRejectsTouchesAndChecksButStillExpiresOnce() {
        long id = tracker.createSession(3000); // 4000
        tracker.setSessionClosing(id);
        assertThat(tracker.touchSession(id, 30_000)).isFalse();
        assertThatThrownBy(() -> tracker.checkSession(id, null)).isInstanceOf(SessionExpiredException.class);
        advanceMs(4000);
        tracker.expireDue();
        assertThat(expiredIds()).containsExactly(id);
        tracker.setSessionClosing(12345); // unknown: no effect
    }

    @Test
    void removedSessionNeverExpires() {
        long id = tracker.createSession(1000);
        tracker.removeSession(id);
        tracker.removeSession(id);
        advanceMs(10_000);
        tracker.expireDue();
        assertThat(expired).isEmpty();
    }

    @Test
    void trackSessionAddsNewSessionsAndTouchesKnownOnes() {
        assertThat(tracker.trackSession(100, 1000)).isTrue(); // 2000
        advanceMs(1500);
        assertThat(tracker.trackSession(100, 1000)).isFalse(); // 4000
        advanceMs(1000);
        tracker.expireDue();
        assertThat(expired).isEmpty();
        advanceMs(1500);
        tracker.expireDue();
        assertThat(expiredIds()).containsExactly(100L);
    }

    @Test
    void trackSessionDoesNotReviveAnExpiredSession() {
        tracker.trackSession(100, 1000);
        advanceMs(2000);
        tracker.expireDue();
        assertThat(tracker.trackSession(100, 1000)).isFalse();
        advanceMs(10_000);
        tracker.expireDue();
        assertThat(expiredIds()).containsExactly(100L);
    }

    @Test
    void throwingExpirerIsLoggedAndTrackingGoesOn() {
        List<Long> seen = new CopyOnWriteArrayList<>();
        SessionTrackerImpl failing = new SessionTrackerImpl(1000, s -> {
            seen.add(s.getSessionId());
            throw new IllegalStateException("expirer failure (expected by the test)");
        }, ticker);
        long a = failing.createSession(500);
        long b = failing.createSession(500);
        advanceMs(1000);
        assertThat(failing.expireDue()).isEqualTo(2);
        assertThat(seen).containsExactlyInAnyOrder(a, b);
        long c = failing.createSession(500);
        advanceMs(1000);
        failing.expireDue();
        assertThat(seen).containsExactlyInAnyOrder(a, b, c);
    }

    @Test
    void sessionExpiryMapGroupsLiveSessionIdsByTime() {
        long a = tracker.createSession(1000);
        long b = tracker.createSession(1500);
        long c = tracker.createSession(5000);
        assertThat(tracker.getSessionExpiryMap()).containsExactly(
                java.util.Map.entry(2000L, Set.of(a, b)), java.util.Map.entry(6000L, Set.of(c)));
        advanceMs(2000);
        tracker.expireDue();
        assertThat(tracker.getSessionExpiryMap()).containsOnlyKeys(6000L);
    }

    @Test
    void dumpSessionsPrintsZooKeepersFormat() {
        long id = tracker.createSession(1000);
        StringWriter out = new StringWriter();
        tracker.dumpSessions(new PrintWriter(out, true));
        String nl = System.lineSeparator();
        assertThat(out.toString()).isEqualTo("Session Sets (1)/(1):" + nl + "1 expire at 2000 ms:" + nl + "\t0x"
                + Long.toHexString(id) + nl);
        assertThat(tracker.toString()).isEqualTo(out.toString());
    }

    @Test
    void startedTrackerExpiresSessionsOnTheEngineThreadWhenTimeMoves() {
        Set<Thread> expiringThreads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        SessionTrackerImpl onEngine = new SessionTrackerImpl(2000, s -> {
            expiringThreads.add(Thread.currentThread());
            expired.add(s);
        }, ticker);
        onEngine.start();
        try {
            long first = onEngine.createSession(1000);
            advanceMs(2000);
            Await.until("the session expires", () -> expiredIds().contains(first));
            assertThat(expiringThreads).singleElement()
                    .satisfies(t -> assertThat(t.getName()).startsWith(SharedDriver.THREAD_NAME));
        } finally {
            onEngine.shutdown();
        }
        expired.clear();
        tracker.start();
        long id = tracker.createSession(1000);
        advanceMs(2000);
        Await.until("the session expires", () -> expiredIds().contains(id));
        assertThat(tracker.touchSession(tracker.createSession(1000), 1000)).isTrue();
        advanceMs(2000);
        Await.until("the second session expires", () -> expired.size() == 2);
    }

    @Test
    void noSessionExpiresAfterShutdownAndUseAfterShutdownFails() {
        tracker.start();
        long id = tracker.createSession(1000);
        tracker.shutdown();
        advanceMs(10_000);
        assertThat(expired).isEmpty();
        assertThat(tracker.isTrackingSession(id)).isTrue();
        assertThatThrownBy(() -> tracker.createSession(1000)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("shut down");
        assertThatThrownBy(() -> tracker.touchSession(id, 1000)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> tracker.trackSession(9, 1000)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(tracker::start).isInstanceOf(IllegalStateException.class);
        tracker.shutdown(); // idempotent
        assertThat(SharedDriver.isRunning(ticker)).as("the engine thread once no tracker needs it").isFalse();
    }

    @Test
    void anExpirerMayShutTheTrackerDownFromTheEngineThread() {
        List<Long> seen = new CopyOnWriteArrayList<>();
        SessionTrackerImpl[] self = new SessionTrackerImpl[1];
        self[0] = new SessionTrackerImpl(2000, s -> {
            seen.add(s.getSessionId());
            self[0].shutdown();
        }, ticker);
        self[0].start();
        self[0].createSession(1000);
        self[0].createSession(1000);
        advanceMs(2000);
        Await.until("the engine thread ends once the expirer shut the tracker down",
                () -> !SharedDriver.isRunning(ticker));
        assertThat(seen).hasSize(2); // the step in progress finishes its batch: ZooKeeper's expirer sees each once
        assertThatThrownBy(() -> self[0].createSession(1000)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void startingTwiceFails() {
        tracker.start();
        assertThatThrownBy(tracker::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already started");
    }

    @Test
    void badArgumentsAreRejectedWithTheirNames() {
        assertThatThrownBy(() -> new SessionTrackerImpl(0, s -> { }, ticker))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tickTime").hasMessageContaining("at least 1");
        assertThatThrownBy(() -> new SessionTrackerImpl(10, null, ticker)).isInstanceOf(NullPointerException.class)
                .hasMessage("expirer");
        assertThatThrownBy(() -> new SessionTrackerImpl(10, s -> { }, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("ticker");
        assertThatThrownBy(() -> tracker.createSession(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout");
        assertThatThrownBy(() -> tracker.touchSession(1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> tracker.trackSession(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> tracker.dumpSessions(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("pwriter");
        assertThat(tracker.getSessionExpiryMap()).isEmpty();
    }
}

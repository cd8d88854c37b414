package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Several threads create, touch and remove sessions while the tracker's own thread expires them and another thread
 * moves time. No touch succeeds once {@code expire} has been called for its session; every session that is not
 * removed expires exactly once; none expires twice.
 */
class SessionTrackerImplStressTest {

    private static final int THREADS = 4;
    private static final int PER_THREAD = 10_000;
    private static final int TICK = 10;

    @Test
    void touchesRacingExpiryNeverLeaveASessionBothExpiredAndAlive() throws Exception {
        ManualTicker ticker = new ManualTicker();
        int n = THREADS * PER_THREAD;
        AtomicIntegerArray expiries = new AtomicIntegerArray(n + 1);
        AtomicReference<String> violation = new AtomicReference<>();
        SessionTrackerImpl tracker = new SessionTrackerImpl(TICK, s -> {
            if (expiries.incrementAndGet((int) s.getSessionId()) > 1) {
                violation.compareAndSet(null, "session " + s + " expired twice");
            }
        }, ticker);
        tracker.start();
        AtomicBoolean done = new AtomicBoolean();
        Thread clock = new Thread(() -> {
            while (!done.get()) {
                ticker.advance(TICK / 2, TimeUnit.MILLISECONDS);
                Thread.yield();
            }
        });
        clock.start();
        boolean[] removed = new boolean[n + 1];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread worker = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < PER_THREAD; i++) {
                    long id = tracker.createSession(1 + random.nextInt(3 * TICK));
                    int touches = random.nextInt(6);
                    for (int k = 0; k < touches; k++) {
                        boolean expiredBefore = expiries.get((int) id) > 0;
                        boolean touched = tracker.touchSession(id, 1 + random.nextInt(3 * TICK));
                        if (expiredBefore && touched) {
                            violation.compareAndSet(null, "session " + id + " touched after its expiry");
                        }
                    }
                    if (random.nextInt(4) == 0) {
                        removed[(int) id] = true;
                        tracker.removeSession(id);
                    }
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        done.set(true);
        clock.join();
        ticker.advance(1, TimeUnit.HOURS);
        Await.until("every session that was not removed has expired", () -> {
            for (int id = 1; id <= n; id++) {
                if (!removed[id] && expiries.get(id) == 0) {
                    return false;
                }
            }
            return true;
        });
        tracker.shutdown();

        assertThat(violation.get()).isNull();
        for (int id = 1; id <= n; id++) {
            assertThat(expiries.get(id)).as("expiries of session %d", id).isLessThanOrEqualTo(1);
            if (!removed[id]) {
                long sid = id;
                assertThatThrownBy(() -> tracker.checkSession(sid, null))
                        .isInstanceOf(KeeperException.SessionExpiredException.class);
            }
        }
    }
}

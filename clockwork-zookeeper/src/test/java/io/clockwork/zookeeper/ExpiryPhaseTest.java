package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.time.ManualTicker;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bucket boundaries are those of the ticker's time, as ZooKeeper's are those of {@code Time.currentElapsedTime()}, not
 * of the structure's construction: what is tracked just after construction expires anywhere in
 * {@code (timeout, timeout + tick]}, and structures with one tick on one ticker share their boundaries. Tickers start
 * near both ends of {@code long} so that times cross the wraparound.
 */
class ExpiryPhaseTest {

    private static final int TICK = 2000;
    private static final long MS = 1_000_000L;

    private final List<Long> expired = new CopyOnWriteArrayList<>();

    /** The ticker's time in milliseconds, as the structures count it. */
    private static long millis(ManualTicker ticker) {
        return Math.floorDiv(ticker.read(), MS);
    }

    private static long roundUp(long timeMs, int interval) {
        return Math.floorDiv(timeMs, interval) * interval + interval;
    }

    /**
     * A ticker whose time is {@code phaseMs} into a tick, within a tick of {@code start}: before it if {@code start}
     * is positive, after it otherwise, so that finding the phase does not itself cross the wraparound.
     */
    private static ManualTicker tickerAt(long start, long phaseMs) {
        long shift = Math.floorMod(phaseMs - Math.floorDiv(start, MS), TICK);
        ManualTicker ticker = new ManualTicker(start + (start > 0 ? shift - TICK : shift) * MS);
        assertThat(Math.floorMod(millis(ticker), TICK)).isEqualTo(phaseMs);
        return ticker;
    }

    @ParameterizedTest
    @ValueSource(longs = {0L, Long.MAX_VALUE - 500_000_000L, Long.MIN_VALUE, -1_500_000_000L})
    void aSessionTrackedLateInATickExpiresAtTheTickersBoundary(long start) {
        ManualTicker ticker = tickerAt(start, 1999);
        SessionTrackerImpl tracker = new SessionTrackerImpl(TICK, s -> expired.add(s.getSessionId()), ticker);
        long now = millis(ticker);
        assertThat(tracker.currentTime()).isEqualTo(now);
        long id = tracker.createSession(2000);
        long expiry = roundUp(now + 2000, TICK);
        assertThat(expiry - now).as("one tick and one ms, where a construction-aligned clock says two ticks")
                .isEqualTo(2001);
        assertThat(tracker.getSessionExpiryMap()).containsExactly(Map.entry(expiry, Set.of(id)));
        ticker.advance(2000, TimeUnit.MILLISECONDS);
        tracker.expireDue();
        assertThat(expired).isEmpty();
        ticker.advance(1, TimeUnit.MILLISECONDS);
        tracker.expireDue();
        assertThat(expired).containsExactly(id);
        assertThat(tracker.currentTime()).as("continuous across the wrap").isEqualTo(expiry);
        if (start == Long.MAX_VALUE - 500_000_000L) {
            assertThat(ticker.read()).as("the ticker has wrapped").isNegative();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {Long.MAX_VALUE - 1_000_000_000L, Long.MIN_VALUE + 500_000L})
    void sessionsTrackedAtEveryPhaseExpireWithinATickAfterTheirTimeout(long start) {
        for (int phase = 0; phase < TICK; phase += 250) {
            expired.clear();
            ManualTicker ticker = tickerAt(start, phase);
            SessionTrackerImpl tracker = new SessionTrackerImpl(TICK, s -> expired.add(s.getSessionId()), ticker);
            long id = tracker.createSession(3000);
            long waited = 0;
            while (expired.isEmpty()) {
                ticker.advance(1, TimeUnit.MILLISECONDS);
                waited++;
                tracker.expireDue();
            }
            assertThat(expired).containsExactly(id);
            assertThat(waited).as("phase %d", phase).isGreaterThan(3000).isLessThanOrEqualTo(3000 + TICK)
                    .isEqualTo(roundUp(phase + 3000, TICK) - phase);
        }
    }

    @Test
    void trackersBuiltAtDifferentTimesShareTheirBoundaries() {
        ManualTicker ticker = tickerAt(Long.MAX_VALUE - 2_500_000_000L, 100);
        List<Long> first = new CopyOnWriteArrayList<>();
        List<Long> second = new CopyOnWriteArrayList<>();
        SessionTrackerImpl a = new SessionTrackerImpl(TICK, s -> first.add(s.getSessionId()), ticker);
        ticker.advance(1700, TimeUnit.MILLISECONDS);
        SessionTrackerImpl b = new SessionTrackerImpl(TICK, s -> second.add(s.getSessionId()), ticker);
        a.createSession(1000);
        b.createSession(1000);
        assertThat(a.getSessionExpiryMap().keySet()).isEqualTo(b.getSessionExpiryMap().keySet());
        assertThat(a.waitTimeMillis()).isEqualTo(b.waitTimeMillis()).isEqualTo(200);
        ticker.advance(200 + TICK, TimeUnit.MILLISECONDS);
        a.expireDue();
        b.expireDue();
        assertThat(first).hasSize(1);
        assertThat(second).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(longs = {0L, Long.MAX_VALUE - 1_000_000_000L, Long.MIN_VALUE})
    void anExpiryQueueHasTheTickersPhaseToo(long start) {
        ManualTicker ticker = tickerAt(start, 1500);
        ExpiryQueue<String> queue = new ExpiryQueue<>(TICK, ticker);
        long now = millis(ticker);
        assertThat(queue.currentTime()).isEqualTo(now);
        assertThat(queue.getWaitTime()).as("the next boundary of the ticker's time").isEqualTo(500);
        long expiry = queue.updateExpiry("a", 1000);
        assertThat(expiry).isEqualTo(roundUp(now + 1000, TICK)).isEqualTo(now + 2500);
        assertThat(queue.getExpiryMap()).containsExactly(Map.entry(expiry, Set.of("a")));
        ticker.advance(2499, TimeUnit.MILLISECONDS);
        assertThat(queue.poll()).isEmpty();
        ticker.advance(1, TimeUnit.MILLISECONDS);
        assertThat(queue.poll()).containsExactly("a");
        assertThat(queue.removeExpiry("a")).isEqualTo(expiry);
        assertThat(queue.removeExpiry("a")).isEqualTo(ExpiryQueue.NONE);
    }

    @Test
    void negativeTimesRoundDownwardSoBoundariesStayEvenlySpaced() {
        ManualTicker ticker = new ManualTicker(-2_500_300L * 1000); // -2,500.3 ms
        ExpiryQueue<String> queue = new ExpiryQueue<>(TICK, ticker);
        assertThat(queue.currentTime()).isEqualTo(-2501);
        assertThat(queue.getWaitTime()).isEqualTo(501); // the boundary at -2000 ms
        assertThat(queue.updateExpiry("a", 1)).isEqualTo(-2000);
        assertThat(queue.updateExpiry("b", 2501)).isEqualTo(2000); // -2501 + 2501 = 0 rounds up to the next
    }
}

package io.clockwork.micrometer;

import io.clockwork.storm.RotatingMap;
import io.clockwork.storm.TimeCacheMap;
import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.clockwork.timer.WheelTimer;
import io.clockwork.zookeeper.SessionTrackerImpl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link WheelTimerMetrics} and {@link ExpiryMetrics} on real timers, trackers and maps. */
class TimerAndExpiryMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ManualTicker ticker = new ManualTicker();

    private double counter(String name, String tag, String value) {
        return registry.get(name).tag(tag, value).functionCounter().count();
    }

    private double gauge(String name, String tag, String value) {
        return registry.get(name).tag(tag, value).gauge().value();
    }

    @Test
    void timerMetersFollowTheTimersCounts() throws InterruptedException {
        try (WheelTimer timer = WheelTimer.builder().name("payments").ticker(ticker)
                .latenessListener(WheelTimerMetrics.lateness(registry, "payments")).build()) {
            new WheelTimerMetrics(timer).bindTo(registry);
            CountDownLatch ran = new CountDownLatch(2);
            timer.schedule(ran::countDown, Duration.ofMillis(100));
            timer.schedule(ran::countDown, Duration.ofMillis(100));
            timer.schedule(() -> { }, Duration.ofMillis(100)).cancel();
            timer.schedule(() -> { }, Duration.ofHours(1));
            assertThat(gauge("clockwork.timer.pending", "timer", "payments")).isEqualTo(3);
            ticker.advance(Duration.ofMillis(130));
            assertThat(ran.await(20, TimeUnit.SECONDS)).isTrue();
            Await.until("expired counted", () -> counter("clockwork.timer.expired", "timer", "payments") == 2);
            assertThat(counter("clockwork.timer.scheduled", "timer", "payments")).isEqualTo(4);
            assertThat(counter("clockwork.timer.cancelled", "timer", "payments")).isEqualTo(1);
            assertThat(gauge("clockwork.timer.pending", "timer", "payments")).isEqualTo(1);
            var lateness = registry.get("clockwork.timer.lateness").tag("timer", "payments").timer();
            assertThat(lateness.count()).isEqualTo(2);
            assertThat(lateness.max(TimeUnit.MILLISECONDS)).isEqualTo(30);
        }
    }

    @Test
    void sessionTrackerMetersCountTrackedAndExpiredSessions() {
        SessionTrackerImpl tracker = new SessionTrackerImpl(2000, s -> { }, ticker);
        try {
            ExpiryMetrics.of(tracker, "zk").bindTo(registry);
            tracker.createSession(4000);
            tracker.createSession(60_000);
            assertThat(gauge("clockwork.expiry.tracked", "face", "session-tracker")).isEqualTo(2);
            tracker.start();
            ticker.advance(Duration.ofSeconds(7));
            Await.until("one session expired",
                    () -> counter("clockwork.expiry.expired", "face", "session-tracker") == 1);
        } finally {
            tracker.shutdown();
        }
    }

    @Test
    void expiryQueueMetersCountElementsAndPolledExpirations() {
        io.clockwork.zookeeper.ExpiryQueue<String> queue = new io.clockwork.zookeeper.ExpiryQueue<>(1000, ticker);
        ExpiryMetrics.of(queue, "connections").bindTo(registry);
        queue.update("a", 1000);
        queue.update("b", 9000);
        assertThat(gauge("clockwork.expiry.tracked", "face", "expiry-queue")).isEqualTo(2);
        ticker.advance(Duration.ofSeconds(3));
        assertThat(queue.poll()).containsExactly("a");
        assertThat(counter("clockwork.expiry.expired", "face", "expiry-queue")).isEqualTo(1);
    }

    @Test
    void mapMetersCountEntriesAndExpiries() {
        try (TimeCacheMap<String, Integer> map = new TimeCacheMap<>(Duration.ofSeconds(2), 2, null, ticker)) {
            ExpiryMetrics.of(map, "processed").bindTo(registry);
            map.put("a", 1);
            map.put("b", 2);
            assertThat(gauge("clockwork.expiry.tracked", "name", "processed")).isEqualTo(2);
            ticker.advance(Duration.ofSeconds(5));
            Await.until("both expired", () -> counter("clockwork.expiry.expired", "name", "processed") == 2);
            assertThat(gauge("clockwork.expiry.tracked", "name", "processed")).isZero();
        }
        RotatingMap<String, Integer> rotating = new RotatingMap<>(2);
        ExpiryMetrics.of(rotating, "rot").bindTo(registry);
        rotating.put("x", 1);
        rotating.rotate();
        rotating.rotate();
        assertThat(counter("clockwork.expiry.expired", "face", "rotating-map")).isEqualTo(1);
        assertThat(gauge("clockwork.expiry.tracked", "face", "rotating-map")).isZero();
    }
}

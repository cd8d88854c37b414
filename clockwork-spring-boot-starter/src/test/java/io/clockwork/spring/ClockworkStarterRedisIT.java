package io.clockwork.spring;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Boot application with Actuator and the starter against a real redis-server: listeners decode records from
 * Redis, the queues' meters land in the application's registry, and the health indicator sees Redis, its eviction
 * policy and dead letters.
 */
// Closed after the class, while its Redis still runs: at JVM exit the workers' graceful stop would wait out its
// timeout on a server the fixture's hook already killed.
@DirtiesContext
@SpringBootTest(classes = ClockworkStarterRedisIT.App.class, properties = {
        "clockwork.queues.payments.max-attempts=1",
        "clockwork.queues.reminders.compact-after=1h",
        "clockwork.worker.retry.max-attempts=1",
        "clockwork.health.dead-letter-threshold=0",
        "clockwork.metrics.stats-interval=100ms"})
class ClockworkStarterRedisIT {

    record Payment(String order, long cents) {
    }

    static class Listeners {
        final Set<Payment> paid = ConcurrentHashMap.newKeySet();

        @ClockworkListener(queue = "orders", concurrency = 4)
        void pay(Payment payment) {
            paid.add(payment);
        }

        @ClockworkListener(queue = "payments")
        void decline(Payment payment) {
            throw new IllegalStateException("card declined for " + payment.order());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("clockwork.redis.uri", () -> TestRedis.server().uri());
    }

    @Autowired
    ClockworkQueues queues;
    @Autowired
    Listeners listeners;
    @Autowired
    MeterRegistry registry;
    @Autowired
    Map<String, HealthIndicator> indicators;

    @AfterEach
    void restorePolicy() {
        TestRedis.server().call("CONFIG", "SET", "maxmemory-policy", "noeviction");
    }

    private Health health() {
        return indicators.get("clockworkHealthIndicator").health(true);
    }

    @Test
    void listenersReceiveRecordsThroughRedisAndTheirMetersAndHealthAreThere() {
        assertThat(queues.onRedis()).isTrue();
        DelayedQueue<Payment> orders = queues.queue("orders", Payment.class);
        for (int i = 0; i < 50; i++) {
            orders.offer(new Payment("o-" + i, 100 + i), Duration.ZERO);
        }
        Await.until("all paid", () -> listeners.paid.size() == 50);
        assertThat(listeners.paid).contains(new Payment("o-49", 149));
        Await.until("acks counted", () -> registry.get("clockwork.queue.acked").tag("queue", "orders")
                .tag("backend", "redis").counter().count() == 50);
        assertThat(registry.get("clockwork.queue.handler").tag("queue", "orders").timer().count()).isEqualTo(50);
        Health h = health();
        assertThat(h.getDetails()).containsEntry("redis", "PONG").containsEntry("maxmemoryPolicy", "noeviction");
    }

    @Test
    void deadLettersAboveTheThresholdTakeTheApplicationOutOfService() {
        queues.queue("payments", Payment.class).offer(new Payment("o-bad", 1), Duration.ZERO);
        Await.until("dead-lettered", () -> queues.queue("payments", Payment.class).stats().dead() == 1);
        Health h = health();
        assertThat(h.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(h.getDetails()).containsKey("deadLetters");
        Await.until("dead gauge sampled", () -> registry.get("clockwork.queue.messages").tag("queue", "payments")
                .tag("state", "dead").gauge().value() == 1);
        queues.queue("payments", Payment.class).purgeDead();
        assertThat(health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aPausedQueueStaysUpAndItsHealthSaysItIsPaused() {
        DelayedQueue<Payment> refunds = queues.queue("refunds", Payment.class);
        refunds.pause();
        try {
            Health h = health();
            assertThat(h.getStatus()).as("a pause is an operator's choice, not a fault").isEqualTo(Status.UP);
            Map<String, Map<String, Object>> details = (Map<String, Map<String, Object>>) h.getDetails().get("queues");
            assertThat(details.get("refunds")).containsEntry("paused", true);
        } finally {
            refunds.resume();
        }
        Map<String, Map<String, Object>> details = (Map<String, Map<String, Object>>) health().getDetails()
                .get("queues");
        assertThat(details.get("refunds")).containsEntry("paused", false);
    }

    @Test
    void compactAfterKeepsMessagesDueFurtherAheadInTheCompactStore() {
        DelayedQueue<Payment> reminders = queues.queue("reminders", Payment.class);
        reminders.offer(new Payment("soon", 1), Duration.ofMinutes(59));
        reminders.offer(new Payment("later", 2), Duration.ofHours(2));
        RedisServerProcess redis = TestRedis.server();
        assertThat(redis.call("HGET", "cw:{reminders:0}:cold", "n")).as("only the one due in 2 h").isEqualTo("1");
        assertThat(redis.call("ZCARD", "cw:{reminders:0}:pending")).as("the one due in 59 min, and keep.lua's member")
                .isEqualTo(2L);
        assertThat(reminders.stats().delayed()).isEqualTo(2);
    }

    @Test
    void anEvictingServerIsDown() {
        queues.queue("orders", Payment.class);
        RedisServerProcess redis = TestRedis.server();
        redis.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
        Health h = health();
        assertThat(h.getStatus()).isEqualTo(Status.DOWN);
        assertThat(h.getDetails()).containsEntry("maxmemoryPolicy", "allkeys-lru").containsKey("eviction");
    }
}

package io.clockwork.spring;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.worker.Job;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling deploy under load: instance A of an application drains 2,000 messages with 4 handlers and is closed
 * mid-way; instance B starts and finishes. Every message is reconciled: handled exactly once, never lost, and
 * instance A's close leaves nothing in flight.
 */
class GracefulShutdownRedisIT {

    static final Map<String, AtomicInteger> HANDLED = new ConcurrentHashMap<>();

    static class Handler {
        @ClockworkListener(queue = "deploy", concurrency = 4, prefetch = 8)
        void handle(Job<String> job) throws InterruptedException {
            Thread.sleep(2);
            HANDLED.computeIfAbsent(job.value(), k -> new AtomicInteger()).incrementAndGet();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Handler handler() {
            return new Handler();
        }
    }

    private static ConfigurableApplicationContext instance() {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("clockwork.redis.uri=" + TestRedis.server().uri(),
                        "clockwork.worker.shutdown-timeout=20s",
                        "clockwork.queues.deploy.visibility-timeout=60s")
                .run();
    }

    @Test
    void aRollingDeployUnderLoadHandlesEveryMessageExactlyOnce() {
        int n = 2000;
        try (DelayedQueue<String> producer = RedisDelayedQueue.builder(TestRedis.server().uri(), "deploy",
                Codec.string()).visibilityTimeout(Duration.ofSeconds(60)).build()) {
            Map<String, String> batch = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                batch.put("m-" + i, "m-" + i);
                if (batch.size() == DelayedQueue.MAX_BATCH) {
                    producer.offerAll(batch, Duration.ZERO);
                    batch.clear();
                }
            }

            ConfigurableApplicationContext a = instance();
            Await.until("instance A under load", () -> HANDLED.size() >= 300);
            a.close();
            int byA = HANDLED.size();
            QueueStats afterA = producer.stats();
            assertThat(afterA.inFlight()).as("A's close handed back or acked everything it held").isZero();
            assertThat(byA + afterA.ready()).as("handled by A plus still queued is every message").isEqualTo(n);
            assertThat(byA).as("A stopped mid-way").isLessThan(n);

            try (ConfigurableApplicationContext b = instance()) {
                Await.until("instance B finishes", Duration.ofSeconds(60), () -> HANDLED.size() == n);
                Await.until("queue empty", () -> producer.stats().total() == 0);
            }
            assertThat(HANDLED).hasSize(n);
            assertThat(HANDLED.values()).allSatisfy(c -> assertThat(c.get()).isEqualTo(1));
            assertThat(producer.stats().dead()).isZero();
        }
    }
}

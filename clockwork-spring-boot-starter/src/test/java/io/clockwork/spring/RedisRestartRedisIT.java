package io.clockwork.spring;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.redis.RedisQueueException;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A running Spring application offers while its Redis is killed and restarted on the same port: with the starter's
 * default {@code clockwork.redis.*} options every offer returns and lands exactly once. The server runs with an AOF
 * ({@code appendfsync always}), so what it acknowledged before the kill is still there after the restart.
 */
class RedisRestartRedisIT {

    /** Long enough that an attempt waiting for a reply outlives the default command timeout. */
    private static final Duration OUTAGE = Duration.ofSeconds(6);

    private static RedisServerProcess redis;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    @BeforeAll
    static void startRedis() {
        redis = RedisServerProcess.builder().appendOnly(true).start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void theCommandTimeoutAndRetryForReachTheQueues() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).properties("clockwork.redis.uri=" + redis.uri(),
                        "clockwork.redis.command-timeout=300ms", "clockwork.redis.retry-for=0s").run()) {
            DelayedQueue<String> queue = app.getBean(ClockworkQueues.class).queue("stalled", String.class);
            queue.offer("before", Duration.ofHours(1));
            redis.pause();
            try {
                long start = System.nanoTime();
                assertThatThrownBy(() -> queue.offer("during", Duration.ofHours(1)))
                        .isInstanceOf(RedisQueueException.class).hasMessageContaining("no reply within PT0.3S")
                        .hasMessageNotContaining("attempts");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
            } finally {
                redis.resume();
            }
            queue.offer("after", Duration.ofHours(1));
        }
    }

    @Test
    void offersRideThroughARestartOfRedisAndEachLandsOnce() throws InterruptedException {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).properties("clockwork.redis.uri=" + redis.uri()).run()) {
            DelayedQueue<String> queue = app.getBean(ClockworkQueues.class).queue("restart", String.class);
            AtomicInteger offered = new AtomicInteger();
            AtomicInteger stopAt = new AtomicInteger(Integer.MAX_VALUE);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread producer = new Thread(() -> {
                try {
                    for (int i = 0; i < stopAt.get(); i++) {
                        queue.offer(Message.of("v-" + i).id("m-" + i).delay(Duration.ofHours(1)));
                        offered.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "producer");
            producer.start();
            try {
                Await.until("offers under way", () -> offered.get() >= 200 || failure.get() != null);
                redis.kill();
                int atKill = offered.get();
                // The outage itself: real time is the subject here.
                LockSupport.parkNanos(OUTAGE.toNanos());
                assertThat(offered.get()).as("no offer completes while Redis is down").isLessThanOrEqualTo(atKill + 1);
                redis.restart();
                Await.until("offers resumed after the restart", Duration.ofSeconds(60),
                        () -> offered.get() >= atKill + 200 || failure.get() != null);
                stopAt.set(offered.get() + 1);
            } finally {
                stopAt.compareAndSet(Integer.MAX_VALUE, 0);
                producer.join(Duration.ofSeconds(60).toMillis());
            }
            assertThat(failure.get()).as("every offer returned").isNull();
            int n = offered.get();
            assertThat(queue.stats().delayed()).as("each of the %d offers once", n).isEqualTo(n);
            for (int i = 0; i < n; i++) {
                assertThat(queue.cancel("m-" + i)).as("m-%d is there", i).isTrue();
            }
            assertThat(queue.stats().delayed()).isZero();
        }
    }
}

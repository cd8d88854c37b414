package io.clockwork.micrometer;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.worker.Worker;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link MeteredDelayedQueue} on a real {@link RedisDelayedQueue} against a real {@code redis-server}. */
@ExtendWith(RedisExtension.class)
class QueueMetricsRedisIT {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double count(String name) {
        return registry.get(name).tag("queue", "orders").tag("backend", "redis").counter().count();
    }

    private double gauge(String state) {
        return registry.get("clockwork.queue.messages").tag("state", state).gauge().value();
    }

    @Test
    void producerAndWorkerOnRedisAreCountedAndTheStatesSampled(RedisServerProcess redis) throws Exception {
        try (QueueStatsSampler sampler = QueueStatsSampler.every(Duration.ofMillis(50));
             MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(
                     RedisDelayedQueue.builder(redis.uri(), "orders", Codec.string()).build(), registry)
                     .sampler(sampler).deliveryLateness(true).build()) {
            q.offer("far", Duration.ofHours(1));
            q.offerAll(List.of("a", "b", "c"), Duration.ZERO);
            Delivery<String> held = q.poll(Duration.ofSeconds(5));
            Await.until("sampled from Redis", () -> gauge("in_flight") == 1 && gauge("ready") == 2);
            assertThat(gauge("delayed")).isEqualTo(1);
            assertThat(gauge("dead")).isZero();
            assertThat(held.deadLetter("poison")).isTrue();

            Set<String> handled = ConcurrentHashMap.newKeySet();
            Worker<String> worker = Worker.builder(q, job -> {
                handled.add(job.value());
            }).listener(q.workerListener()).concurrency(2).prefetch(10).build();
            Await.until("the two ready handled and acked", () -> count("clockwork.queue.acked") == 2);
            worker.shutdown(Duration.ofSeconds(10));
            assertThat(handled).hasSize(2);
            assertThat(count("clockwork.queue.offered")).isEqualTo(4);
            assertThat(count("clockwork.queue.delivered")).isEqualTo(3);
            assertThat(count("clockwork.queue.dead.lettered")).isEqualTo(1);
            assertThat(registry.get("clockwork.queue.delivery.lateness").timer().count()).isEqualTo(3);
            assertThat(registry.get("clockwork.queue.handler").tag("outcome", "success").timer().count())
                    .isEqualTo(2);
            Await.until("dead sampled", () -> gauge("dead") == 1 && gauge("ready") == 0 && gauge("in_flight") == 0);
        }
    }

    @Test
    void anUnreachableServerShowsAsNaNNotAsStaleCounts(RedisServerProcess redis) {
        try (QueueStatsSampler sampler = QueueStatsSampler.every(Duration.ofMillis(50));
             MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(
                     RedisDelayedQueue.builder(redis.uri(), "orders", Codec.string()).build(), registry)
                     .sampler(sampler).build()) {
            q.offer("a", Duration.ZERO);
            Await.until("sampled", () -> gauge("ready") == 1);
            redis.kill();
            Await.until("unknown while the server is down", () -> Double.isNaN(gauge("ready")));
            redis.restart();
        }
    }
}

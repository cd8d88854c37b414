package io.clockwork.redis;

import io.clockwork.redis.fixture.ServerClock;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.clockwork.redis.Reliability.millis;
import static io.clockwork.redis.Reliability.report;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nobody holds a long-lived queue object: producers offer and go away, messages fall due (and abandoned deliveries
 * time out) while no client is connected, and a fresh client gets everything due at once. Redisson's
 * {@code RDelayedQueue} moves due items only from a live client's transfer task, so there a message can wait for a
 * later offer or a restarted client; here "ready" is a function of the server's clock.
 */
@ExtendWith(RedisExtension.class)
class RedisQueueColdStartIT {

    private static final int PARTITIONS = 4;

    private final RedisServerProcess redis;

    RedisQueueColdStartIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Test
    void freshClientGetsEverythingThatFellDueWhileNobodyWasConnected() throws Exception {
        String name = "cold";
        int total = 2_000;
        int abandoned = 200;
        Set<String> offered = new HashSet<>();
        Set<String> abandonedIds = new HashSet<>();
        try (RedisDelayedQueue<String> producer = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .partitions(PARTITIONS).visibilityTimeout(Duration.ofMillis(300)).build()) {
            for (int i = 0; i < total; i++) {
                offered.add(producer.offer("m-" + i, Duration.ofMillis(i % 10 * 50))); // due within 0.5 s
            }
            // A consumer takes some and dies without acking: their visibility timeout runs out while nobody is here.
            for (int i = 0; i < abandoned; i++) {
                Delivery<String> d = producer.poll(Duration.ofSeconds(5));
                assertThat(d).isNotNull();
                abandonedIds.add(d.id());
            }
        }
        try (ServerClock clock = new ServerClock(redis.uri())) {
            clock.await(Duration.ofMillis(600)); // everything is due and every abandoned delivery expired
        }

        // A fresh client, with a one-minute re-check so that only "due by the server's clock" explains a delivery.
        try (RedisDelayedQueue<String> fresh = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .partitions(PARTITIONS).recheckInterval(Duration.ofMinutes(1)).build()) {
            assertThat(fresh.stats().delayed()).as("nothing is still delayed").isZero();
            assertThat(fresh.stats().nextDueIn()).isEmpty();
            Map<String, Integer> attempts = new HashMap<>();
            long start = System.nanoTime();
            Delivery<String> d;
            while ((d = fresh.poll(Duration.ZERO)) != null) { // never waits: everything due is there at once
                assertThat(attempts.put(d.id(), d.attempt())).as("delivered once: %s", d.id()).isNull();
                assertThat(d.ack()).isTrue();
            }
            long drainNanos = System.nanoTime() - start;
            assertThat(attempts.keySet()).as("every message, none waiting for a later offer")
                    .containsExactlyInAnyOrderElementsOf(offered);
            assertThat(attempts.entrySet()).allSatisfy(e -> assertThat(e.getValue())
                    .as("attempt of %s", e.getKey()).isEqualTo(abandonedIds.contains(e.getKey()) ? 2 : 1));
            assertThat(fresh.stats().total()).isZero();
            report("RedisQueueColdStartIT.freshClient", "%d messages (%d abandoned in flight) delivered by "
                    + "poll(ZERO) with no offer in between, in %d ms", total, abandoned, millis(drainNanos));
        }
    }

    @Test
    void blockedConsumersWakeWhenMessagesFallDueWithoutAnyLaterOffer() throws Exception {
        String name = "cold-blocked";
        int total = 20;
        Duration delay = Duration.ofMillis(400);
        ExecutorService consumers = Executors.newFixedThreadPool(2);
        List<RedisDelayedQueue<String>> queues = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                queues.add(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).partitions(PARTITIONS)
                        .recheckInterval(Duration.ofMinutes(1)).build());
            }
            List<Future<List<Long>>> received = new ArrayList<>();
            for (RedisDelayedQueue<String> q : queues) {
                received.add(consumers.submit(() -> {
                    List<Long> lateness = new ArrayList<>();
                    Delivery<String> d;
                    while ((d = q.poll(Duration.ofSeconds(3))) != null) {
                        lateness.add(System.nanoTime() - Long.parseLong(d.value()));
                        assertThat(d.ack()).isTrue();
                    }
                    return lateness;
                }));
            }
            // The producer offers (all due at about the same time) and closes before anything is due.
            try (RedisDelayedQueue<String> producer = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                    .partitions(PARTITIONS).build()) {
                long dueAt = System.nanoTime() + delay.toNanos();
                for (int i = 0; i < total; i++) {
                    producer.offer(Long.toString(dueAt), delay);
                }
            }
            List<Long> lateness = new ArrayList<>();
            for (Future<List<Long>> f : received) {
                lateness.addAll(f.get(30, TimeUnit.SECONDS));
            }
            assertThat(lateness).hasSize(total);
            long worstMs = lateness.stream().mapToLong(Reliability::millis).max().orElseThrow();
            assertThat(worstMs).as("ms from due time to delivery, worst (re-check interval: 1 min)")
                    .isLessThan(500);
            report("RedisQueueColdStartIT.blockedConsumers", "%d messages offered by a client that closed, "
                    + "delivered by 2 blocked consumers with no later offer; worst %d ms after due", total, worstMs);
        } finally {
            consumers.shutdownNow();
            queues.forEach(RedisDelayedQueue::close);
        }
    }
}

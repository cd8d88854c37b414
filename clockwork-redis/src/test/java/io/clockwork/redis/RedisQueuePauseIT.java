package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.clockwork.redis.Reliability.hold;
import static io.clockwork.redis.Reliability.millis;
import static io.clockwork.redis.Reliability.report;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis frozen for 5 s ({@code SIGSTOP}, then {@code SIGCONT}) under a steady load of 2 producers and 2 consumers,
 * each with its own client configured as a user would: {@code commandTimeout(1 s)} (a command with no reply by then
 * is abandoned) and {@code retryOnConnectionLoss(30 s)} (operations retry with backoff instead of failing). Nobody
 * restarts anything: the clients carry on by themselves and nothing is lost.
 */
@ExtendWith(RedisExtension.class)
class RedisQueuePauseIT {

    private static final Duration PAUSE = Duration.ofSeconds(5);

    private final RedisServerProcess redis;

    RedisQueuePauseIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    private RedisDelayedQueue<String> client(String name) {
        return RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .commandTimeout(Duration.ofSeconds(1))
                .retryOnConnectionLoss(Duration.ofSeconds(30))
                .visibilityTimeout(Duration.ofSeconds(2))
                .build();
    }

    @Test
    void clientsRideOutAFiveSecondPauseByThemselvesAndLoseNothing() throws Exception {
        String name = "paused";
        ExecutorService threads = Executors.newCachedThreadPool();
        List<RedisDelayedQueue<String>> clients = new ArrayList<>();
        try {
            Set<String> stored = ConcurrentHashMap.newKeySet();
            Map<String, Integer> deliveries = new ConcurrentHashMap<>();
            Set<String> acked = ConcurrentHashMap.newKeySet();
            AtomicInteger failures = new AtomicInteger();
            AtomicInteger falseAcks = new AtomicInteger();
            AtomicBoolean stopProducing = new AtomicBoolean();
            AtomicBoolean stopConsuming = new AtomicBoolean();
            AtomicLong lastOfferNanos = new AtomicLong();
            AtomicLong lastAckNanos = new AtomicLong();
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                RedisDelayedQueue<String> producer = client(name);
                clients.add(producer);
                int n = t;
                workers.add(threads.submit(() -> {
                    for (int i = 0; !stopProducing.get(); i++) {
                        try {
                            stored.add(producer.offer("p" + n + "-" + i, Duration.ofMillis(i % 3 * 100)));
                            lastOfferNanos.set(System.nanoTime());
                        } catch (RedisQueueException e) {
                            failures.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (int t = 0; t < 2; t++) {
                RedisDelayedQueue<String> consumer = client(name);
                clients.add(consumer);
                workers.add(threads.submit(() -> {
                    while (!stopConsuming.get()) {
                        try {
                            Delivery<String> d = consumer.poll(Duration.ofMillis(200));
                            if (d == null) {
                                continue;
                            }
                            deliveries.merge(d.id(), 1, Integer::sum);
                            if (d.ack()) {
                                acked.add(d.id());
                                lastAckNanos.set(System.nanoTime());
                            } else {
                                falseAcks.incrementAndGet();
                            }
                        } catch (RedisQueueException e) {
                            failures.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }

            Await.until("steady traffic", Duration.ofSeconds(20), () -> acked.size() >= 2_000);
            int ackedBefore = acked.size();
            redis.pause();
            long pausedAt = System.nanoTime();
            hold(Duration.ofMillis(1500)); // in-flight commands drain before the freeze is measured
            int storedFrozen = stored.size();
            int ackedFrozen = acked.size();
            hold(PAUSE.minusMillis(1500));
            assertThat(stored.size()).as("no offer completes while Redis is frozen").isEqualTo(storedFrozen);
            assertThat(acked.size()).as("no ack completes while Redis is frozen").isEqualTo(ackedFrozen);
            redis.resume();
            long resumedAt = System.nanoTime();
            Await.until("offers complete again", Duration.ofSeconds(15), () -> lastOfferNanos.get() - resumedAt > 0);
            long offerRecovery = lastOfferNanos.get() - resumedAt;
            Await.until("acks complete again", Duration.ofSeconds(15), () -> lastAckNanos.get() - resumedAt > 0);
            long ackRecovery = lastAckNanos.get() - resumedAt;
            Await.until("1,000 more acks after the pause", Duration.ofSeconds(20),
                    () -> acked.size() >= ackedFrozen + 1_000);

            stopProducing.set(true);
            for (Future<?> w : workers.subList(0, 2)) {
                w.get(30, TimeUnit.SECONDS);
            }
            Await.until("every offer that returned is acked", Duration.ofSeconds(30), () -> acked.containsAll(stored));
            stopConsuming.set(true);
            for (Future<?> w : workers) {
                w.get(30, TimeUnit.SECONDS);
            }

            long redelivered = deliveries.values().stream().filter(n -> n > 1).count();
            assertThat(failures.get()).as("operations that failed despite retryOnConnectionLoss").isZero();
            assertThat(acked).as("nothing lost").containsAll(stored);
            assertThat(clients.get(0).stats().total()).isZero();
            report("RedisQueuePauseIT", "paused %d ms (SIGSTOP) after %d acks; first offer %d ms and first ack %d ms "
                    + "after SIGCONT; %d offers, all delivered; %d messages redelivered (deliveries whose reply the "
                    + "pause cut off), %d acks returned false; 0 failed operations; settings commandTimeout 1 s, "
                    + "retryOnConnectionLoss 30 s, visibilityTimeout 2 s", millis(resumedAt - pausedAt), ackedBefore,
                    millis(offerRecovery), millis(ackRecovery), stored.size(), redelivered, falseAcks.get());
        } finally {
            threads.shutdownNow();
            clients.forEach(RedisDelayedQueue::close);
        }
    }
}

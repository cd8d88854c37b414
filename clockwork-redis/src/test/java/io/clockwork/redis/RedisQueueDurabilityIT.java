package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;

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

import static io.clockwork.redis.Reliability.millis;
import static io.clockwork.redis.Reliability.report;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis killed with {@code SIGKILL} under load and restarted on the same directory with {@code appendfsync always}:
 * every offer that returned is delivered, every ack that returned stays acked, and deliveries in flight at the
 * crash come back after their visibility timeout.
 */
class RedisQueueDurabilityIT {

    private static final int DRAIN_BATCH = 100;

    @Test
    void everyOfferThatReturnedSurvivesSigkillAndRestart() throws Exception {
        String name = "durable";
        Duration visibility = Duration.ofSeconds(1);
        ExecutorService threads = Executors.newCachedThreadPool();
        try (RedisServerProcess redis = RedisServerProcess.builder().appendOnly(true).start();
             // Producers fail fast (no retry) so that some offers are cut off by the kill: their outcome is unknown.
             RedisDelayedQueue<String> producers = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                     .partitions(2).commandTimeout(Duration.ofSeconds(1)).build();
             // The consumer rides out the outage, as a user would configure it.
             RedisDelayedQueue<String> consumer = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                     .partitions(2).visibilityTimeout(visibility).commandTimeout(Duration.ofSeconds(1))
                     .retryOnConnectionLoss(Duration.ofSeconds(30)).build()) {
            Set<String> stored = ConcurrentHashMap.newKeySet();       // offer returned
            Set<String> acked = ConcurrentHashMap.newKeySet();        // ack returned true
            Map<String, Integer> deliveries = new ConcurrentHashMap<>();
            Set<String> ackedBeforeKill = ConcurrentHashMap.newKeySet();
            AtomicInteger failedOffers = new AtomicInteger();
            AtomicBoolean killed = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong afterKillRedelivered = new AtomicLong();

            List<Future<?>> producing = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int producer = t;
                producing.add(threads.submit(() -> {
                    for (int i = 0; ; i++) {
                        try {
                            // Half due now, half within the next 1.5 s: some are still delayed at the crash.
                            stored.add(producers.offer("p" + producer + "-" + i,
                                    Duration.ofMillis(i % 2 == 0 ? 0 : i % 1500)));
                        } catch (RedisQueueException e) {
                            failedOffers.incrementAndGet(); // cut off by the kill: may or may not be stored
                            return null;
                        }
                    }
                }));
            }
            List<Future<?>> consuming = new ArrayList<>();
            consuming.add(threads.submit(() -> {
                while (!stop.get()) {
                    Delivery<String> d = consumer.poll(Duration.ofMillis(100));
                    if (d == null) {
                        continue;
                    }
                    if (deliveries.merge(d.id(), 1, Integer::sum) > 1 && killed.get()) {
                        afterKillRedelivered.incrementAndGet();
                    }
                    if (d.ack()) {
                        acked.add(d.id());
                        if (!killed.get()) {
                            ackedBeforeKill.add(d.id());
                        }
                    }
                }
                return null;
            }));

            Await.until("3,000 offers and 1,000 acks before the kill", Duration.ofSeconds(30),
                    () -> stored.size() >= 3_000 && acked.size() >= 1_000);
            redis.kill();
            killed.set(true);
            int storedAtKill = stored.size();
            int ackedAtKill = ackedBeforeKill.size();
            for (Future<?> p : producing) {
                p.get(10, TimeUnit.SECONDS); // each producer stops at its first failed offer
            }
            long restartStart = System.nanoTime();
            redis.restart(); // same port and directory: the AOF is replayed
            long restartNanos = System.nanoTime() - restartStart;
            // A second consumer of the same client helps drain what the restart brought back, in batches: with
            // appendfsync always every write waits for its fsync, and a batch costs one poll call and one ack call
            // instead of one each per message.
            consuming.add(threads.submit(() -> {
                while (!stop.get()) {
                    List<Delivery<String>> batch = consumer.poll(DRAIN_BATCH, Duration.ofMillis(100));
                    for (Delivery<String> d : batch) {
                        if (deliveries.merge(d.id(), 1, Integer::sum) > 1) {
                            afterKillRedelivered.incrementAndGet();
                        }
                    }
                    List<Boolean> done = batch.isEmpty() ? List.of() : consumer.ackAll(batch);
                    for (int i = 0; i < done.size(); i++) {
                        if (done.get(i)) {
                            acked.add(batch.get(i).id());
                        }
                    }
                }
                return null;
            }));

            long drainStart = System.nanoTime();
            try {
                Await.until("every offer that returned is delivered and acked", Duration.ofSeconds(60),
                        () -> acked.containsAll(stored) || consuming.stream().anyMatch(Future::isDone));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; " + missing(redis, name, stored, acked), e);
            }
            for (Future<?> c : consuming) {
                if (c.isDone()) {
                    c.get(); // a consumer died: show why
                }
            }
            long drainNanos = System.nanoTime() - drainStart;
            stop.set(true);
            for (Future<?> c : consuming) {
                c.get(30, TimeUnit.SECONDS);
            }

            assertThat(acked).as("every offer that returned was delivered").containsAll(stored);
            assertThat(ackedBeforeKill).as("acks that returned before the kill stay acked")
                    .allSatisfy(id -> assertThat(deliveries.get(id)).as("deliveries of %s", id).isOne());
            // Whatever is left came from offers cut off by the kill: at most one per producer. One may still be in
            // flight, taken by a poll whose reply the kill cut off: it comes back after the visibility timeout.
            int leftOver = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.stats().total() > 0 && System.nanoTime() - deadline < 0) {
                Delivery<String> d = consumer.poll(Duration.ofMillis(200));
                if (d != null) {
                    assertThat(stored).doesNotContain(d.id());
                    assertThat(d.ack()).isTrue();
                    leftOver++;
                }
            }
            assertThat(leftOver).isLessThanOrEqualTo(failedOffers.get());
            assertThat(consumer.stats().total()).isZero();
            report("RedisQueueDurabilityIT", "SIGKILL after %d returned offers and %d returned acks; restart (AOF "
                    + "replay) %d ms; all %d returned offers delivered %d ms after the restart; %d in-flight "
                    + "deliveries redelivered after the visibility timeout; %d offers cut off by the kill "
                    + "(%d of them stored anyway); 0 acked messages redelivered", storedAtKill, ackedAtKill,
                    millis(restartNanos), stored.size(), millis(drainNanos), afterKillRedelivered.get(),
                    failedOffers.get(), leftOver);
        } finally {
            threads.shutdownNow();
        }
    }

    /** Where the messages that were stored but never acked are, for a failure message. */
    private static String missing(RedisServerProcess redis, String name, Set<String> stored, Set<String> acked) {
        List<String> missing = stored.stream().filter(id -> !acked.contains(id)).limit(5).toList();
        StringBuilder sb = new StringBuilder(stored.stream().filter(id -> !acked.contains(id)).count()
                + " never acked, e.g.");
        PartitionSelector selector = new PartitionSelector(2);
        for (String id : missing) {
            String prefix = KeyLayout.prefix(name, selector.partitionOf(id));
            sb.append(' ').append(id).append(" meta=").append(redis.call("HGET", prefix + "meta", id))
                    .append(" pending=").append(redis.call("ZSCORE", prefix + "pending", "x"));
        }
        sb.append("; server TIME ").append(redis.call("TIME"));
        for (int p = 0; p < 2; p++) {
            String prefix = KeyLayout.prefix(name, p);
            sb.append("; partition ").append(p).append(": pending ").append(redis.call("ZCARD", prefix + "pending"))
                    .append(" head ").append(redis.call("ZRANGE", prefix + "pending", "0", "0", "WITHSCORES"))
                    .append(", inflight ").append(redis.call("ZCARD", prefix + "inflight"))
                    .append(" head ").append(redis.call("ZRANGE", prefix + "inflight", "0", "0", "WITHSCORES"))
                    .append(", dead ").append(redis.call("ZCARD", prefix + "dead"));
        }
        return sb.toString();
    }
}

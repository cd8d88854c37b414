package io.clockwork.redis;

import io.clockwork.redis.fixture.ServerClock;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.time.Ticker;
import io.lettuce.core.ScoredValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.clockwork.redis.Reliability.report;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two clients whose clocks are 20 minutes apart (tickers offset by +10 and -10 minutes) agree on when a message is
 * due, because due times come only from the Redis server's {@code TIME}; the ticker only measures a client's own
 * waits. Redisson's {@code RDelayedQueue} computes due times on the offering client's clock.
 */
@ExtendWith(RedisExtension.class)
class RedisQueueClockSkewIT {

    private static final long TEN_MINUTES = TimeUnit.MINUTES.toNanos(10);
    private static final Ticker AHEAD = () -> System.nanoTime() + TEN_MINUTES;
    private static final Ticker BEHIND = () -> System.nanoTime() - TEN_MINUTES;

    private final RedisServerProcess redis;

    RedisQueueClockSkewIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    private RedisDelayedQueue<String> client(String name, Ticker ticker) {
        return RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).ticker(ticker)
                .recheckInterval(Duration.ofMinutes(1)).build();
    }

    @Test
    void clientsTwentyMinutesApartDeliverTheSameMessageAtTheSameServerTime() throws Exception {
        String name = "skew";
        Duration delay = Duration.ofMillis(1500);
        ExecutorService background = Executors.newSingleThreadExecutor();
        try (RedisDelayedQueue<String> ahead = client(name, AHEAD);
             RedisDelayedQueue<String> behind = client(name, BEHIND);
             ServerClock clock = new ServerClock(redis.uri())) {
            for (boolean aheadOffers : new boolean[] {true, false}) {
                RedisDelayedQueue<String> producer = aheadOffers ? ahead : behind;
                RedisDelayedQueue<String> consumer = aheadOffers ? behind : ahead;
                String label = aheadOffers ? "+10 min offers, -10 min polls" : "-10 min offers, +10 min polls";

                long before = clock.nowMillis();
                String id = producer.offer("from " + label, delay);
                long afterMicros = clock.nowMicros(); // a delay counts from the server's TIME rounded up to 1 ms
                long after = afterMicros / 1000 + (afterMicros % 1000 > 0 ? 1 : 0);
                List<ScoredValue<String>> head = clock.connection().sync()
                        .zrangeWithScores(KeyLayout.prefix(name, 0) + "pending", 0, 0);
                long due = (long) head.get(0).getScore();
                assertThat(due).as("due = server TIME (rounded up) + delay").isBetween(before + delay.toMillis(),
                        after + delay.toMillis());

                // Both clients report the same next due time (read back to back, within what passed between).
                long t0 = System.nanoTime();
                Duration seenByProducer = producer.stats().nextDueIn().orElseThrow();
                Duration seenByConsumer = consumer.stats().nextDueIn().orElseThrow();
                long between = System.nanoTime() - t0;
                long disagreeMs = Math.abs(seenByProducer.minus(seenByConsumer).toMillis());
                assertThat(disagreeMs).as("nextDueIn disagreement, ms").isLessThanOrEqualTo(
                        TimeUnit.NANOSECONDS.toMillis(between) + 5);
                assertThat(seenByConsumer).isBetween(delay.minusMillis(500), delay);

                // The other client delivers it at its due time on the server's clock: not 20 minutes early or late.
                Future<Long> delivered = background.submit(() -> {
                    Delivery<String> d = consumer.poll(Duration.ofSeconds(10));
                    long at = clock.nowMillis();
                    assertThat(d).isNotNull();
                    assertThat(d.id()).isEqualTo(id);
                    assertThat(d.ack()).isTrue();
                    return at;
                });
                long deliveredAt = delivered.get(20, TimeUnit.SECONDS);
                assertThat(deliveredAt - due).as("server ms from due time to delivery").isBetween(0L, 200L);
                report("RedisQueueClockSkewIT", "%s: nextDueIn %d ms vs %d ms (differ %d ms), delivered %d ms after "
                        + "its server due time", label, seenByProducer.toMillis(), seenByConsumer.toMillis(),
                        disagreeMs, deliveredAt - due);
            }
        } finally {
            background.shutdownNow();
        }
    }

    @Test
    void theTickerOnlyTimesTheClientsOwnWait() throws Exception {
        try (RedisDelayedQueue<String> ahead = client("skew-wait", AHEAD)) {
            long start = System.nanoTime();
            assertThat(ahead.poll(Duration.ofMillis(300))).isNull();
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(waitedMs).as("poll(300 ms) on an empty queue, client clock +10 min").isBetween(300L, 2_000L);
        }
    }
}

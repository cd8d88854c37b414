package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

import static io.clockwork.redis.Reliability.millis;
import static io.clockwork.redis.Reliability.perSecond;
import static io.clockwork.redis.Reliability.report;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Offer, cancel and delivery stay O(log n) in the backlog: their rates with 1,000,000 pending messages are compared
 * with their rates with 1,000 pending, on the same server and the same client. This test asserts a generous bound,
 * at least a quarter of the rate: a linear cost would be a thousand times slower, while a logarithmic one may still
 * lose half its speed here, because a 1,000,000-member sorted set no longer fits in the CPU's caches and each level
 * of its skip list can miss (offers measured 51% to 90% in full builds once the scripts got cheaper). The benchmark
 * checks the 80% delivery target.
 * The backlog is filled by {@code offer.lua} itself, 1,000 messages per script call, so it is exactly what a million
 * offers leave. The 1k rates come from two queues (before and after the fill) and the rounds interleave.
 */
@ExtendWith(RedisExtension.class)
class RedisQueueScaleIT {

    private static final int SMALL = 1_000;
    private static final int LARGE = 1_000_000;
    private static final int SAMPLE = 5_000;
    private static final int THREADS = 4;
    private static final long HOUR_MS = 3_600_000;

    private final RedisServerProcess redis;

    RedisQueueScaleIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    private RedisDelayedQueue<String> queue(String name) {
        return RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).recheckInterval(Duration.ofMinutes(1))
                .build();
    }

    /** Best rates of the rounds run at one backlog size, per second. */
    private record Rates(double offer, double cancel, double delivery) {
        Rates best(Rates o) {
            return new Rates(Math.max(offer, o.offer), Math.max(cancel, o.cancel), Math.max(delivery, o.delivery));
        }
    }

    @Test
    void offerCancelAndDeliveryRatesHoldWithAMillionPending() throws Exception {
        String name = "scale";
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try (RedisDelayedQueue<String> q = queue(name);
             RedisDelayedQueue<String> small = queue(name + "-small")) {
            fill(name, 0, SMALL);
            fill(name + "-small", 0, SMALL);
            round(q, threads, "warm-up-1", SMALL); // JIT and connection warm-up, not measured
            round(small, threads, "warm-up-2", SMALL);
            Rates at1k = round(q, threads, "1k-a", SMALL);

            long fillStart = System.nanoTime();
            fill(name, SMALL, LARGE);
            long fillNanos = System.nanoTime() - fillStart;
            assertThat(q.stats().delayed()).isEqualTo(LARGE);
            // Interleaved, best of three each: on a shared machine the best round is the least disturbed one.
            Rates at1M = round(q, threads, "1M-a", LARGE);
            for (String r : new String[] {"b", "c"}) {
                at1k = at1k.best(round(small, threads, "1k-" + r, SMALL));
                at1M = at1M.best(round(q, threads, "1M-" + r, LARGE));
            }
            assertThat(q.stats().delayed()).isEqualTo(LARGE);

            report("RedisQueueScaleIT", "backlog filled to %,d in %d ms (%.0f offers/s, offer.lua with 1,000 "
                    + "messages per call)",
                    LARGE, millis(fillNanos), perSecond(LARGE - SMALL, fillNanos));
            report("RedisQueueScaleIT", "offer    %,8.0f/s at 1k pending, %,8.0f/s at 1M pending: %3.0f%%",
                    at1k.offer, at1M.offer, 100 * at1M.offer / at1k.offer);
            report("RedisQueueScaleIT", "cancel   %,8.0f/s at 1k pending, %,8.0f/s at 1M pending: %3.0f%%",
                    at1k.cancel, at1M.cancel, 100 * at1M.cancel / at1k.cancel);
            report("RedisQueueScaleIT", "delivery %,8.0f/s at 1k pending, %,8.0f/s at 1M pending: %3.0f%% "
                    + "(poll + ack, %d threads, best of 3 rounds of %,d)", at1k.delivery, at1M.delivery,
                    100 * at1M.delivery / at1k.delivery, THREADS, SAMPLE);
            assertThat(at1M.offer).as("offers/s at 1M vs 1k").isGreaterThanOrEqualTo(at1k.offer / 4);
            assertThat(at1M.cancel).as("cancels/s at 1M vs 1k").isGreaterThanOrEqualTo(at1k.cancel / 4);
            assertThat(at1M.delivery).as("deliveries/s at 1M vs 1k").isGreaterThanOrEqualTo(at1k.delivery / 4);
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * One measured round with {@code backlog} messages pending an hour away: offers {@link #SAMPLE} messages due
     * later (timed), cancels them (timed), then offers {@link #SAMPLE} due now and delivers them (poll + ack, timed).
     */
    private Rates round(RedisDelayedQueue<String> q, ExecutorService threads, String label, int backlog)
            throws Exception {
        String[] ids = new String[SAMPLE];
        for (int i = 0; i < SAMPLE; i++) {
            ids[i] = label + "-" + i;
        }
        long offerNanos = parallel(threads, i -> assertThat(q.offer(ids[i], "v", Duration.ofMillis(
                HOUR_MS + (i * 7919L) % HOUR_MS))).isTrue());
        long cancelNanos = parallel(threads, i -> assertThat(q.cancel(ids[i])).isTrue());
        parallel(threads, i -> assertThat(q.offer(ids[i] + "-now", "v", Duration.ZERO)).isTrue());
        AtomicInteger delivered = new AtomicInteger();
        long deliveryNanos = parallel(threads, i -> {
            try {
                Delivery<String> d = q.poll(Duration.ofSeconds(10));
                assertThat(d).isNotNull();
                assertThat(d.ack()).isTrue();
                delivered.incrementAndGet();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(delivered.get()).isEqualTo(SAMPLE);
        assertThat(q.stats().total()).isEqualTo(backlog);
        return new Rates(perSecond(SAMPLE, offerNanos), perSecond(SAMPLE, cancelNanos),
                perSecond(SAMPLE, deliveryNanos));
    }

    /** Runs {@code op(0..SAMPLE-1)} on {@link #THREADS} threads; returns the elapsed nanoseconds. */
    private static long parallel(ExecutorService threads, IntConsumer op) throws Exception {
        long start = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int first = t;
            fs.add(threads.submit(() -> {
                for (int i = first; i < SAMPLE; i += THREADS) {
                    op.accept(i);
                }
            }));
        }
        for (Future<?> f : fs) {
            f.get(60, TimeUnit.SECONDS);
        }
        return System.nanoTime() - start;
    }

    /**
     * Offers backlog messages {@code from..to-1}, due within an hour after the next hour, with {@code offer.lua}
     * itself, 1,000 messages per call (the shape of an {@code offerAll} batch, each message with its own delay), so
     * the data is exactly what offers leave, without a million round trips. The settings argument carries no
     * compactAfter, so every message is filed in the pending set, not the compact store.
     */
    private void fill(String name, int from, int to) throws Exception {
        byte[][] keys = new KeyLayout(name, 1, false).keys(Script.OFFER, 0);
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE)) {
            RedisAsyncCommands<byte[], byte[]> async = c.async();
            String sha = async.scriptLoad(Script.OFFER.body()).get(10, TimeUnit.SECONDS);
            int chunk = 1_000;
            List<RedisFuture<List<Long>>> calls = new ArrayList<>();
            for (int first = from; first < to; first += chunk) {
                int last = Math.min(to, first + chunk) - 1;
                // settings (maxAttempts only), '' (each message carries its delay), '' (every id checked: keep)
                List<byte[]> args = new ArrayList<>(List.of(bytes("5"), bytes(""), bytes("")));
                for (int i = first; i <= last; i++) {
                    args.add(bytes("b-" + i));
                    args.add(bytes("backlog"));
                    args.add(bytes(HOUR_MS + (i * 7919L) % HOUR_MS));
                }
                calls.add(async.evalsha(sha, ScriptOutputType.MULTI, keys, args.toArray(new byte[0][])));
                if (calls.size() == 8) { // a few calls in flight keep Redis busy
                    await(calls.remove(0));
                }
            }
            for (RedisFuture<List<Long>> f : calls) {
                await(f);
            }
        } finally {
            client.shutdown();
        }
        assertThat(new ServerCount(redis.uri(), name).pending()).isEqualTo(to);
    }

    /** Waits for one fill call: every message it carried was added (code 1; the last element is the signal flag). */
    private static void await(RedisFuture<List<Long>> call) throws Exception {
        List<Long> codes = call.get(60, TimeUnit.SECONDS);
        assertThat(codes.subList(0, codes.size() - 1)).containsOnly(1L);
    }

    private static byte[] bytes(Object o) {
        return String.valueOf(o).getBytes(StandardCharsets.US_ASCII);
    }

    /** Counts a queue's pending messages on the server. */
    private record ServerCount(String uri, String name) {
        long pending() {
            RedisClient client = RedisClient.create(uri);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                // Due times (ms, below 2^53): keep.lua's member, at +inf, keeps the set in skiplist encoding.
                return c.sync().zcount(KeyLayout.prefix(name, 0) + "pending", Range.create(0d, 1e18));
            } finally {
                client.shutdown();
            }
        }
    }
}

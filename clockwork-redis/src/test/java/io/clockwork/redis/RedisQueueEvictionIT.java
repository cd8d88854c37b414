package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A server that may evict keys is refused unless the user accepts it, and a message whose keys are half gone (as
 * eviction leaves them: Redis deletes whole keys) never wedges the queue: it is dropped, counted in
 * {@link QueueStats#lost()}, and every other message keeps flowing. Half-gone states are made with {@code DEL} of one
 * of the queue's keys on a real server, exactly what an eviction does, so the outcome is deterministic; one test
 * fills a small {@code maxmemory} with real eviction.
 */
class RedisQueueEvictionIT {

    private static final Duration FAR = Duration.ofHours(1);

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private RedisServerProcess server(String... config) {
        RedisServerProcess.Builder b = RedisServerProcess.builder();
        for (int i = 0; i < config.length; i += 2) {
            b.config(config[i], config[i + 1]);
        }
        RedisServerProcess s = b.start();
        open.add(s);
        return s;
    }

    private <V> RedisDelayedQueue<V> track(RedisDelayedQueue<V> q) {
        open.add(q);
        return q;
    }

    @Test
    void buildRefusesAServerWhosePolicyEvictsNamingThePolicyAndTheFix() {
        for (String policy : List.of("allkeys-lru", "volatile-ttl")) {
            RedisServerProcess redis = server("maxmemory-policy", policy);
            assertThatThrownBy(() -> RedisDelayedQueue.builder(redis.uri(), "refused", Codec.string()).build())
                    .isInstanceOf(RedisQueueException.class)
                    .hasMessageContaining("maxmemory-policy " + policy)
                    .hasMessageContaining("noeviction")
                    .hasMessageContaining("allowEvictingServer()");
            assertThat(redis.call("DBSIZE")).as("nothing written").isEqualTo(0L);
        }
    }

    @Test
    void aServerThatDoesNotEvictIsAcceptedAndAnEvictingOneOnlyWhenTheUserOptsIn() throws Exception {
        RedisServerProcess safe = server();
        track(RedisDelayedQueue.builder(safe.uri(), "safe", Codec.string()).build()).offer("x", Duration.ZERO);

        RedisServerProcess lru = server("maxmemory-policy", "allkeys-lru");
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(lru.uri(), "accepted", Codec.string())
                .allowEvictingServer().build());
        q.offer("x", Duration.ZERO);
        assertThat(q.poll(Duration.ofSeconds(5)).ack()).isTrue();
        assertThatThrownBy(() -> RedisDelayedQueue.builder(lru.uri(), "twice", Codec.string())
                .allowEvictingServer().allowEvictingServer()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("allowEvictingServer");
    }

    @Test
    void messagesWhoseStateWasEvictedAreDroppedAndCountedWhileTheOthersFlow() throws Exception {
        RedisServerProcess redis = server();
        String name = "half-gone";
        String p = KeyLayout.prefix(name, 0);
        // The per-message layout (RedisCompactStoreIT evicts a compact store's chunk).
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .compactAfter(DelayedQueue.MAX_DELAY.plusMillis(1)).build());
        for (int i = 0; i < 10; i++) {
            q.offer("gone-" + i, "v", Duration.ZERO);
        }
        redis.call("DEL", p + "meta"); // the states and payloads of all ten: their schedule entries remain

        for (int i = 0; i < 5; i++) {
            q.offer("kept-" + i, "v" + i, Duration.ZERO);
        }
        Set<String> got = new HashSet<>();
        for (Delivery<String> d : drain(q)) {
            got.add(d.id());
            assertThat(d.ack()).isTrue();
        }
        assertThat(got).containsExactlyInAnyOrder("kept-0", "kept-1", "kept-2", "kept-3", "kept-4");
        assertThat(q.stats()).isEqualTo(new QueueStats(0, 0, 0, 0, 10, java.util.Optional.empty()));

        // The schedule evicted instead: the states left behind are counted as lost; new messages still flow.
        q.offer("orphan-1", "v", FAR);
        q.offer("orphan-2", "v", FAR);
        redis.call("DEL", p + "pending");
        assertThat(q.stats().lost()).isEqualTo(12);
        q.offer("after", "v", Duration.ZERO);
        Delivery<String> after = q.poll(Duration.ofSeconds(5));
        assertThat(after.id()).isEqualTo("after");
        assertThat(after.ack()).isTrue();
    }

    @Test
    void anIdOfferedAgainAfterItsStateWasEvictedIsDeliveredOnceAndTheOldEntryCountedLost() throws Exception {
        RedisServerProcess redis = server();
        String name = "ghost";
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).build());
        q.offer("order-1", "first", Duration.ZERO);
        redis.call("DEL", KeyLayout.prefix(name, 0) + "meta");
        assertThat(q.offer("order-1", "second", Duration.ZERO)).as("its old state is gone: a new message").isTrue();

        List<Delivery<String>> got = drain(q);
        assertThat(got).extracting(Delivery::value).containsExactly("second");
        assertThat(got.get(0).ack()).isTrue();
        assertThat(q.stats().lost()).isEqualTo(1);
        assertThat(q.stats().total()).isZero();
    }

    @Test
    void deliveriesWhoseStateWasEvictedAreCountedOnExpiryNackAndTheDeadLettersLikewise() throws Exception {
        RedisServerProcess redis = server();
        String name = "in-flight-gone";
        String p = KeyLayout.prefix(name, 0);
        RedisDelayedQueue<String> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .visibilityTimeout(Duration.ofMillis(800)).maxAttempts(1).build());
        q.offer("expires", "v", Duration.ZERO);
        q.offer("nacked", "v", Duration.ZERO);
        q.offer("dies", "v", Duration.ZERO);
        List<Delivery<String>> flying = q.poll(3, Duration.ofSeconds(5));
        assertThat(flying).hasSize(3);
        Delivery<String> dies = flying.stream().filter(d -> d.id().equals("dies")).findFirst().orElseThrow();
        assertThat(dies.nack(Duration.ZERO)).as("maxAttempts 1: buried").isTrue();
        assertThat(q.deadLetters(10)).extracting(l -> l.id()).containsExactly("dies");
        redis.call("DEL", p + "meta");

        Delivery<String> nacked = flying.stream().filter(d -> d.id().equals("nacked")).findFirst().orElseThrow();
        assertThat(nacked.nack(Duration.ZERO)).as("its state is gone: not held").isFalse();
        assertThat(q.deadLetters(10)).as("the dead letter's state is gone").isEmpty();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (q.stats().lost() < 3 && System.nanoTime() < deadline) {
            assertThat(q.poll(Duration.ofMillis(20))).isNull(); // the expired delivery is met by the sweep
        }
        assertThat(q.stats()).isEqualTo(new QueueStats(0, 0, 0, 0, 3, java.util.Optional.empty()));
        q.offer("next", "v", Duration.ZERO);
        assertThat(q.poll(Duration.ofSeconds(5)).id()).isEqualTo("next");
    }

    @Test
    void underRealEvictionPollingNeverFailsAndTheQueueKeepsFlowing() throws Exception {
        RedisServerProcess redis = server("maxmemory", "4mb", "maxmemory-policy", "allkeys-random");
        String name = "evicted";
        RedisDelayedQueue<byte[]> q = track(RedisDelayedQueue.builder(redis.uri(), name, Codec.bytes())
                .allowEvictingServer().build());
        int offered = 1000;
        byte[] payload = new byte[10 * 1024];
        for (int i = 0; i < offered; i++) {
            q.offer("m-" + i, payload, Duration.ZERO);
        }
        assertThat(info(redis, "evicted_keys:")).as("Redis evicted keys").isPositive();
        int delivered = 0;
        for (Delivery<byte[]> d : drain(q)) {
            delivered++;
            d.ack();
        }
        // A message whose every key was evicted leaves no trace to count (hence the refusal at build()); one with a
        // key left is counted. Either way polling goes on, and nothing is delivered that was not offered.
        QueueStats stats = q.stats();
        assertThat(stats.total()).isZero();
        assertThat(delivered + stats.lost()).isLessThanOrEqualTo(offered);
        q.offer("after", new byte[] {1}, Duration.ZERO);
        assertThat(q.poll(Duration.ofSeconds(5)).id()).isEqualTo("after");
    }

    @Test
    void atMaxmemoryWithoutEvictionOffersFailWithOomAndEveryStoredMessageIsDelivered() throws Exception {
        RedisServerProcess redis = server("maxmemory", "4mb", "maxmemory-policy", "noeviction");
        RedisDelayedQueue<byte[]> q = track(RedisDelayedQueue.builder(redis.uri(), "full", Codec.bytes()).build());
        byte[] payload = new byte[10 * 1024];
        Set<String> stored = new HashSet<>();
        RedisQueueException refused = null;
        for (int i = 0; i < 2000 && refused == null; i++) {
            try {
                stored.add(q.offer(payload, Duration.ZERO));
            } catch (RedisQueueException e) {
                refused = e;
            }
        }
        assertThat(refused).as("an offer refused at maxmemory").isNotNull();
        assertThat(refused.getMessage()).contains("OOM");
        Set<String> delivered = new HashSet<>();
        for (Delivery<byte[]> d : drain(q)) {
            assertThat(d.ack()).isTrue();
            delivered.add(d.id());
        }
        assertThat(delivered).isEqualTo(stored);
        assertThat(q.stats()).isEqualTo(new QueueStats(0, 0, 0, 0, 0, java.util.Optional.empty()));
    }

    /** Polls until a poll finds nothing (each message here is due at once). */
    private static <V> List<Delivery<V>> drain(RedisDelayedQueue<V> q) throws InterruptedException {
        List<Delivery<V>> all = new ArrayList<>();
        while (true) {
            List<Delivery<V>> batch = q.poll(100, Duration.ZERO);
            if (batch.isEmpty() && q.stats().ready() == 0) {
                return all;
            }
            all.addAll(batch);
        }
    }

    private static long info(RedisServerProcess redis, String field) {
        for (String line : String.valueOf(redis.call("INFO", "stats")).split("\r?\n")) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.substring(field.length()).trim());
            }
        }
        throw new AssertionError("no " + field + " in INFO stats");
    }
}

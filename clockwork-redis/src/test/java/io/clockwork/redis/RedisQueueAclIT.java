package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The minimal ACL that docs/redis-queue.md ("Running it in production") gives is enough for every operation of the
 * queue and its operators' calls, and confines a user to its queue's keys. The ACL is read from the document itself,
 * so the two cannot drift apart.
 */
@ExtendWith(RedisExtension.class)
class RedisQueueAclIT {

    private static final Path DOC = Path.of("..", "docs", "redis-queue.md");

    private final RedisServerProcess redis;

    RedisQueueAclIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    /** The documented {@code ACL SETUSER} line, split into arguments, for user {@code user} and queue {@code queue}. */
    private static List<String> documentedAcl(String user, String queue) throws IOException {
        for (String line : Files.readAllLines(DOC)) {
            String t = line.trim();
            if (t.startsWith("ACL SETUSER ")) {
                List<String> args = new ArrayList<>();
                for (String word : t.split("\\s+")) {
                    args.add(word.replace("QUEUE_USER", user).replace("PASSWORD", "s3cret").replace("QUEUE", queue));
                }
                return args;
            }
        }
        throw new AssertionError("no line starting with 'ACL SETUSER' in " + DOC.toAbsolutePath());
    }

    /** The documented line as the doc says to adapt it to this server: on Redis 6.2, scripts instead of functions. */
    private List<String> aclForThisServer(String user, String queue) throws IOException {
        List<String> args = documentedAcl(user, queue);
        if (!redis.hasFunctions()) {
            args.replaceAll(a -> a.equals("+fcall") ? "+evalsha" : a.equals("+function|load") ? "+script|load" : a);
        }
        return args;
    }

    private String uriOf(String user) {
        return "redis://" + user + ":s3cret@127.0.0.1:" + redis.port();
    }

    @Test
    void theDocumentedAclRunsEveryOperationAndNothingOutsideItsQueue() throws Exception {
        redis.call(aclForThisServer("orders-app", "orders").toArray(String[]::new));
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uriOf("orders-app"), "orders", Codec.string())
                .partitions(2).maxAttempts(1).visibilityTimeout(Duration.ofSeconds(30))
                .compactAfter(Duration.ofMinutes(1)).retryOnConnectionLoss(Duration.ofSeconds(5)).build()) {
            String id = q.offer("a", Duration.ZERO);
            assertThat(q.runsFunctions()).as("functions where the server has them").isEqualTo(redis.hasFunctions());
            // Placed in the compact store, its place recorded for a retry (the placed stream).
            String far = q.offer("far", Duration.ofHours(1));
            assertThat(redis.call("EXISTS", KeyLayout.prefix("orders", new PartitionSelector(2).partitionOf(far))
                    + "placed")).isEqualTo(1L);
            assertThat(q.cancel(far)).isTrue();
            assertThat(q.offerAll(Map.of("b", "b", "c", "c"), Duration.ZERO)).hasSize(2);
            assertThat(q.offer("later", "x", Duration.ofHours(1))).isTrue();
            assertThat(q.reschedule("later", Duration.ofHours(2))).isTrue();
            assertThat(q.cancel("later")).isTrue();
            q.pause();
            assertThat(q.isPaused()).isTrue();
            assertThat(q.poll(3, Duration.ZERO)).isEmpty();
            q.resume();
            assertThat(q.isPaused()).isFalse();
            List<Delivery<String>> got = q.poll(3, Duration.ofSeconds(5));
            assertThat(got).hasSize(3);
            Delivery<String> first = got.get(0);
            assertThat(first.ack()).isTrue();
            assertThat(q.ackAll(got.subList(1, 2))).containsExactly(true);
            assertThat(got.get(2).nack(Duration.ZERO)).as("maxAttempts 1: dead").isTrue();
            assertThat(q.deadLetters(10)).hasSize(1);
            assertThat(q.requeueDead(got.get(2).id())).isTrue();
            Delivery<String> again = q.poll(Duration.ofSeconds(5));
            assertThat(again.id()).isEqualTo(got.get(2).id());
            assertThat(again.nack(Duration.ZERO)).isTrue();
            // Nothing due yet: the poll waits on the wake-up signal (BLPOP) until the message falls due.
            q.offer("blocked", "x", Duration.ofMillis(300));
            Delivery<String> waited = q.poll(Duration.ofSeconds(5));
            assertThat(waited.id()).isEqualTo("blocked");
            assertThat(waited.ack()).isTrue();
            assertThat(q.purgeDead()).isEqualTo(1);
            assertThat(q.poll(Duration.ofMillis(200))).isNull();
            assertThat(q.stats().total()).isZero();
            assertThat(q.exists()).isTrue();
            assertThat(id).isNotEmpty();
            assertThat(q.delete()).isPositive();
        }
        try (RedisDelayedQueue<String> reopened = RedisDelayedQueue.builder(uriOf("orders-app"), "orders",
                Codec.string()).build()) {
            assertThat(reopened.partitions()).isEqualTo(1);
        }
        assertThatThrownBy(() -> RedisDelayedQueue.builder(uriOf("orders-app"), "payments", Codec.string()).build())
                .as("another queue's keys").hasMessageContaining("NOPERM");
    }

    @Test
    void theDocumentedAclRunsARateLimitedQueue() throws Exception {
        redis.call(aclForThisServer("limited-app", "limited").toArray(String[]::new));
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uriOf("limited-app"), "limited", Codec.string())
                .partitions(2).rateLimit(2, Duration.ofMillis(200)).build()) {
            for (int i = 0; i < 6; i++) {
                q.offer("m" + i, Duration.ZERO);
            }
            assertThat(q.rateLimit()).isPresent();
            List<Delivery<String>> got = q.poll(4, Duration.ZERO);
            assertThat(got).as("the two permits, from either partition").hasSize(2);
            // The next poll waits for the permits of the first two deliveries, whose log members it then trims.
            assertThat(q.poll(4, Duration.ofSeconds(5))).isNotEmpty();
            assertThat(q.ackAndPoll(got.get(0)).acked()).isTrue();
            assertThat(q.counters().orElseThrow().delivered()).isGreaterThanOrEqualTo(3);
            assertThat(q.delete()).isPositive();
        }
    }
}

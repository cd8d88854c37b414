package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Data written before payloads moved into the META hash (META {@code "<state> <attempts> <seq in decimal>"}, the
 * payload in the PAYLOAD hash, state F while in flight) stays readable: the current scripts deliver, expire, bury,
 * cancel, reschedule, list, requeue and purge it, and move each payload into META when they rewrite its state.
 * The old layout is written here with plain commands, exactly as the old scripts left it.
 */
@ExtendWith(RedisExtension.class)
class RedisQueueLegacyFormatIT {

    private final RedisServerProcess redis;
    private final ServerClock clock;
    private RedisDelayedQueue<String> queue;

    RedisQueueLegacyFormatIT(RedisServerProcess redis) {
        this.redis = redis;
        this.clock = new ServerClock(redis.uri());
    }

    @AfterEach
    void cleanUp() {
        if (queue != null) {
            queue.close();
        }
        clock.close();
    }

    /** Writes one message as the old scripts did: its member in {@code set}, META and PAYLOAD apart. */
    private void legacy(String prefix, String set, long score, long seq, String id, String meta, String payload) {
        redis.call("ZADD", prefix + set, Long.toString(score), String.format("%016x", seq) + id);
        redis.call("HSET", prefix + "meta", id, meta);
        redis.call("HSET", prefix + "payload", id, payload);
    }

    @Test
    void messagesStoredInTheOldFormatAreDeliveredExpiredBuriedCancelledAndMigrated() throws Exception {
        String name = "legacy-format";
        String p = KeyLayout.prefix(name, 0);
        long now = clock.nowMillis();
        long far = now + Duration.ofHours(1).toMillis();
        legacy(p, "pending", now - 1000, 1, "old-ready", "D 0 1", "ready");
        legacy(p, "pending", far, 2, "old-later", "D 0 2", "later");
        legacy(p, "pending", far, 3, "old-cancel", "D 0 3", "cancel me");
        legacy(p, "inflight", now - 1000, 4, "old-inflight", "F 1 4", "flying");
        legacy(p, "dead", now - 5000, 5, "old-dead", "X 3 5", "dead");
        redis.call("HSET", p + "reason", "old-dead", "boom");
        legacy(p, "inflight", now - 1000, 6, "old-exhausted", "F 3 6", "exhausted");
        redis.call("SET", p + "seq", "6");
        queue = RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).maxAttempts(3)
                .visibilityTimeout(Duration.ofMinutes(5)).build();

        // The sweep returns the expired legacy delivery (attempt 1 of 3) and buries the one at its last attempt.
        Map<String, DeadLetter> dead = queue.deadLetters(10).stream()
                .collect(Collectors.toMap(DeadLetter::id, Function.identity()));
        assertThat(dead).containsOnlyKeys("old-dead", "old-exhausted");
        assertThat(new String(dead.get("old-dead").payload(), StandardCharsets.UTF_8)).isEqualTo("dead");
        assertThat(dead.get("old-dead").attempts()).isEqualTo(3);
        assertThat(dead.get("old-dead").reason()).isEqualTo("boom");
        assertThat(new String(dead.get("old-exhausted").payload(), StandardCharsets.UTF_8)).isEqualTo("exhausted");
        assertThat(dead.get("old-exhausted").attempts()).isEqualTo(3);
        assertThat(dead.get("old-exhausted").reason()).isEqualTo("maxAttempts (3) reached");

        assertThat(queue.cancel("old-cancel")).isTrue();
        assertThat(queue.cancel("old-cancel")).isFalse();
        assertThat(queue.reschedule("old-later", Duration.ZERO)).isTrue();
        assertThat(queue.offer("old-ready", "a duplicate", Duration.ZERO)).as("dedup sees old ids").isFalse();

        List<Delivery<String>> got = queue.poll(10, Duration.ZERO);
        assertThat(got).extracting(Delivery::id).containsExactly("old-ready", "old-inflight", "old-later");
        assertThat(got).extracting(Delivery::value).containsExactly("ready", "flying", "later");
        assertThat(got).extracting(Delivery::attempt).containsExactly(1, 2, 1);
        assertThat(redis.call("HEXISTS", p + "payload", "old-ready")).as("moved into META by the poll")
                .isEqualTo(0L);

        // A nack of a delivery of an old message schedules it again (attempt 2), payload intact.
        assertThat(got.get(0).nack(Duration.ZERO)).isTrue();
        assertThat(queue.ackAll(got.subList(1, 3))).containsExactly(true, true);
        Delivery<String> again = queue.poll(Duration.ZERO);
        assertThat(again.id()).isEqualTo("old-ready");
        assertThat(again.value()).isEqualTo("ready");
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(got.get(0).ack()).as("the first delivery's receipt no longer holds it").isFalse();
        assertThat(again.ack()).isTrue();

        assertThat(queue.requeueDead("old-dead")).isTrue();
        Delivery<String> requeued = queue.poll(Duration.ZERO);
        assertThat(requeued.id()).isEqualTo("old-dead");
        assertThat(requeued.value()).isEqualTo("dead");
        assertThat(requeued.attempt()).isEqualTo(1);
        assertThat(requeued.ack()).isTrue();
        assertThat(queue.purgeDead()).isEqualTo(1);

        assertThat(queue.stats().total()).isZero();
        assertThat(redis.call("EXISTS", p + "payload")).as("every old payload moved or deleted").isEqualTo(0L);
        assertThat(redis.call("HLEN", p + "meta")).as("no message's state left").isEqualTo(0L);
    }
}

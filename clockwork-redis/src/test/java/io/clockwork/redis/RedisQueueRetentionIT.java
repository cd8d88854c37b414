package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dead-letter retention on Redis: each script trims a bounded number (so every script stays O(log n) amortized),
 * and the count bound is divided among the partitions.
 */
@ExtendWith(RedisExtension.class)
class RedisQueueRetentionIT {

    private final RedisServerProcess redis;

    RedisQueueRetentionIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    private static void kill(RedisDelayedQueue<String> q, int n) throws InterruptedException {
        for (int i = 0; i < n; i++) {
            q.offer("bad " + i, Duration.ZERO);
        }
        for (int i = 0; i < n; i++) {
            Delivery<String> d = q.poll(Duration.ofSeconds(5));
            assertThat(d.deadLetter("bad")).isTrue();
        }
    }

    @Test
    void aDeathTrimsAtMostTenAndStatsTrimTheRestWithinItsBound() throws InterruptedException {
        try (RedisDelayedQueue<String> keepAll = RedisDelayedQueue.builder(redis.uri(), "retained", Codec.string())
                .deadLetterRetention(Duration.ofDays(1), 1000).build();
             RedisDelayedQueue<String> strict = RedisDelayedQueue.builder(redis.uri(), "retained", Codec.string())
                     .deadLetterRetention(Duration.ofDays(1), 5).build()) {
            kill(keepAll, 50);
            assertThat(keepAll.stats().dead()).isEqualTo(50);
            kill(strict, 1);
            QueueStats afterDeath = keepAll.stats(); // the lax client's stats trim nothing more
            assertThat(afterDeath.dead()).as("51 dead, 10 trimmed by the death").isEqualTo(41);
            assertThat(afterDeath.trimmed()).isEqualTo(10);
            QueueStats trimmed = strict.stats();
            assertThat(trimmed.dead()).isEqualTo(5);
            assertThat(trimmed.trimmed()).isEqualTo(46);
            List<String> reasons = new ArrayList<>();
            for (DeadLetter l : strict.deadLetters(10)) {
                reasons.add(l.reason());
            }
            assertThat(reasons).hasSize(5).containsOnly("bad");
        }
    }

    @Test
    void theCountBoundIsDividedAmongThePartitions() throws InterruptedException {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "spread-dead", Codec.string())
                .partitions(4).deadLetterRetention(Duration.ofDays(1), 8).build()) {
            kill(q, 200);
            QueueStats s = q.stats();
            assertThat(s.dead()).isLessThanOrEqualTo(8).isGreaterThan(0);
            assertThat(s.dead() + s.trimmed()).isEqualTo(200);
        }
    }
}

package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The async calls when Redis stops answering: a stage fails over to the retries after the command timeout and
 * completes once the server is back (each message added once), or, with no retries configured, completes
 * exceptionally instead of throwing or hanging.
 */
@ExtendWith(RedisExtension.class)
class RedisQueueAsyncIT {

    private final RedisServerProcess redis;

    RedisQueueAsyncIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Test
    void asyncOffersOfAPausedServerCompleteOnceItAnswersAgainAndAddEachMessageOnce() throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "async-paused", Codec.string())
                .commandTimeout(Duration.ofMillis(300))
                .retryOnConnectionLoss(Duration.ofSeconds(30))
                .build()) {
            redis.pause();
            List<CompletableFuture<String>> sent = new ArrayList<>();
            try {
                for (int i = 0; i < 50; i++) {
                    sent.add(q.offerAsync("m" + i, Duration.ZERO).toCompletableFuture());
                }
                Thread.sleep(1500); // well past the command timeout: the retries are waiting
                assertThat(sent).noneMatch(CompletableFuture::isDone);
            } finally {
                redis.resume();
            }
            Set<String> ids = new HashSet<>();
            for (CompletableFuture<String> f : sent) {
                ids.add(f.get(30, TimeUnit.SECONDS));
            }
            assertThat(ids).hasSize(50);
            Set<String> delivered = new HashSet<>();
            for (Delivery<String> d = q.poll(Duration.ZERO); d != null; d = q.poll(Duration.ZERO)) {
                assertThat(delivered.add(d.id())).as("delivered once: %s", d.id()).isTrue();
            }
            assertThat(delivered).isEqualTo(ids);
        }
    }

    @Test
    void withoutRetriesAnAsyncOfferOfAPausedServerCompletesExceptionallyAfterTheCommandTimeout() throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "async-fail", Codec.string())
                .commandTimeout(Duration.ofMillis(300))
                .build()) {
            redis.pause();
            try {
                CompletableFuture<String> f = q.offerAsync("a", Duration.ZERO).toCompletableFuture();
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                        .cause().isInstanceOf(RedisQueueException.class).hasMessageContaining("async-fail");
            } finally {
                redis.resume();
            }
        }
    }
}

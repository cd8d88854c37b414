package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The partition count is stored with the queue, so clients cannot disagree on it; and a queue can be deleted. */
@ExtendWith(RedisExtension.class)
class RedisQueuePartitionCountIT {

    private final RedisServerProcess redis;
    private final List<RedisDelayedQueue<?>> queues = new ArrayList<>();

    RedisQueuePartitionCountIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @AfterEach
    void cleanUp() {
        queues.forEach(RedisDelayedQueue::close);
    }

    private RedisQueueBuilder<String> builder(String name) {
        return RedisDelayedQueue.builder(redis.uri(), name, Codec.string());
    }

    private <V> RedisDelayedQueue<V> track(RedisDelayedQueue<V> q) {
        queues.add(q);
        return q;
    }

    @Test
    void aConsumerWithoutACountAdoptsTheStoredOneAndGetsEveryMessage() throws Exception {
        RedisDelayedQueue<String> producer = track(builder("adopt").partitions(4).build());
        for (int i = 0; i < 100; i++) {
            producer.offer("m-" + i, "v", Duration.ZERO);
        }
        RedisDelayedQueue<String> consumer = track(builder("adopt").build());
        assertThat(consumer.partitions()).isEqualTo(4);
        assertThat(consumer.stats().ready()).isEqualTo(100);
        Set<String> got = new HashSet<>();
        List<Delivery<String>> batch;
        while (!(batch = consumer.poll(100, Duration.ZERO)).isEmpty()) {
            batch.forEach(d -> got.add(d.id()));
            consumer.ackAll(batch);
        }
        assertThat(got).hasSize(100);
    }

    @Test
    void aClientAskingForAnotherCountFailsAtBuildNamingBothCounts() {
        track(builder("mismatch").partitions(4).build());
        assertThatThrownBy(() -> builder("mismatch").partitions(1).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has 4 partition(s)")
                .hasMessageContaining("asks for 1")
                .hasMessageContaining("Changing the partition count");
        assertThat(track(builder("mismatch").partitions(4).build()).partitions()).isEqualTo(4);
        assertThat(track(builder("fresh").build()).partitions()).as("a new queue without a count").isEqualTo(1);
        assertThatThrownBy(() -> builder("fresh").partitions(2).build()).hasMessageContaining("has 1 partition(s)");
    }

    @Test
    void openExistingRefusesAnUnknownQueueAndWritesNothing() {
        long keys = (Long) redis.call("DBSIZE");
        assertThatThrownBy(() -> builder("no-such-queue").openExisting().build())
                .isInstanceOf(QueueNotFoundException.class)
                .hasMessageContaining("no queue 'no-such-queue' on redis://127.0.0.1:" + redis.port());
        assertThat(redis.call("DBSIZE")).isEqualTo(keys);

        track(builder("known").partitions(3).build());
        assertThat(track(builder("known").openExisting().build()).partitions()).isEqualTo(3);
    }

    @Test
    void aQueueWhoseStoredCountIsGoneNeedsTheCountOnceWhenItHasSeveralPartitions() throws Exception {
        RedisDelayedQueue<String> old = track(builder("legacy-count").partitions(4).build());
        for (int i = 0; i < 40; i++) {
            old.offer("m-" + i, "v", Duration.ofHours(1));
        }
        redis.call("DEL", new String(KeyLayout.configKey("legacy-count"))); // the stored count gone, the data left
        assertThatThrownBy(() -> builder("legacy-count").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("more than one partition");
        assertThat(track(builder("legacy-count").partitions(4).build()).stats().delayed()).isEqualTo(40);
        assertThat(track(builder("legacy-count").build()).partitions()).as("stored now").isEqualTo(4);

        RedisDelayedQueue<String> single = track(builder("legacy-one").build());
        single.offer("x", Duration.ofHours(1));
        redis.call("DEL", new String(KeyLayout.configKey("legacy-one")));
        assertThat(track(builder("legacy-one").build()).partitions()).isEqualTo(1);
    }

    @Test
    void deleteRemovesEveryKeyOfTheQueueAndLeavesOthersAlone() throws Exception {
        RedisDelayedQueue<String> other = track(builder("neighbour").build());
        other.offer("stays", Duration.ofHours(1));
        long before = (Long) redis.call("DBSIZE");
        RedisDelayedQueue<String> q = track(builder("doomed").partitions(3).build());
        for (int i = 0; i < 30; i++) {
            q.offer("m-" + i, "v", Duration.ZERO);
        }
        List<Delivery<String>> taken = q.poll(5, Duration.ZERO);
        taken.get(0).nack(Duration.ZERO);
        assertThat(redis.call("DBSIZE")).isNotEqualTo(before);

        assertThat(q.delete()).isPositive();
        assertThat(redis.call("DBSIZE")).isEqualTo(before);
        assertThat(redis.call("KEYS", "cw:{doomed*")).asList().isEmpty();
        assertThat(other.stats().delayed()).isEqualTo(1);
        assertThat(q.stats().total()).isZero();
        assertThatThrownBy(() -> builder("doomed").openExisting().build())
                .isInstanceOf(QueueNotFoundException.class);
    }
}

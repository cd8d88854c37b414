package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.queue.FlowControlContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link FlowControlContract} on a real {@code redis-server}, plus what only a shared backend promises: a pause
 * is stored with the queue, so every client sees it, and it outlives the client that made it.
 */
@ExtendWith(RedisExtension.class)
class RedisFlowControlIT extends FlowControlContract {

    private final RedisServerProcess redis;
    private final ContractQueues queues;

    RedisFlowControlIT(RedisServerProcess redis) {
        this.redis = redis;
        this.queues = new ContractQueues(redis, "flow-");
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    /** A client of a queue of 4 partitions, each with a pause flag of its own. */
    private RedisDelayedQueue<String> open(String name) {
        return queues.track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).partitions(4).build());
    }

    @Override
    protected void passTime(Duration amount) {
        queues.passTime(amount);
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }

    @Test
    void aPauseHoldsForEveryClientAndOutlivesTheClientThatMadeIt() throws Exception {
        RedisDelayedQueue<String> producer = open("flow-shared");
        for (int i = 0; i < 8; i++) {
            producer.offer("m" + i, Duration.ZERO);
        }
        producer.pause();
        producer.close();
        RedisDelayedQueue<String> consumer = open("flow-shared");
        assertThat(consumer.isPaused()).isTrue();
        assertThat(consumer.poll(8, Duration.ZERO)).isEmpty();
        RedisDelayedQueue<String> operator = open("flow-shared");
        operator.resume();
        assertThat(consumer.isPaused()).isFalse();
        // A batch poll returns what it finds ready without waiting to fill up: take until all 8 came.
        int taken = 0;
        for (int polls = 0; polls < 100 && taken < 8; polls++) {
            taken += consumer.poll(8, Duration.ofSeconds(5)).size();
        }
        assertThat(taken).isEqualTo(8);
    }

    @Test
    void aPauseCoversEveryPartition() {
        RedisDelayedQueue<String> q = open("flow-partitions");
        q.pause();
        for (int p = 0; p < 4; p++) {
            assertThat(redis.call("EXISTS", KeyLayout.prefix("flow-partitions", p) + "paused"))
                    .as("partition %d", p).isEqualTo(1L);
        }
        q.resume();
        for (int p = 0; p < 4; p++) {
            assertThat(redis.call("EXISTS", KeyLayout.prefix("flow-partitions", p) + "paused"))
                    .as("partition %d", p).isEqualTo(0L);
        }
    }
}

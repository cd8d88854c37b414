package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.testing.queue.DelayedQueueContract;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The {@link DelayedQueueContract} on a real {@code redis-server}: every queue is a {@link RedisDelayedQueue} with a
 * fresh name and its own client, and time passes on the server's clock.
 */
@ExtendWith(RedisExtension.class)
class RedisDelayedQueueIT extends DelayedQueueContract {

    private final ContractQueues queues;

    RedisDelayedQueueIT(RedisServerProcess redis) {
        this.queues = new ContractQueues(redis, "contract-");
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        RedisQueueBuilder<V> builder = queues.builder(codec);
        options.accept(builder);
        configure(builder);
        return queues.track(builder.build());
    }

    /** Sets options every queue of this run takes; none here. */
    <V> void configure(RedisQueueBuilder<V> builder) {
    }

    @Override
    protected void passTime(Duration amount) {
        queues.passTime(amount);
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }
}

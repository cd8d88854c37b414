package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.queue.WorkerContract;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.function.Consumer;

/**
 * The {@link WorkerContract} on a real {@code redis-server}: every queue is a {@link RedisDelayedQueue} with a fresh
 * name, and another client of it is another {@code RedisDelayedQueue} of the same name and options.
 */
@ExtendWith(RedisExtension.class)
class RedisWorkerIT extends WorkerContract {

    private final RedisServerProcess redis;
    private final ContractQueues queues;

    RedisWorkerIT(RedisServerProcess redis) {
        this.redis = redis;
        this.queues = new ContractQueues(redis, "worker-");
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    @Override
    protected DelayedQueue<String> otherClientOf(DelayedQueue<String> queue) {
        return queues.track(RedisDelayedQueue.builder(redis.uri(), queue.name(), Codec.string())
                .visibilityTimeout(queue.visibilityTimeout()).maxAttempts(queue.maxAttempts()).build());
    }

    @Override
    protected void closeQueues() {
        queues.close();
    }
}

package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.queue.WorkerContract;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The {@link WorkerContract} on a real {@code redis-server}: every queue is a {@link RedisDelayedQueue} with a fresh
 * name, and another client of it is another {@code RedisDelayedQueue} of the same name and options.
 */
@ExtendWith(RedisExtension.class)
class RedisWorkerIT extends WorkerContract {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final RedisServerProcess redis;
    private final List<DelayedQueue<?>> queues = new CopyOnWriteArrayList<>();

    RedisWorkerIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        RedisQueueBuilder<V> builder = RedisDelayedQueue.builder(redis.uri(), "worker-" + NAMES.incrementAndGet(),
                codec);
        options.accept(builder);
        RedisDelayedQueue<V> q = builder.build();
        queues.add(q);
        return q;
    }

    @Override
    protected DelayedQueue<String> otherClientOf(DelayedQueue<String> queue) {
        RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), queue.name(), Codec.string())
                .visibilityTimeout(queue.visibilityTimeout()).maxAttempts(queue.maxAttempts()).build();
        queues.add(q);
        return q;
    }

    @Override
    protected void closeQueues() {
        queues.forEach(DelayedQueue::close);
    }
}

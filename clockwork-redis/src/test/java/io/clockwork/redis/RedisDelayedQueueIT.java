package io.clockwork.redis;

import io.clockwork.redis.fixture.ServerClock;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.testing.queue.DelayedQueueContract;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The {@link DelayedQueueContract} on a real {@code redis-server}: every queue is a {@link RedisDelayedQueue} with a
 * fresh name and its own client, and time passes on the server's clock.
 */
@ExtendWith(RedisExtension.class)
class RedisDelayedQueueIT extends DelayedQueueContract {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final RedisServerProcess redis;
    private final List<DelayedQueue<?>> queues = new ArrayList<>();
    private ServerClock clock;

    RedisDelayedQueueIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        RedisQueueBuilder<V> builder =
                RedisDelayedQueue.builder(redis.uri(), "contract-" + NAMES.incrementAndGet(), codec);
        options.accept(builder);
        configure(builder);
        RedisDelayedQueue<V> q = builder.build();
        queues.add(q);
        return q;
    }

    /** Sets options every queue of this run takes; none here. */
    <V> void configure(RedisQueueBuilder<V> builder) {
    }

    @Override
    protected void passTime(Duration amount) {
        if (clock == null) {
            clock = new ServerClock(redis.uri());
        }
        clock.await(amount);
    }

    @AfterEach
    void closeQueues() {
        queues.forEach(DelayedQueue::close);
        if (clock != null) {
            clock.close();
        }
    }
}

package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.queue.GroupContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The {@link GroupContract} on a real {@code redis-server} ({@code include/groups.lua}), plus what the Redis layout
 * adds: a group's slot held by a consumer that died frees at its visibility timeout and never earlier, a stale ack
 * frees nothing, groups keep their placement on a partitioned queue, and {@link DelayedQueue#largestGroups}.
 */
@ExtendWith(RedisExtension.class)
class RedisGroupIT extends GroupContract {

    private final RedisServerProcess redis;
    private final ContractQueues queues;

    RedisGroupIT(RedisServerProcess redis) {
        this.redis = redis;
        this.queues = new ContractQueues(redis, "group-");
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    /** 100,000 single offers take a while on a shared machine; a tenth shows the same bound. */
    @Override
    protected int largeGroupSize() {
        return 20_000;
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

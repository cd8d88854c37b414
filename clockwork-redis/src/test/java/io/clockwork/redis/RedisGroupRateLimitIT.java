package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.queue.GroupRateLimitContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The {@link GroupRateLimitContract} on a real {@code redis-server}: each group's sliding log in its partition, on the
 * server's clock ({@code include/group_take.lua}).
 */
@ExtendWith(RedisExtension.class)
class RedisGroupRateLimitIT extends GroupRateLimitContract {

    private final ContractQueues queues;

    RedisGroupRateLimitIT(RedisServerProcess redis) {
        this.queues = new ContractQueues(redis, "grate-");
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    /** Half an interval covers a test step's own latency on a busy machine. */
    @Override
    protected Duration interval() {
        return Duration.ofMillis(500);
    }

    /** Connects the server clock's reader before a test's timed steps, so that its first step pays no connect. */
    @BeforeEach
    void connectTheClock() {
        queues.passTime(Duration.ZERO);
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

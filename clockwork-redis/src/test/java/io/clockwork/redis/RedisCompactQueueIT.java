package io.clockwork.redis;

import io.clockwork.redis.fixture.RedisServerProcess;

import java.time.Duration;

/**
 * The {@link io.clockwork.testing.queue.DelayedQueueContract} on a real {@code redis-server} with
 * {@link RedisQueueBuilder#compactAfter(Duration) compactAfter(0)}: every delayed offer goes through the compact
 * store (include/cold.lua) and its promotion, so every delayed case of the contract runs on that path.
 */
class RedisCompactQueueIT extends RedisDelayedQueueIT {

    RedisCompactQueueIT(RedisServerProcess redis) {
        super(redis);
    }

    @Override
    <V> void configure(RedisQueueBuilder<V> builder) {
        builder.compactAfter(Duration.ZERO);
    }
}

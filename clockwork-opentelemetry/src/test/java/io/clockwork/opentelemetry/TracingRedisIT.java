package io.clockwork.opentelemetry;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link TracingAcrossClients} through a real Redis (flushed before each test). */
@ExtendWith(RedisExtension.class)
class TracingRedisIT extends TracingAcrossClients {

    private final RedisServerProcess redis;

    TracingRedisIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Override
    protected DelayedQueue<String> newClient() {
        return RedisDelayedQueue.builder(redis.uri(), "orders", Codec.string()).build();
    }
}

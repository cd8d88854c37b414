package io.clockwork.redisson;

import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.redis.fixture.ServerClock;
import io.clockwork.redisson.RedissonClient;
import io.clockwork.redisson.RedissonFaceContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

/**
 * The {@link RedissonFaceContract} on a real {@code redis-server}: each test starts from an empty server with a new
 * {@link RedisRedisson}, and time passes on the server's clock, in units of 500 ms.
 */
@ExtendWith(RedisExtension.class)
class RedisRedissonContractIT extends RedissonFaceContract {

    private final RedisServerProcess redis;
    private ServerClock clock;

    RedisRedissonContractIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Override
    protected RedissonClient newClient() {
        redis.flushAll();
        return RedisRedisson.create(redis.uri());
    }

    @Override
    protected void passTime(Duration d) {
        if (clock == null) {
            clock = new ServerClock(redis.uri());
        }
        clock.await(d);
    }

    @Override
    protected Duration unit() {
        return Duration.ofMillis(500);
    }

    @AfterEach
    void closeClock() {
        if (clock != null) {
            clock.close();
        }
    }
}

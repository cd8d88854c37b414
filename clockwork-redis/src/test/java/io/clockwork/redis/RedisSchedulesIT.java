package io.clockwork.redis;

import io.clockwork.redis.fixture.ServerClock;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.schedule.Schedules;
import io.clockwork.testing.schedule.SchedulesContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link SchedulesContract} on a real {@code redis-server}: every scheduler the contract asks for is a client of
 * its own (its own queue instance and connection) over the test's queue name, and time passes on the server's clock.
 */
@ExtendWith(RedisExtension.class)
class RedisSchedulesIT extends SchedulesContract {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final RedisServerProcess redis;
    private final String name = "schedules-" + NAMES.incrementAndGet();
    private final List<AutoCloseable> open = new ArrayList<>();
    private RedisDelayedQueue<String> queue;
    private ServerClock clock;

    RedisSchedulesIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    /** @return the partition count of the test's queue */
    protected int partitions() {
        return 1;
    }

    private RedisDelayedQueue<String> newQueue() {
        RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .partitions(partitions()).build();
        open.add(q);
        return q;
    }

    @Override
    protected Schedules<String> newSchedules(Duration misfireThreshold) {
        RedisSchedules<String> s = RedisSchedules.builder(newQueue()).misfireThreshold(misfireThreshold).build();
        open.add(0, s);
        return s;
    }

    @Override
    protected DelayedQueue<String> queue() {
        if (queue == null) {
            queue = newQueue();
        }
        return queue;
    }

    @Override
    protected void passTime(Duration d) {
        if (clock == null) {
            clock = new ServerClock(redis.uri());
        }
        clock.await(d);
    }

    /** On the server's real clock a pass may start seconds late on a loaded machine: that is not a misfire here. */
    @Override
    protected Duration onTimeThreshold() {
        return Duration.ofSeconds(10);
    }

    @Override
    protected Duration period() {
        return Duration.ofMillis(100);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        if (clock != null) {
            clock.close();
        }
    }
}

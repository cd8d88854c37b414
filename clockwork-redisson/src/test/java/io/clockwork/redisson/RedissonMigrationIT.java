package io.clockwork.redisson;

import io.clockwork.queue.Codec;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.redisson.RBlockingQueue;
import io.clockwork.redisson.RDelayedQueue;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RedissonMigration} on data written by the real Redisson client: every element moves once, with its due time
 * and the delayed elements' offer order, in bounded batches; a dry run writes nothing; a second run moves nothing
 * more; Redisson's keys are left empty.
 */
@ExtendWith(RedisExtension.class)
class RedissonMigrationIT {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final RedisServerProcess redis;
    private final String name = "orders-" + NAMES.incrementAndGet();
    private final RedissonClient redisson;
    private final RedisRedisson face;

    RedissonMigrationIT(RedisServerProcess redis) {
        this.redis = redis;
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.useSingleServer().setAddress(redis.uri()).setConnectionMinimumIdleSize(1).setConnectionPoolSize(2);
        this.redisson = Redisson.create(config);
        this.face = RedisRedisson.create(redis.uri());
    }

    @AfterEach
    void close() {
        redisson.shutdown();
        face.shutdown();
    }

    @Test
    void movesEveryElementOnceKeepingDueTimesAndOfferOrder() throws Exception {
        org.redisson.api.RBlockingQueue<String> destination = redisson.getBlockingQueue(name);
        org.redisson.api.RDelayedQueue<String> delayed = redisson.getDelayedQueue(destination);
        delayed.offer("soon-1", 100, TimeUnit.MILLISECONDS);
        delayed.offer("soon-2", 150, TimeUnit.MILLISECONDS);
        Await.until("Redisson transfers the two due elements", Duration.ofSeconds(10), () -> destination.size() == 2);
        List<String> later = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            String v = "later-" + i;
            later.add(v);
            delayed.offer(v, 60 - i, TimeUnit.SECONDS); // offer order is not due order
        }
        delayed.offer("later-0", 90, TimeUnit.SECONDS); // a duplicate value
        later.add("later-0");
        delayed.destroy();

        RedissonMigration.Report dry = RedissonMigration.dryRun(face, name);
        assertThat(dry.due()).isEqualTo(2);
        assertThat(dry.delayed()).isEqualTo(26);
        assertThat(destination.size()).as("a dry run writes nothing").isEqualTo(2);

        RedissonMigration.Report report = RedissonMigration.run(face, name, name, 7);
        assertThat(report.due()).isEqualTo(2);
        assertThat(report.delayed()).isEqualTo(26);
        assertThat(report.remaining()).isZero();
        assertThat(report.batches()).isGreaterThanOrEqualTo(4); // 28 elements, 7 a batch
        assertThat(redisson.getKeys().countExists(name, "redisson_delay_queue_timeout:{" + name + "}",
                "redisson_delay_queue:{" + name + "}")).as("Redisson's keys are empty").isZero();

        RBlockingQueue<String> moved = face.getBlockingQueue(name, Codec.string());
        RDelayedQueue<String> movedDelayed = face.getDelayedQueue(moved);
        assertThat(moved.readAll()).containsExactly("soon-1", "soon-2");
        assertThat(movedDelayed.readAll()).containsExactlyElementsOf(later);
        assertThat(moved.poll()).isEqualTo("soon-1");
        assertThat(movedDelayed.remove("later-0")).as("the value index covers moved elements").isTrue();
        assertThat(movedDelayed.readAll()).startsWith("later-1").endsWith("later-0").hasSize(25);

        RedissonMigration.Report again = RedissonMigration.run(face, name, name, 7);
        assertThat(again.due() + again.delayed()).as("a second run moves nothing").isZero();
    }

    @Test
    void dueTimesSurviveTheMove() throws Exception {
        org.redisson.api.RDelayedQueue<String> delayed = redisson.getDelayedQueue(redisson.getBlockingQueue(name));
        delayed.offer("x", 1500, TimeUnit.MILLISECONDS);
        delayed.destroy();
        long start = System.nanoTime();
        RedissonMigration.run(face, name, "moved-" + name, 100);
        RBlockingQueue<String> moved = face.getBlockingQueue("moved-" + name, Codec.string());
        assertThat(moved.poll()).as("not due yet").isNull();
        assertThat(moved.poll(10, TimeUnit.SECONDS)).isEqualTo("x");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(1000));
    }

    @Test
    void aBadBatchIsRefused() {
        assertThatThrownBy(() -> RedissonMigration.run(face, name, name, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batch");
    }
}

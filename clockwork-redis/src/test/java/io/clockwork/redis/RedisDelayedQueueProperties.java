package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.testing.queue.DelayedQueueModelCheck;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.time.ManualTicker;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.state.ActionChain;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * {@link DelayedQueueModelCheck} on {@link RedisDelayedQueue} against a real {@code redis-server}: every chain gets
 * a queue with a fresh name and its own client. The server keeps time, so the chains use only delays due at once or
 * in an hour (see the check). The server is started here rather than by {@code RedisExtension}, which is a JUnit
 * Jupiter extension and does not apply to jqwik properties.
 */
class RedisDelayedQueueProperties extends DelayedQueueModelCheck {

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static RedisServerProcess redis;

    RedisDelayedQueueProperties() {
        super(false);
    }

    @BeforeContainer
    static void startServer() {
        redis = RedisServerProcess.start();
    }

    @AfterContainer
    static void stopServer() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected DelayedQueue<String> newQueue(Consumer<DelayedQueueBuilder<String, ?>> options, ManualTicker ignored) {
        RedisQueueBuilder<String> builder =
                RedisDelayedQueue.builder(redis.uri(), "model-" + NAMES.incrementAndGet(), Codec.string());
        options.accept(builder);
        return builder.build();
    }

    @Property(tries = 150)
    void redisQueueAgreesWithTheModelAfterEveryCall(@ForAll("redisChains") ActionChain<Run> chain) {
        check(chain);
    }

    @Provide
    Arbitrary<ActionChain<Run>> redisChains() {
        return chains(40);
    }
}

package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.redis.fixture.ServerClock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What the contract tests share on Redis: queues with fresh names on one server, with the contract's options, every
 * one closed by {@link #close()}, and time that passes on the server's clock. Thread-safe.
 */
final class ContractQueues implements AutoCloseable {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final RedisServerProcess redis;
    private final String prefix;
    private final List<DelayedQueue<?>> queues = new CopyOnWriteArrayList<>();
    private volatile ServerClock clock;

    /**
     * @param redis  the server
     * @param prefix starts each queue's name, which ends with a number unique in this JVM
     */
    ContractQueues(RedisServerProcess redis, String prefix) {
        this.redis = redis;
        this.prefix = prefix;
    }

    /** A queue with a fresh name and these options, closed by {@link #close()}. */
    <V> RedisDelayedQueue<V> fresh(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        RedisQueueBuilder<V> builder = builder(codec);
        options.accept(builder);
        return track(builder.build());
    }

    /** A builder of a queue with a fresh name; {@link #track} its queue. */
    <V> RedisQueueBuilder<V> builder(Codec<V> codec) {
        return RedisDelayedQueue.builder(redis.uri(), prefix + NAMES.incrementAndGet(), codec);
    }

    /** Closes q with the others. */
    <Q extends DelayedQueue<?>> Q track(Q q) {
        queues.add(q);
        return q;
    }

    /** Waits until at least {@code amount} has passed on the server's clock. */
    void passTime(Duration amount) {
        ServerClock c = clock;
        if (c == null) {
            synchronized (this) {
                if (clock == null) {
                    clock = new ServerClock(redis.uri());
                }
                c = clock;
            }
        }
        c.await(amount);
    }

    @Override
    public void close() {
        queues.forEach(DelayedQueue::close);
        queues.clear();
        if (clock != null) {
            clock.close();
        }
    }
}

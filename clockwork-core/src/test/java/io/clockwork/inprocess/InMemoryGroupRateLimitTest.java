package io.clockwork.inprocess;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.testing.queue.GroupRateLimitContract;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The {@link GroupRateLimitContract} on the in-process queue, on a {@link ManualTicker}. */
class InMemoryGroupRateLimitTest extends GroupRateLimitContract {

    private final ManualTicker ticker = new ManualTicker();
    private final List<DelayedQueue<?>> queues = new ArrayList<>();

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        InMemoryDelayedQueue.Builder<V> builder = InMemoryDelayedQueue.<V>builder().codec(codec).ticker(ticker);
        options.accept(builder);
        InMemoryDelayedQueue<V> q = builder.build();
        queues.add(q);
        return q;
    }

    @Override
    protected void passTime(Duration amount) {
        ticker.advance(amount);
    }

    @AfterEach
    void closeQueues() {
        queues.forEach(DelayedQueue::close);
    }
}

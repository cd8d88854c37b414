package io.clockwork.inprocess;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.testing.queue.GroupContract;
import io.clockwork.testing.queue.PriorityContract;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The {@link PriorityContract} and the {@link GroupContract} on the in-process queue, on a {@link ManualTicker}. */
class InMemoryPriorityAndGroupTest {

    private final ManualTicker ticker = new ManualTicker();
    private final List<DelayedQueue<?>> queues = new ArrayList<>();

    private <V> DelayedQueue<V> queue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        InMemoryDelayedQueue.Builder<V> builder = InMemoryDelayedQueue.<V>builder().codec(codec).ticker(ticker);
        options.accept(builder);
        InMemoryDelayedQueue<V> q = builder.build();
        queues.add(q);
        return q;
    }

    @AfterEach
    void closeQueues() {
        queues.forEach(DelayedQueue::close);
    }

    @Nested
    class Priorities extends PriorityContract {
        @Override
        protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
            return queue(codec, options);
        }

        @Override
        protected void passTime(Duration amount) {
            ticker.advance(amount);
        }
    }

    @Nested
    class Groups extends GroupContract {
        @Override
        protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
            return queue(codec, options);
        }

        @Override
        protected void passTime(Duration amount) {
            ticker.advance(amount);
        }
    }
}

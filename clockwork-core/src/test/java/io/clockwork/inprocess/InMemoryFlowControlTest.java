package io.clockwork.inprocess;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.testing.queue.FlowControlContract;
import io.clockwork.testing.queue.GroupContract;
import io.clockwork.testing.queue.GroupRateLimitContract;
import io.clockwork.testing.queue.PriorityContract;
import io.clockwork.testing.queue.RateLimitContract;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Every flow-control contract on the in-process queue, on a {@link ManualTicker}: pause, resume and promote
 * ({@link FlowControlContract}), priorities, fair groups with their in-flight limit, and the queue's and the groups'
 * rate limits.
 */
class InMemoryFlowControlTest {

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
    class FlowControl extends FlowControlContract {
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

    @Nested
    class RateLimits extends RateLimitContract {
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
    class GroupRateLimits extends GroupRateLimitContract {
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

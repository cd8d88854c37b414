package io.clockwork.opentelemetry;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.testing.queue.DelayedQueueContract;
import io.clockwork.time.ManualTicker;
import io.opentelemetry.api.OpenTelemetry;
import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The {@link DelayedQueueContract} through a {@link TracingDelayedQueue} on a no-op OpenTelemetry (whose propagators
 * write no header): turning offers by value into offers of messages changes no id, order, outcome or error.
 */
class TracingQueueContractTest extends DelayedQueueContract {

    private static final AtomicInteger QUEUE_NUMBER = new AtomicInteger();

    private final ManualTicker ticker = new ManualTicker();
    private final QueueTracing tracing = QueueTracing.create(OpenTelemetry.noop());
    private final List<DelayedQueue<?>> queues = new ArrayList<>();

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        InMemoryDelayedQueue.Builder<V> builder = InMemoryDelayedQueue.<V>builder()
                .name("traced-" + QUEUE_NUMBER.incrementAndGet()).codec(codec).ticker(ticker);
        options.accept(builder);
        DelayedQueue<V> q = tracing.trace(builder.build());
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

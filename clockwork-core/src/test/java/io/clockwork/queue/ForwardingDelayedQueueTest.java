package io.clockwork.queue;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.testing.queue.DelayedQueueContract;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link DelayedQueueContract} on two {@link ForwardingDelayedQueue}s stacked over an {@link InMemoryDelayedQueue},
 * each wrapping its deliveries: a decorator changes nothing a caller can see, and acks find their way through both.
 */
class ForwardingDelayedQueueTest extends DelayedQueueContract {

    private static final AtomicInteger QUEUE_NUMBER = new AtomicInteger();

    private final ManualTicker ticker = new ManualTicker();
    private final List<DelayedQueue<?>> queues = new ArrayList<>();

    /** A decorator that wraps every delivery, as metrics and tracing do. */
    static final class Wrapping<V> extends ForwardingDelayedQueue<V> {
        Wrapping(DelayedQueue<V> delegate) {
            super(delegate);
        }

        @Override
        protected Delivery<V> wrap(Delivery<V> delivery) {
            return new ForwardingDelivery<>(delivery) { };
        }
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        InMemoryDelayedQueue.Builder<V> builder = InMemoryDelayedQueue.<V>builder()
                .name("forwarding-" + QUEUE_NUMBER.incrementAndGet())
                .codec(codec)
                .ticker(ticker);
        options.accept(builder);
        DelayedQueue<V> q = new Wrapping<>(new Wrapping<>(builder.build()));
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

    @Test
    void batchAckOfWrappedDeliveriesReachesTheBackend() throws InterruptedException {
        DelayedQueue<String> q = newQueue(Codec.string(), b -> { });
        q.offerAll(List.of("a", "b", "c"), Duration.ZERO);
        List<Delivery<String>> got = q.poll(3, Duration.ZERO);
        assertThat(got).hasSize(3).allMatch(d -> d instanceof ForwardingDelivery<String>);
        assertThat(q.ackAll(got)).containsExactly(true, true, true);
        assertThat(q.stats().total()).isZero();
    }

    @Test
    void ackAndPollUnwrapsTheDoneDeliveryAndWrapsTheNext() throws InterruptedException {
        DelayedQueue<String> q = newQueue(Codec.string(), b -> { });
        q.offerAll(List.of("a", "b"), Duration.ZERO);
        Delivery<String> first = q.poll(Duration.ZERO);
        AckAndPoll<String> r = q.ackAndPoll(first);
        assertThat(r.acked()).isTrue();
        assertThat(r.next()).isInstanceOf(ForwardingDelivery.class);
        assertThat(r.next().value()).isEqualTo("b");
        assertThat(((ForwardingDelayedQueue<String>) q).delegate()).isInstanceOf(ForwardingDelayedQueue.class);
    }
}

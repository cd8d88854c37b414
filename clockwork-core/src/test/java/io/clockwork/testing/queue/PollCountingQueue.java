package io.clockwork.testing.queue;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.ForwardingDelayedQueue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A queue that counts the polls made through it, single and batch, for tests that check a consumer idles rather
 * than spins. Thread-safe as the queue it wraps.
 *
 * @param <V> the type of the message values
 */
public final class PollCountingQueue<V> extends ForwardingDelayedQueue<V> {

    private final AtomicInteger polls = new AtomicInteger();

    public PollCountingQueue(DelayedQueue<V> queue) {
        super(queue);
    }

    /** @return how many polls were made through this queue */
    public int polls() {
        return polls.get();
    }

    @Override
    public Delivery<V> poll(Duration wait) throws InterruptedException {
        polls.incrementAndGet();
        return super.poll(wait);
    }

    @Override
    public List<Delivery<V>> poll(int maxMessages, Duration wait) throws InterruptedException {
        polls.incrementAndGet();
        return super.poll(maxMessages, wait);
    }
}

package io.clockwork.testing.queue;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueStats;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link DelayedQueue} that passes every call to another until told to fail: then each consumer call (poll, ack,
 * ackAndPoll, nack, extend, release, deadLetter) throws, as a backend that is down would, until told to work again. Deliveries
 * are wrapped so that their calls fail too. Thread-safe. A worker on a queue that fails for good behaves as a
 * crashed process: it can neither ack nor hand anything back.
 *
 * @param <V> the value type
 */
public final class FlakyQueue<V> implements DelayedQueue<V> {

    private final DelayedQueue<V> queue;
    private final AtomicInteger extendCalls = new AtomicInteger();
    private volatile boolean failing;

    /** @param queue the queue that does the work */
    public FlakyQueue(DelayedQueue<V> queue) {
        this.queue = queue;
    }

    /** @param failing whether consumer calls throw from now on */
    public void failing(boolean failing) {
        this.failing = failing;
    }

    /** @return how many times a delivery's extend was called and passed on */
    public int extendCalls() {
        return extendCalls.get();
    }

    private void check(String operation) {
        if (failing) {
            throw new IllegalStateException("FlakyQueue: " + operation + " refused: the backend is down");
        }
    }

    @Override
    public String offer(V value, Duration delay) {
        return queue.offer(value, delay);
    }

    @Override
    public boolean offer(String id, V value, Duration delay) {
        return queue.offer(id, value, delay);
    }

    @Override
    public List<String> offerAll(List<? extends V> values, Duration delay) {
        return queue.offerAll(values, delay);
    }

    @Override
    public List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        return queue.offerAll(messages, delay);
    }

    @Override
    public Offered offer(Message<? extends V> message) {
        return queue.offer(message);
    }

    @Override
    public List<Offered> offerAll(List<? extends Message<? extends V>> messages) {
        return queue.offerAll(messages);
    }

    @Override
    public boolean cancel(String id) {
        return queue.cancel(id);
    }

    @Override
    public boolean reschedule(String id, Duration delay) {
        return queue.reschedule(id, delay);
    }

    @Override
    public void pause() {
        queue.pause();
    }

    @Override
    public void resume() {
        queue.resume();
    }

    @Override
    public boolean isPaused() {
        return queue.isPaused();
    }

    @Override
    public Delivery<V> poll(Duration wait) throws InterruptedException {
        check("poll");
        Delivery<V> d = queue.poll(wait);
        return d == null ? null : new Flaky(d);
    }

    @Override
    public List<Delivery<V>> poll(int maxMessages, Duration wait) throws InterruptedException {
        check("poll");
        List<Delivery<V>> got = queue.poll(maxMessages, wait);
        List<Delivery<V>> wrapped = new ArrayList<>(got.size());
        for (Delivery<V> d : got) {
            wrapped.add(new Flaky(d));
        }
        return wrapped;
    }

    @Override
    public List<Boolean> ackAll(List<? extends Delivery<V>> deliveries) {
        check("ackAll");
        List<Delivery<V>> inner = new ArrayList<>(deliveries.size());
        for (Delivery<V> d : deliveries) {
            inner.add(((Flaky) d).delivery);
        }
        return queue.ackAll(inner);
    }

    @Override
    public AckAndPoll<V> ackAndPoll(Delivery<V> done) {
        check("ackAndPoll");
        AckAndPoll<V> r = queue.ackAndPoll(((Flaky) done).delivery);
        return new AckAndPoll<>(r.acked(), r.next() == null ? null : new Flaky(r.next()));
    }

    @Override
    public QueueStats stats() {
        return queue.stats();
    }

    @Override
    public List<DeadLetter> deadLetters(int limit) {
        return queue.deadLetters(limit);
    }

    @Override
    public boolean requeueDead(String id) {
        return queue.requeueDead(id);
    }

    @Override
    public long purgeDead() {
        return queue.purgeDead();
    }

    @Override
    public String name() {
        return queue.name();
    }

    @Override
    public Duration visibilityTimeout() {
        return queue.visibilityTimeout();
    }

    @Override
    public int maxAttempts() {
        return queue.maxAttempts();
    }

    @Override
    public void close() {
        queue.close();
    }

    private final class Flaky implements Delivery<V> {
        final Delivery<V> delivery;

        Flaky(Delivery<V> delivery) {
            this.delivery = delivery;
        }

        @Override
        public String id() {
            return delivery.id();
        }

        @Override
        public V value() {
            return delivery.value();
        }

        @Override
        public int attempt() {
            return delivery.attempt();
        }

        @Override
        public Map<String, String> headers() {
            return delivery.headers();
        }

        @Override
        public boolean ack() {
            check("ack");
            return delivery.ack();
        }

        @Override
        public boolean nack(Duration retryDelay) {
            check("nack");
            return delivery.nack(retryDelay);
        }

        @Override
        public boolean nack(Duration retryDelay, String reason) {
            check("nack");
            return delivery.nack(retryDelay, reason);
        }

        @Override
        public boolean extend(Duration visibility) {
            check("extend");
            boolean extended = delivery.extend(visibility);
            extendCalls.incrementAndGet();
            return extended;
        }

        @Override
        public boolean release() {
            check("release");
            return delivery.release();
        }

        @Override
        public boolean deadLetter(String reason) {
            check("deadLetter");
            return delivery.deadLetter(reason);
        }
    }
}

package io.clockwork.inprocess;

import io.clockwork.queue.Delivery;
import io.clockwork.queue.spi.QueueSupport;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * A delivery of an {@link InMemoryDelayedQueue}: the message it holds and its token, which the message forgets when
 * it moves on without this delivery, so a stale receipt fails instead of touching someone else's delivery.
 * Thread-safe: each call that settles it takes the queue's lock and is one operation of the {@link QueueStore},
 * which checks the token.
 *
 * @param <V> the value type
 */
final class Receipt<V> implements Delivery<V> {

    private final InMemoryDelayedQueue<V> queue;
    private final Item message;
    private final long token;
    private final V value;
    private final int attempt;
    private final Map<String, String> headers;

    Receipt(InMemoryDelayedQueue<V> queue, Item message, long token, V value, int attempt,
            Map<String, String> headers) {
        this.queue = queue;
        this.message = message;
        this.token = token;
        this.value = value;
        this.attempt = attempt;
        this.headers = headers;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public String id() {
        return message.id;
    }

    @Override
    public V value() {
        return value;
    }

    @Override
    public int attempt() {
        return attempt;
    }

    @Override
    public boolean ack() {
        StoreGuard guard = queue.guard();
        guard.lockOpen();
        try {
            guard.advance();
            return guard.store().ack(message, token);
        } finally {
            guard.unlock();
        }
    }

    /** Acks with the queue's lock held, the queue open and the store advanced (a batch's ack). */
    boolean ackLocked() {
        return queue.guard().store().ack(message, token);
    }

    /** @return the queue that made this delivery */
    InMemoryDelayedQueue<V> owner() {
        return queue;
    }

    @Override
    public boolean nack(Duration retryDelay) {
        Objects.requireNonNull(retryDelay, "retryDelay");
        return nack(queue.support().delay(retryDelay).nanos(), null);
    }

    @Override
    public boolean nack(Duration retryDelay, String reason) {
        Objects.requireNonNull(retryDelay, "retryDelay");
        String error = QueueSupport.reason(reason);
        return nack(queue.support().delay(retryDelay).nanos(), error);
    }

    private boolean nack(long delayNanos, String error) {
        StoreGuard guard = queue.guard();
        guard.lockOpen();
        try {
            return guard.store().nack(message, token, delayNanos, error, guard.advance());
        } finally {
            guard.unlock();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process a delivery whose timeout passed holds its message until someone takes it again; extending it
     * then puts the message back in flight for this delivery.
     */
    @Override
    public boolean extend(Duration timeout) {
        long nanos = QueueSupport.checkVisibility(timeout).toNanos();
        StoreGuard guard = queue.guard();
        guard.lockOpen();
        try {
            return guard.store().extend(message, token, nanos, guard.advance());
        } finally {
            guard.unlock();
        }
    }

    @Override
    public boolean release() {
        StoreGuard guard = queue.guard();
        guard.lockOpen();
        try {
            return guard.store().release(message, token, guard.advance());
        } finally {
            guard.unlock();
        }
    }

    @Override
    public boolean deadLetter(String reason) {
        String r = QueueSupport.reason(reason);
        StoreGuard guard = queue.guard();
        guard.lockOpen();
        try {
            guard.advance();
            return guard.store().kill(message, token, r, guard.read()); // its time of death: read once advanced
        } finally {
            guard.unlock();
        }
    }

    @Override
    public String toString() {
        return "Delivery[" + message.id + ", attempt " + attempt + "]";
    }
}

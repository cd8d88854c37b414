package io.clockwork.queue;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * A {@link Delivery} that forwards every call to another, for decorators of a queue (see
 * {@link ForwardingDelayedQueue}). Thread-safety as the delegate's.
 *
 * @param <V> the value type
 */
public abstract class ForwardingDelivery<V> implements Delivery<V> {

    private final Delivery<V> delegate;

    /** @param delegate the delivery every call goes to */
    protected ForwardingDelivery(Delivery<V> delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** @return the delivery every call goes to */
    public final Delivery<V> delegate() {
        return delegate;
    }

    @Override
    public String id() {
        return delegate.id();
    }

    @Override
    public V value() {
        return delegate.value();
    }

    @Override
    public int attempt() {
        return delegate.attempt();
    }

    @Override
    public Map<String, String> headers() {
        return delegate.headers();
    }

    @Override
    public boolean ack() {
        return delegate.ack();
    }

    @Override
    public CompletionStage<Boolean> ackAsync() {
        return delegate.ackAsync();
    }

    @Override
    public boolean nack(Duration retryDelay) {
        return delegate.nack(retryDelay);
    }

    @Override
    public boolean nack(Duration retryDelay, String reason) {
        return delegate.nack(retryDelay, reason);
    }

    @Override
    public boolean extend(Duration visibility) {
        return delegate.extend(visibility);
    }

    @Override
    public boolean release() {
        return delegate.release();
    }

    @Override
    public boolean deadLetter(String reason) {
        return delegate.deadLetter(reason);
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}

package io.clockwork.postgres;

import io.clockwork.queue.Delivery;
import io.clockwork.queue.spi.QueueSupport;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * One delivery from a {@link PostgresDelayedQueue}: the message plus its receipt, the {@code seq} the poll gave the
 * row. Thread-safe; ack, nack, extend, release and deadLetter change the row only while its {@code seq} is still this
 * receipt, so a delivery whose lease passed and whose message was taken again changes nothing.
 *
 * @param <V> the value type
 */
final class PostgresDelivery<V> implements Delivery<V> {

    private final PostgresDelayedQueue<V> queue;
    private final String id;
    private final V value;
    private final int attempt;
    private final long receipt;
    private final Map<String, String> headers;

    PostgresDelivery(PostgresDelayedQueue<V> queue, String id, V value, int attempt, long receipt,
                     Map<String, String> headers) {
        this.queue = queue;
        this.id = id;
        this.value = value;
        this.attempt = attempt;
        this.receipt = receipt;
        this.headers = headers;
    }

    @Override
    public String id() {
        return id;
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
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public boolean ack() {
        return queue.ack(this);
    }

    @Override
    public CompletionStage<Boolean> ackAsync() {
        return queue.ackAsync(this);
    }

    @Override
    public boolean nack(Duration retryDelay) {
        Objects.requireNonNull(retryDelay, "retryDelay");
        return queue.nack(this, retryDelay, null);
    }

    @Override
    public boolean nack(Duration retryDelay, String reason) {
        Objects.requireNonNull(retryDelay, "retryDelay");
        return queue.nack(this, retryDelay, QueueSupport.reason(reason));
    }

    @Override
    public boolean extend(Duration visibility) {
        return queue.extend(this, QueueSupport.checkVisibility(visibility));
    }

    @Override
    public boolean release() {
        return queue.release(this);
    }

    @Override
    public boolean deadLetter(String reason) {
        return queue.deadLetter(this, QueueSupport.reason(reason));
    }

    PostgresDelayedQueue<V> queue() {
        return queue;
    }

    long receipt() {
        return receipt;
    }

    @Override
    public String toString() {
        return "Delivery[" + queue.name() + "/" + id + ", attempt " + attempt + "]";
    }
}

package io.clockwork.redis;

import io.clockwork.queue.Delivery;
import io.clockwork.queue.spi.QueueSupport;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * One delivery from a {@link RedisDelayedQueue}: the message plus its receipt (the sequence number the poll script
 * gave this delivery). Immutable and thread-safe; ack, nack, extend, release and deadLetter are checked against the
 * receipt by the scripts.
 *
 * @param <V> the value type
 */
final class RedisDelivery<V> implements Delivery<V> {

    private final RedisDelayedQueue<V> queue;
    private final int partition;
    private final String id;
    private final V value;
    private final int attempt;
    private final long receipt;
    private final Map<String, String> headers;

    RedisDelivery(RedisDelayedQueue<V> queue, int partition, String id, V value, int attempt, long receipt,
                  Map<String, String> headers) {
        this.queue = queue;
        this.partition = partition;
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
        return queue.ack(partition, id, receipt);
    }

    @Override
    public CompletionStage<Boolean> ackAsync() {
        return queue.ackAsync(partition, id, receipt);
    }

    @Override
    public boolean nack(Duration retryDelay) {
        Objects.requireNonNull(retryDelay, "retryDelay");
        return queue.nack(partition, id, receipt, retryDelay, null);
    }

    @Override
    public boolean nack(Duration retryDelay, String reason) {
        Objects.requireNonNull(retryDelay, "retryDelay");
        return queue.nack(partition, id, receipt, retryDelay, QueueSupport.reason(reason));
    }

    @Override
    public boolean extend(Duration visibility) {
        return queue.extend(partition, id, receipt, visibility);
    }

    @Override
    public boolean release() {
        return queue.release(partition, id, receipt);
    }

    @Override
    public boolean deadLetter(String reason) {
        return queue.deadLetter(partition, id, receipt, QueueSupport.reason(reason));
    }

    RedisDelayedQueue<V> queue() {
        return queue;
    }

    int partition() {
        return partition;
    }

    long receipt() {
        return receipt;
    }

    @Override
    public String toString() {
        return "Delivery[" + queue.name() + "/" + id + ", attempt " + attempt + "]";
    }
}

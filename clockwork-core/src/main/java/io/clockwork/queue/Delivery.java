package io.clockwork.queue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One delivery of a message to one consumer, in flight until acknowledged, rejected or timed out. Thread-safe.
 *
 * <p>A delivery is a receipt: once its visibility timeout has passed and the message was redelivered to someone
 * else, or the message was cancelled, this delivery's {@link #ack()} and {@link #nack(Duration)} return false and
 * change nothing, so a slow consumer can never acknowledge another consumer's delivery.
 *
 * @param <V> the value type
 */
public interface Delivery<V> {

    /** @return the message id */
    String id();

    /** @return the decoded value */
    V value();

    /** @return which delivery of this message this is, starting at 1 */
    int attempt();

    /**
     * Acknowledges the message: it is done and removed.
     *
     * @return true if this delivery still held the message and removed it
     */
    boolean ack();

    /**
     * Rejects the message for now: it is due again after {@code retryDelay}, or, if this was its last allowed
     * attempt, moves to the dead letters.
     *
     * @param retryDelay how long until it is due again; zero or negative: now
     * @return true if this delivery still held the message
     */
    boolean nack(Duration retryDelay);

    /**
     * {@link #ack()} without waiting for the backend, as {@link DelayedQueue#offerAsync(Object, Duration)} describes;
     * this default acks and returns a completed stage.
     *
     * @return the stage of whether this delivery still held the message and removed it
     */
    default CompletionStage<Boolean> ackAsync() {
        return CompletableFuture.completedFuture(ack());
    }
}

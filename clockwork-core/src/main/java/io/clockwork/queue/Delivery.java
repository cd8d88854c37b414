package io.clockwork.queue;

import java.time.Duration;
import java.util.Map;
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
     * @return the message's headers ({@link Message#header(String, String)}), unmodifiable, in the order they were
     *         set; empty if it has none. This default returns an empty map.
     */
    default Map<String, String> headers() {
        return Map.of();
    }

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
     * Rejects the message for now, as {@link #nack(Duration)} does, and records {@code reason} as its last error: if
     * the message later dies of running out of attempts (on a nack, or when a visibility timeout passes), its dead
     * letter's reason is the last error recorded, instead of the bare attempts count. A later {@link #nack(Duration)}
     * keeps the recorded error.
     *
     * @param retryDelay how long until it is due again; zero or negative: now
     * @param reason     what went wrong, e.g. {@code "java.io.IOException: connection reset"}; longer than
     *                   {@link DeadLetter#MAX_REASON_LENGTH} characters it is cut and marked
     *                   ({@link DeadLetter#TRUNCATED})
     * @return true if this delivery still held the message
     * @throws NullPointerException if an argument is null (named)
     */
    boolean nack(Duration retryDelay, String reason);

    /**
     * Keeps this delivery's message in flight for longer: its visibility deadline becomes now plus
     * {@code visibility}, measured on the backend's clock (as the queue's visibility timeout is), earlier or later
     * than before. A consumer whose work outlasts the visibility timeout calls it now and then (a heartbeat) so that
     * the message is not delivered to another consumer meanwhile.
     *
     * @param visibility how long from now the message stays in flight, in
     *                   [{@link QueueOptions#MIN_VISIBILITY_TIMEOUT}, {@link QueueOptions#MAX_VISIBILITY_TIMEOUT}]
     *                   like the queue's {@code visibilityTimeout}
     * @return true if this delivery still held the message and now holds it until the new deadline; false, changing
     *         nothing, if the lease was lost (timed out and taken again, acked, nacked, released, dead or cancelled)
     * @throws NullPointerException     if {@code visibility} is null
     * @throws IllegalArgumentException if {@code visibility} is out of range (the message names it)
     */
    boolean extend(Duration visibility);

    /**
     * Hands the message back at once, as if this delivery had never been made: it is due now, visible to every
     * consumer immediately (not after the visibility timeout), and this delivery does not count as an attempt, so
     * the next delivery has this one's {@link #attempt()}. Meant for a delivery that was taken but never worked on,
     * such as a prefetched one at shutdown.
     *
     * @return true if this delivery still held the message and gave it back
     */
    boolean release();

    /**
     * Moves the message straight to the dead letters, whatever attempts it has left, with {@code reason} as the
     * reason its dead letter shows. This delivery counts as an attempt.
     *
     * @param reason why it dies; longer than {@link DeadLetter#MAX_REASON_LENGTH} characters it is cut and marked
     *               ({@link DeadLetter#TRUNCATED})
     * @return true if this delivery still held the message and buried it
     * @throws NullPointerException if {@code reason} is null
     */
    boolean deadLetter(String reason);

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

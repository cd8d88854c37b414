package io.clockwork.redis;

import io.clockwork.queue.Delivery;
import io.clockwork.queue.spi.QueueSupport;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * One delivery from a {@link RedisDelayedQueue}: the message plus its receipt (the sequence number the poll script
 * gave this delivery). Thread-safe; ack, nack, extend, release and deadLetter are checked against the receipt by the
 * scripts.
 *
 * <p><b>A retried ack.</b> An ack call that fails (a timeout, a lost connection) may still have run: Redis frozen
 * for a while runs it when it wakes. The delivery remembers that, and a later ack that finds the message gone counts
 * as acked if the server says this delivery's hold was never revoked ({@code include/revoked.lua}): nothing but its
 * own ack can have deleted the message then. The server forgets revocations after {@link ScriptReplies#REVOKED_KEEP},
 * and a revocation (an expiry) comes no earlier than the end of the lease; so that answer is trusted only until
 * {@code REVOKED_KEEP} after the earliest time the lease could end, which the delivery tracks from when the poll and
 * each successful extend were sent. Later, a gone message counts as a lost lease, as it always did.
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
    /** The earliest the lease can end ({@link System#nanoTime}): when its poll or last extend was sent, plus it. */
    private volatile long leaseFloor;
    /** Whether an ack call carrying this delivery failed, so that it may have run. */
    private volatile boolean ackMayHaveRun;

    /** @param leaseFloor when the poll was sent plus the visibility timeout ({@link System#nanoTime}) */
    RedisDelivery(RedisDelayedQueue<V> queue, int partition, String id, V value, int attempt, long receipt,
                  Map<String, String> headers, long leaseFloor) {
        this.queue = queue;
        this.partition = partition;
        this.id = id;
        this.value = value;
        this.attempt = attempt;
        this.receipt = receipt;
        this.headers = headers;
        this.leaseFloor = leaseFloor;
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
        return queue.nack(partition, id, receipt, retryDelay, null);
    }

    @Override
    public boolean nack(Duration retryDelay, String reason) {
        Objects.requireNonNull(retryDelay, "retryDelay");
        return queue.nack(partition, id, receipt, retryDelay, QueueSupport.reason(reason));
    }

    @Override
    public boolean extend(Duration visibility) {
        long sent = System.nanoTime();
        boolean held = queue.extend(partition, id, receipt, visibility);
        long floor = sent + visibility.toNanos();
        if (held && floor - leaseFloor > 0) {
            leaseFloor = floor;
        }
        return held;
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

    /** Notes that an ack call carrying this delivery failed: it may have run. */
    void ackFailed() {
        ackMayHaveRun = true;
    }

    /**
     * Reads ack.lua's code for this delivery.
     *
     * @param code the code, GONE_AFTER_RETRY if the same call was retried
     * @return whether the message is acked: deleted now, or gone while this delivery's hold was never revoked after
     *         an attempt that may have deleted it, within the reach of the server's record of revocations
     */
    boolean ackedIfGone(ScriptReplies.AckCode code) {
        if (code == ScriptReplies.AckCode.DELETED) {
            return true;
        }
        boolean retried = code == ScriptReplies.AckCode.GONE_AFTER_RETRY
                || code == ScriptReplies.AckCode.GONE && ackMayHaveRun;
        return retried && System.nanoTime() - (leaseFloor + ScriptReplies.REVOKED_KEEP.toNanos()) <= 0;
    }

    @Override
    public String toString() {
        return "Delivery[" + queue.name() + "/" + id + ", attempt " + attempt + "]";
    }
}

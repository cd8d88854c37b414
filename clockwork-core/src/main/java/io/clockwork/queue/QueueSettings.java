package io.clockwork.queue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The options every {@link DelayedQueue} backend shares, and the argument checks that follow from them, so that
 * both backends reject bad input with the same messages. Immutable and thread-safe.
 *
 * @param <V> the value type
 */
public final class QueueSettings<V> {

    /** Largest allowed {@code maxPayloadBytes}: Redis's limit on one string. */
    public static final int MAX_PAYLOAD_LIMIT = 512 * 1024 * 1024;

    private final String name;
    private final Codec<V> codec;
    private final Duration visibilityTimeout;
    private final int maxAttempts;
    private final int maxPayloadBytes;

    QueueSettings(String name, Codec<V> codec, Duration visibilityTimeout, int maxAttempts, int maxPayloadBytes) {
        this.name = name;
        this.codec = codec;
        this.visibilityTimeout = visibilityTimeout;
        this.maxAttempts = maxAttempts;
        this.maxPayloadBytes = maxPayloadBytes;
    }

    /** @return the queue's name */
    public String name() {
        return name;
    }

    /** @return the codec, or null for an in-process queue that keeps values by reference */
    public Codec<V> codec() {
        return codec;
    }

    /** @return how long a delivery stays in flight before the message is delivered again */
    public Duration visibilityTimeout() {
        return visibilityTimeout;
    }

    /** @return deliveries allowed before a message goes to the dead letters */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** @return the largest encoded value accepted; without a codec nothing is encoded and it is not checked */
    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    /**
     * Checks a delay and converts it to whole nanoseconds; negative delays become zero. {@link DelayedQueue#MAX_DELAY}
     * is more nanoseconds than a {@code long} holds, so delays above about 292 years saturate at
     * {@link Long#MAX_VALUE} (backends that count in milliseconds should use {@link Duration#toMillis()} instead).
     *
     * @param delay the delay
     * @return nanoseconds in [0, {@link Long#MAX_VALUE}]
     * @throws IllegalArgumentException if it exceeds {@link DelayedQueue#MAX_DELAY}
     */
    public long delayNanos(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.compareTo(DelayedQueue.MAX_DELAY) > 0) {
            throw delayTooLong(delay.toString());
        }
        if (delay.isNegative()) {
            return 0L;
        }
        try {
            return delay.toNanos();
        } catch (ArithmeticException beyondLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Converts a {@code long, TimeUnit} delay into the {@link Duration} the queue's methods take, for the
     * {@code long, TimeUnit} overloads. It compares in {@code unit} first, so amounts too large for a
     * {@code Duration} fail with the same error as any delay above {@link DelayedQueue#MAX_DELAY}, never with an
     * {@link ArithmeticException}; negative amounts below {@code -MAX_DELAY} become {@code -MAX_DELAY}, which means
     * "due now" like any negative delay.
     *
     * @param delay the amount
     * @param unit  its unit
     * @return the delay, in [{@code -MAX_DELAY}, {@code MAX_DELAY}]
     * @throws NullPointerException     if {@code unit} is null
     * @throws IllegalArgumentException if the delay exceeds {@link DelayedQueue#MAX_DELAY}
     */
    public static Duration delayOf(long delay, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        // MAX_DELAY in whole units, rounded down (saturated at Long.MAX_VALUE for nanoseconds): a larger amount is
        // above MAX_DELAY, and an amount within +/- this bound converts to a Duration without overflow.
        long max = unit.convert(DelayedQueue.MAX_DELAY);
        if (delay > max) {
            throw delayTooLong(delay + " " + unit);
        }
        if (delay < -max) {
            return DelayedQueue.MAX_DELAY.negated();
        }
        return Duration.of(delay, unit.toChronoUnit());
    }

    private static IllegalArgumentException delayTooLong(String given) {
        return new IllegalArgumentException("delay must be at most " + DelayedQueue.MAX_DELAY.toMillis()
                + " ms (DelayedQueue.MAX_DELAY, 2^52 ms: due times are exact doubles), was " + given);
    }

    /**
     * Checks the size of a batch argument against {@link DelayedQueue#MAX_BATCH}.
     *
     * @param argument the argument's name, for the error
     * @param size     its size
     * @throws IllegalArgumentException if above the limit
     */
    public static void checkBatch(String argument, int size) {
        if (size > DelayedQueue.MAX_BATCH) {
            throw new IllegalArgumentException(argument + " must hold at most " + DelayedQueue.MAX_BATCH
                    + " elements (DelayedQueue.MAX_BATCH), had " + size);
        }
    }

    /**
     * Checks the {@code maxMessages} of a batch poll.
     *
     * @param maxMessages the most messages to take
     * @throws IllegalArgumentException if not in [1, {@link DelayedQueue#MAX_BATCH}]
     */
    public static void checkMaxMessages(int maxMessages) {
        if (maxMessages < 1 || maxMessages > DelayedQueue.MAX_BATCH) {
            throw new IllegalArgumentException("maxMessages must be in [1, " + DelayedQueue.MAX_BATCH
                    + "] (DelayedQueue.MAX_BATCH), was " + maxMessages);
        }
    }

    /**
     * Checks a caller-supplied message id, in one pass over its chars and without allocating.
     *
     * <p>An id must round-trip through UTF-8, because Redis keeps it as UTF-8 bytes: a string with an unpaired
     * surrogate has no UTF-8 form, and encoders write '?' in its place, so "a", U+D800, "b" and "a", U+DC00, "b"
     * would both become {@code "a?b"}. Every backend rejects such ids, so that an id means the same everywhere.
     *
     * @param id the id
     * @return the id
     * @throws NullPointerException     if null
     * @throws IllegalArgumentException if empty, holding an unpaired surrogate, or longer than
     *                                  {@link DelayedQueue#MAX_ID_BYTES} UTF-8 bytes
     */
    public String checkId(String id) {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id must not be empty");
        }
        int bytes = Utf8.encodedLength(id);
        if (bytes < 0) {
            throw new IllegalArgumentException("id must be well-formed Unicode, which round-trips through UTF-8;"
                    + " it has " + Utf8.describeUnpaired(id, bytes));
        }
        if (bytes > DelayedQueue.MAX_ID_BYTES) {
            throw new IllegalArgumentException("id must be at most " + DelayedQueue.MAX_ID_BYTES
                    + " UTF-8 bytes, was " + bytes);
        }
        return id;
    }

    /**
     * Encodes a value and checks its size.
     *
     * @param value the value
     * @return its bytes
     * @throws CodecException           if the codec fails
     * @throws IllegalArgumentException if larger than {@link #maxPayloadBytes()}
     */
    public byte[] encode(V value) {
        Objects.requireNonNull(value, "value");
        byte[] bytes;
        try {
            bytes = codec.encode(value);
        } catch (CodecException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CodecException(codec + " could not encode a value for queue '" + name + "': " + e, e);
        }
        if (bytes == null) {
            throw new CodecException(codec + " encoded a value to null for queue '" + name + "'", null);
        }
        checkPayloadSize(bytes.length);
        return bytes;
    }

    /**
     * Checks an encoded size against {@link #maxPayloadBytes()}.
     *
     * @param size bytes
     * @throws IllegalArgumentException if too large
     */
    public void checkPayloadSize(int size) {
        if (size > maxPayloadBytes) {
            throw new IllegalArgumentException("value of queue '" + name + "' is " + size
                    + " bytes encoded, above maxPayloadBytes (" + maxPayloadBytes + ")");
        }
    }

    /**
     * Decodes a payload.
     *
     * @param bytes the payload
     * @return the value
     * @throws CodecException if the codec fails or returns null
     */
    public V decode(byte[] bytes) {
        V value;
        try {
            value = codec.decode(bytes);
        } catch (CodecException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CodecException(codec + " could not decode a payload of " + bytes.length + " bytes: " + e, e);
        }
        if (value == null) {
            throw new CodecException(codec + " decoded a payload of " + bytes.length + " bytes to null", null);
        }
        return value;
    }

    /** @return the error for use after close */
    public IllegalStateException closedError() {
        return new IllegalStateException("queue '" + name + "' is closed");
    }

    @Override
    public String toString() {
        return "QueueSettings[name=" + name + ", codec=" + codec + ", visibilityTimeout=" + visibilityTimeout
                + ", maxAttempts=" + maxAttempts + ", maxPayloadBytes=" + maxPayloadBytes + "]";
    }
}

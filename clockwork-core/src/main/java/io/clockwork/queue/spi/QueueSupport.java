package io.clockwork.queue.spi;

import io.clockwork.queue.CodecException;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueChecks;
import io.clockwork.queue.QueueOptions;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link DelayedQueue} backend needs and its users do not: the argument checks of the contract and the codec
 * calls, with the messages every backend shares, so that both backends reject bad input alike. Exported only to
 * the backends' modules. Immutable and thread-safe.
 *
 * @param <V> the value type
 */
public final class QueueSupport<V> {

    private final QueueOptions<V> options;

    /** @param options the queue's options; its name must be set */
    public QueueSupport(QueueOptions<V> options) {
        this.options = Objects.requireNonNull(options, "options");
        Objects.requireNonNull(options.name(), "options.name()");
    }

    /** @return the queue's options */
    public QueueOptions<V> options() {
        return options;
    }

    /** @return the queue's name */
    public String name() {
        return options.name();
    }

    /**
     * Checks a delay once; the backend then passes the result on rather than the {@link Duration}.
     *
     * @param delay the delay; zero or negative means due now
     * @return the checked delay
     * @throws IllegalArgumentException if it exceeds {@link DelayedQueue#MAX_DELAY}
     */
    public Delay delay(Duration delay) {
        return Delay.of(delay);
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
     * Checks the {@code limit} of {@link DelayedQueue#largestGroups(int)}.
     *
     * @param limit the most groups to list
     * @throws IllegalArgumentException if not in [1, {@link DelayedQueue#MAX_GROUPS_LISTED}]
     */
    public static void checkGroupsListed(int limit) {
        if (limit < 1 || limit > DelayedQueue.MAX_GROUPS_LISTED) {
            throw new IllegalArgumentException("limit must be in [1, " + DelayedQueue.MAX_GROUPS_LISTED
                    + "] (DelayedQueue.MAX_GROUPS_LISTED), was " + limit);
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
        return QueueChecks.checkMessageId(id);
    }

    /**
     * Encodes a value and checks its size.
     *
     * @param value the value
     * @return its bytes
     * @throws CodecException           if the codec fails
     * @throws IllegalArgumentException if larger than the queue's {@code maxPayloadBytes}
     */
    public byte[] encode(V value) {
        Objects.requireNonNull(value, "value");
        byte[] bytes;
        try {
            bytes = options.codec().encode(value);
        } catch (CodecException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CodecException(options.codec() + " could not encode a value for queue '" + options.name() + "': " + e, e);
        }
        if (bytes == null) {
            throw new CodecException(options.codec() + " encoded a value to null for queue '" + options.name() + "'", null);
        }
        checkPayloadSize(bytes.length);
        return bytes;
    }

    /**
     * Checks an encoded size against the queue's {@code maxPayloadBytes}.
     *
     * @param size bytes
     * @throws IllegalArgumentException if too large
     */
    public void checkPayloadSize(int size) {
        if (size > options.maxPayloadBytes()) {
            throw new IllegalArgumentException("value of queue '" + options.name() + "' is " + size
                    + " bytes encoded, above maxPayloadBytes (" + options.maxPayloadBytes() + ")");
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
            value = options.codec().decode(bytes);
        } catch (CodecException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CodecException(options.codec() + " could not decode a payload of " + bytes.length + " bytes: " + e, e);
        }
        if (value == null) {
            throw new CodecException(options.codec() + " decoded a payload of " + bytes.length + " bytes to null", null);
        }
        return value;
    }

    /**
     * Checks the visibility of {@code Delivery.extend}: the range of the queue's {@code visibilityTimeout}.
     *
     * @param visibility how long a delivery stays in flight from now
     * @return {@code visibility}
     * @throws NullPointerException     if null
     * @throws IllegalArgumentException if outside [{@link QueueOptions#MIN_VISIBILITY_TIMEOUT},
     *                                  {@link QueueOptions#MAX_VISIBILITY_TIMEOUT}] (the message names
     *                                  {@code visibility})
     */
    public static Duration checkVisibility(Duration visibility) {
        Objects.requireNonNull(visibility, "visibility");
        if (visibility.compareTo(QueueOptions.MIN_VISIBILITY_TIMEOUT) < 0
                || visibility.compareTo(QueueOptions.MAX_VISIBILITY_TIMEOUT) > 0) {
            throw new IllegalArgumentException("visibility must be in [" + QueueOptions.MIN_VISIBILITY_TIMEOUT + ", "
                    + QueueOptions.MAX_VISIBILITY_TIMEOUT + "] like visibilityTimeout, was " + visibility);
        }
        return visibility;
    }

    /**
     * Bounds a reason a consumer gives (a dead letter's reason, a last error): at most
     * {@link DeadLetter#MAX_REASON_LENGTH} chars, a longer one cut (never inside a surrogate pair) and ended with
     * {@link DeadLetter#TRUNCATED}; an unpaired surrogate becomes {@code '?'}, as Redis would store it, so that every
     * backend keeps the same text.
     *
     * @param reason the reason
     * @return the bounded reason
     * @throws NullPointerException if null (named {@code reason})
     */
    public static String reason(String reason) {
        Objects.requireNonNull(reason, "reason");
        String r = reason;
        if (r.length() > DeadLetter.MAX_REASON_LENGTH) {
            int keep = DeadLetter.MAX_REASON_LENGTH - DeadLetter.TRUNCATED.length();
            if (Character.isHighSurrogate(r.charAt(keep - 1))) {
                keep--;
            }
            r = r.substring(0, keep) + DeadLetter.TRUNCATED;
        }
        if (QueueChecks.utf8Length(r) < 0) {
            StringBuilder sb = new StringBuilder(r.length());
            for (int i = 0; i < r.length(); i++) {
                char c = r.charAt(i);
                if (Character.isHighSurrogate(c) && i + 1 < r.length() && Character.isLowSurrogate(r.charAt(i + 1))) {
                    sb.append(c).append(r.charAt(++i));
                } else {
                    sb.append(Character.isSurrogate(c) ? '?' : c);
                }
            }
            r = sb.toString();
        }
        return r;
    }

    /** @return the error for use after close */
    public IllegalStateException closedError() {
        return new IllegalStateException("queue '" + options.name() + "' is closed");
    }

    @Override
    public String toString() {
        return "QueueSupport[" + options + "]";
    }
}

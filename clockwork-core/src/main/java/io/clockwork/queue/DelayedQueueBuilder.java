package io.clockwork.queue;

import java.time.Duration;

/**
 * The options every {@link DelayedQueue} backend's builder shares ({@link QueueOptions}), set one by one or as a
 * whole. Not thread-safe. Each option may be set once; a bad value fails at once, naming the option and its allowed
 * range.
 *
 * @param <V> the value type
 * @param <B> the concrete builder, returned by each setter
 */
public abstract class DelayedQueueBuilder<V, B extends DelayedQueueBuilder<V, B>> {

    private final QueueOptions.Builder<V> options = QueueOptions.builder();

    /** For subclasses. */
    protected DelayedQueueBuilder() {
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * Sets every option the value holds (its name and codec only if it has them), each counting as set.
     *
     * @param options shared options, e.g. one {@link QueueOptions} for many queues
     * @return this builder
     * @throws IllegalStateException if one of them was already set
     */
    public B options(QueueOptions<V> options) {
        this.options.setAll(java.util.Objects.requireNonNull(options, "options"));
        return self();
    }

    /**
     * @param name the queue's name: not blank, at most {@value QueueOptions#MAX_NAME_LENGTH} characters
     * @return this builder
     */
    public B name(String name) {
        options.name(name);
        return self();
    }

    /**
     * @param codec turns values into bytes
     * @return this builder
     */
    public B codec(Codec<V> codec) {
        options.codec(codec);
        return self();
    }

    /**
     * @param timeout how long a delivery stays in flight before redelivery, in [1 ms, 7 days]; default
     *                {@link QueueOptions#DEFAULT_VISIBILITY_TIMEOUT}
     * @return this builder
     */
    public B visibilityTimeout(Duration timeout) {
        options.visibilityTimeout(timeout);
        return self();
    }

    /**
     * @param maxAttempts deliveries before a message goes to the dead letters, in [1, 1,000,000]; default
     *                    {@value QueueOptions#DEFAULT_MAX_ATTEMPTS}
     * @return this builder
     */
    public B maxAttempts(int maxAttempts) {
        options.maxAttempts(maxAttempts);
        return self();
    }

    /**
     * @param maxPayloadBytes the largest encoded value, in [1, 512 MiB]; default
     *                        {@value QueueOptions#DEFAULT_MAX_PAYLOAD_BYTES}. It measures the codec's bytes, so a
     *                        backend without a codec refuses it at {@code build()}.
     * @return this builder
     */
    public B maxPayloadBytes(int maxPayloadBytes) {
        options.maxPayloadBytes(maxPayloadBytes);
        return self();
    }

    /**
     * Bounds the dead letters by age and count (see {@link QueueOptions.Builder#deadLetterRetention}); defaults
     * {@link QueueOptions#DEFAULT_DEAD_LETTER_MAX_AGE} and {@value QueueOptions#DEFAULT_DEAD_LETTER_MAX_COUNT}.
     *
     * @param maxAge   how long a dead letter is kept, in [1 ms, {@link DelayedQueue#MAX_DELAY}]
     * @param maxCount how many are kept at most, at least 1
     * @return this builder
     */
    public B deadLetterRetention(Duration maxAge, long maxCount) {
        options.deadLetterRetention(maxAge, maxCount);
        return self();
    }

    /** @return whether a codec was set */
    protected final boolean isCodecSet() {
        return options.isCodecSet();
    }

    /** @return the value given to {@link #maxPayloadBytes(int)}, or 0 if it was not set */
    protected final int explicitMaxPayloadBytes() {
        return options.explicitMaxPayloadBytes();
    }

    /**
     * Freezes the shared options, with defaults for those not set.
     *
     * @param defaultName  the name if none was set
     * @param defaultCodec the codec if none was set (may be null where the backend allows it)
     * @return the options
     */
    protected final QueueOptions<V> options(String defaultName, Codec<V> defaultCodec) {
        return options.build(defaultName, defaultCodec);
    }

    /**
     * Fails if an option is set twice.
     *
     * @param set    whether it was set
     * @param option its name
     */
    protected static void checkUnset(boolean set, String option) {
        QueueOptions.Builder.checkUnset(set, option);
    }
}

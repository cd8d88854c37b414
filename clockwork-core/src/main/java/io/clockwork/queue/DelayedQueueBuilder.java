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

    /**
     * Limits the queue's deliveries as a whole: at most {@code permits} in any {@code interval} (see
     * {@link QueueOptions.Builder#rateLimit} and {@link RateLimit}). Default: unlimited. Not every backend supports
     * it: one that does not refuses it at {@code build()}.
     *
     * @param permits  deliveries per interval, in [1, {@value RateLimit#MAX_PERMITS}]
     * @param interval the window, in [1 ms, 1 day]
     * @return this builder
     */
    public B rateLimit(int permits, Duration interval) {
        options.rateLimit(permits, interval);
        return self();
    }

    /**
     * Limits each group's deliveries: at most {@code permits} in any {@code interval} per group key (see
     * {@link QueueOptions.Builder#groupRateLimit}). Default: unlimited.
     *
     * @param permits  deliveries per interval and group, in [1, {@value RateLimit#MAX_PERMITS}]
     * @param interval the window, in [1 ms, 1 day]
     * @return this builder
     */
    public B groupRateLimit(int permits, Duration interval) {
        options.groupRateLimit(permits, interval);
        return self();
    }

    /**
     * Limits how many messages of one group are in flight at once (see
     * {@link QueueOptions.Builder#maxInFlightPerGroup}); ungrouped messages are not limited. Default: unlimited.
     *
     * @param max in [1, {@value QueueOptions#MAX_IN_FLIGHT_PER_GROUP}]
     * @return this builder
     */
    public B maxInFlightPerGroup(int max) {
        options.maxInFlightPerGroup(max);
        return self();
    }

    /**
     * Sets a group's weight in the round robin between groups (see {@link QueueOptions.Builder#groupWeight});
     * default {@value QueueOptions#DEFAULT_GROUP_WEIGHT}.
     *
     * @param group  the group key
     * @param weight in [1, {@value QueueOptions#MAX_GROUP_WEIGHT}]
     * @return this builder
     */
    public B groupWeight(String group, int weight) {
        options.groupWeight(group, weight);
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

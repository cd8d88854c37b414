package io.clockwork.queue;

import java.time.Duration;
import java.util.Objects;

/**
 * The options every {@link DelayedQueue} backend's builder shares. Not thread-safe. Each option may be set once; a
 * bad value fails at once, naming the option and its allowed range.
 *
 * @param <V> the value type
 * @param <B> the concrete builder, returned by each setter
 */
public abstract class DelayedQueueBuilder<V, B extends DelayedQueueBuilder<V, B>> {

    /** Default visibility timeout. */
    public static final Duration DEFAULT_VISIBILITY_TIMEOUT = Duration.ofSeconds(30);
    /** Default number of deliveries before a message dies. */
    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    /** Default largest encoded value. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
    /** Shortest visibility timeout. */
    public static final Duration MIN_VISIBILITY_TIMEOUT = Duration.ofMillis(1);
    /** Longest visibility timeout. */
    public static final Duration MAX_VISIBILITY_TIMEOUT = Duration.ofDays(7);
    /** Most deliveries a message may be allowed. */
    public static final int MAX_MAX_ATTEMPTS = 1_000_000;

    private String name;
    private Codec<V> codec;
    private Duration visibilityTimeout;
    private int maxAttempts;
    private int maxPayloadBytes;

    /** For subclasses. */
    protected DelayedQueueBuilder() {
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * @param name the queue's name: not blank, at most 200 characters
     * @return this builder
     */
    public B name(String name) {
        Objects.requireNonNull(name, "name");
        checkUnset(this.name != null, "name");
        if (name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException("name must be 1 to 200 non-blank characters, was '" + name + "'");
        }
        this.name = name;
        return self();
    }

    /**
     * @param codec turns values into bytes
     * @return this builder
     */
    public B codec(Codec<V> codec) {
        Objects.requireNonNull(codec, "codec");
        checkUnset(this.codec != null, "codec");
        this.codec = codec;
        return self();
    }

    /**
     * @param timeout how long a delivery stays in flight before redelivery, in [1 ms, 7 days]; default 30 s
     * @return this builder
     */
    public B visibilityTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "visibilityTimeout");
        checkUnset(this.visibilityTimeout != null, "visibilityTimeout");
        if (timeout.compareTo(MIN_VISIBILITY_TIMEOUT) < 0 || timeout.compareTo(MAX_VISIBILITY_TIMEOUT) > 0) {
            throw new IllegalArgumentException("visibilityTimeout must be in [" + MIN_VISIBILITY_TIMEOUT + ", "
                    + MAX_VISIBILITY_TIMEOUT + "], was " + timeout);
        }
        this.visibilityTimeout = timeout;
        return self();
    }

    /**
     * @param maxAttempts deliveries before a message goes to the dead letters, in [1, 1,000,000]; default 5
     * @return this builder
     */
    public B maxAttempts(int maxAttempts) {
        checkUnset(this.maxAttempts != 0, "maxAttempts");
        if (maxAttempts < 1 || maxAttempts > MAX_MAX_ATTEMPTS) {
            throw new IllegalArgumentException("maxAttempts must be in [1, " + MAX_MAX_ATTEMPTS + "], was "
                    + maxAttempts);
        }
        this.maxAttempts = maxAttempts;
        return self();
    }

    /**
     * @param maxPayloadBytes the largest encoded value, in [1, 512 MiB]; default 1 MiB. It measures the codec's
     *                        bytes, so a backend without a codec refuses it at {@code build()}.
     * @return this builder
     */
    public B maxPayloadBytes(int maxPayloadBytes) {
        checkUnset(this.maxPayloadBytes != 0, "maxPayloadBytes");
        if (maxPayloadBytes < 1 || maxPayloadBytes > QueueSettings.MAX_PAYLOAD_LIMIT) {
            throw new IllegalArgumentException("maxPayloadBytes must be in [1, " + QueueSettings.MAX_PAYLOAD_LIMIT
                    + "], was " + maxPayloadBytes);
        }
        this.maxPayloadBytes = maxPayloadBytes;
        return self();
    }

    /** @return whether {@link #codec(Codec)} was called */
    protected final boolean isCodecSet() {
        return codec != null;
    }

    /** @return the value given to {@link #maxPayloadBytes(int)}, or 0 if it was not called */
    protected final int explicitMaxPayloadBytes() {
        return maxPayloadBytes;
    }

    /**
     * Freezes the shared options, with defaults for those not set.
     *
     * @param defaultName  the name if none was set
     * @param defaultCodec the codec if none was set (may be null where the backend allows it)
     * @return the settings
     */
    protected QueueSettings<V> settings(String defaultName, Codec<V> defaultCodec) {
        return new QueueSettings<>(name != null ? name : defaultName,
                codec != null ? codec : defaultCodec,
                visibilityTimeout != null ? visibilityTimeout : DEFAULT_VISIBILITY_TIMEOUT,
                maxAttempts != 0 ? maxAttempts : DEFAULT_MAX_ATTEMPTS,
                maxPayloadBytes != 0 ? maxPayloadBytes : DEFAULT_MAX_PAYLOAD_BYTES);
    }

    /**
     * Fails if an option is set twice.
     *
     * @param set    whether it was set
     * @param option its name
     */
    protected static void checkUnset(boolean set, String option) {
        if (set) {
            throw new IllegalStateException(option + " was already set");
        }
    }
}

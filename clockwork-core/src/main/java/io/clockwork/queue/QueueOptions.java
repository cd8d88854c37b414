package io.clockwork.queue;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The options every {@link DelayedQueue} backend shares: name, codec, visibility timeout, attempts and payload size.
 * An immutable value, thread-safe; each backend's builder ({@link DelayedQueueBuilder}) takes them one by one or as
 * a whole ({@link DelayedQueueBuilder#options(QueueOptions)}), and {@link #builder()} makes one to reuse across
 * queues. Every value is checked when it is set, with an error naming the option and its range.
 *
 * <h2>Flow control</h2>
 * Beside the options every backend has, a queue may limit how its due messages flow: {@link Builder#rateLimit} (the
 * queue as a whole), {@link Builder#groupRateLimit} (each group key), {@link Builder#maxInFlightPerGroup} and
 * {@link Builder#groupWeight} (the share of a group in the round robin between groups; see
 * {@link Message#group(String)}). They act when a poll takes messages; offers, acks and every other operation go on
 * as before. The in-process queue supports them; the Redis backend does not yet.
 *
 * @param <V> the value type
 */
public final class QueueOptions<V> {

    /** Default visibility timeout: 30 s. */
    public static final Duration DEFAULT_VISIBILITY_TIMEOUT = Duration.ofSeconds(30);
    /** Default number of deliveries before a message dies: 5. */
    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    /** Default largest encoded value: 1 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
    /** Shortest visibility timeout: 1 ms. */
    public static final Duration MIN_VISIBILITY_TIMEOUT = Duration.ofMillis(1);
    /** Longest visibility timeout: 7 days. */
    public static final Duration MAX_VISIBILITY_TIMEOUT = Duration.ofDays(7);
    /** Most deliveries a message may be allowed. */
    public static final int MAX_MAX_ATTEMPTS = 1_000_000;
    /** Largest allowed {@code maxPayloadBytes}: 512 MiB, the largest value the queue stores in one piece. */
    public static final int MAX_PAYLOAD_LIMIT = 512 * 1024 * 1024;
    /** Longest queue name, in characters. */
    public static final int MAX_NAME_LENGTH = 200;
    /** Default age after which a dead letter is trimmed: 14 days. */
    public static final Duration DEFAULT_DEAD_LETTER_MAX_AGE = Duration.ofDays(14);
    /** Default most dead letters kept per queue (on Redis, this divided among the partitions): 100,000. */
    public static final long DEFAULT_DEAD_LETTER_MAX_COUNT = 100_000;
    /** Largest {@code maxInFlightPerGroup}: 1,000,000. */
    public static final int MAX_IN_FLIGHT_PER_GROUP = 1_000_000;
    /** A group's weight unless {@link Builder#groupWeight} says otherwise: 1. */
    public static final int DEFAULT_GROUP_WEIGHT = 1;
    /** Largest group weight: 1,000. */
    public static final int MAX_GROUP_WEIGHT = 1000;

    private final String name;
    private final Codec<V> codec;
    private final Duration visibilityTimeout;
    private final int maxAttempts;
    private final int maxPayloadBytes;
    /** Whether maxPayloadBytes was set rather than defaulted: a backend without a codec refuses a set one. */
    private final boolean payloadLimitSet;
    private final Duration deadLetterMaxAge;
    private final long deadLetterMaxCount;
    private final FlowOptions flow;

    private QueueOptions(String name, Codec<V> codec, Duration visibilityTimeout, int maxAttempts,
                         int maxPayloadBytes, boolean payloadLimitSet, Duration deadLetterMaxAge,
                         long deadLetterMaxCount, FlowOptions flow) {
        this.flow = flow;
        this.deadLetterMaxAge = deadLetterMaxAge;
        this.deadLetterMaxCount = deadLetterMaxCount;
        this.name = name;
        this.codec = codec;
        this.visibilityTimeout = visibilityTimeout;
        this.maxAttempts = maxAttempts;
        this.maxPayloadBytes = maxPayloadBytes;
        this.payloadLimitSet = payloadLimitSet;
    }

    /**
     * @param <V> the value type
     * @return a builder with nothing set: unset options take their defaults at {@link Builder#build()}
     */
    public static <V> Builder<V> builder() {
        return new Builder<>();
    }

    /** @return the queue's name, or null if the backend names the queue */
    public String name() {
        return name;
    }

    /** @return the codec, or null where the backend keeps values by reference */
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
     * @return how long a dead letter is kept: older ones are trimmed, oldest first, and counted in
     *         {@link QueueStats#trimmed()}
     */
    public Duration deadLetterMaxAge() {
        return deadLetterMaxAge;
    }

    /**
     * @return how many dead letters the queue keeps at most: beyond it the oldest are trimmed (on Redis the bound
     *         applies per partition, as this divided by the partition count, rounded up)
     */
    public long deadLetterMaxCount() {
        return deadLetterMaxCount;
    }

    /**
     * @return the limit on the queue's deliveries as a whole ({@link Builder#rateLimit}); empty if unlimited
     */
    public Optional<RateLimit> rateLimit() {
        return Optional.ofNullable(flow.rateLimit);
    }

    /**
     * @return the limit on each group's deliveries ({@link Builder#groupRateLimit}); empty if unlimited
     */
    public Optional<RateLimit> groupRateLimit() {
        return Optional.ofNullable(flow.groupRateLimit);
    }

    /**
     * @return how many messages of one group may be in flight at once ({@link Builder#maxInFlightPerGroup}); empty
     *         if unlimited
     */
    public OptionalInt maxInFlightPerGroup() {
        return flow.maxInFlightPerGroup == 0 ? OptionalInt.empty() : OptionalInt.of(flow.maxInFlightPerGroup);
    }

    /** @return the weights set with {@link Builder#groupWeight}, by group key, unmodifiable; empty if none */
    public Map<String, Integer> groupWeights() {
        return flow.groupWeights;
    }

    /**
     * @param group a group key
     * @return its weight in the round robin between groups: as set with {@link Builder#groupWeight}, else
     *         {@value #DEFAULT_GROUP_WEIGHT}
     */
    public int groupWeight(String group) {
        return flow.groupWeights.getOrDefault(Objects.requireNonNull(group, "group"), DEFAULT_GROUP_WEIGHT);
    }

    /**
     * @return whether any flow-control option (rate limits, per-group in-flight limit, group weights) is set, for a
     *         backend that does not support them to refuse them
     */
    public boolean hasFlowControl() {
        return flow.rateLimit != null || flow.groupRateLimit != null || flow.maxInFlightPerGroup != 0
                || !flow.groupWeights.isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QueueOptions<?> other && Objects.equals(name, other.name) && flow.equals(other.flow)
                && Objects.equals(codec, other.codec) && visibilityTimeout.equals(other.visibilityTimeout)
                && maxAttempts == other.maxAttempts && maxPayloadBytes == other.maxPayloadBytes
                && payloadLimitSet == other.payloadLimitSet && deadLetterMaxAge.equals(other.deadLetterMaxAge)
                && deadLetterMaxCount == other.deadLetterMaxCount;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, codec, visibilityTimeout, maxAttempts, maxPayloadBytes, payloadLimitSet,
                deadLetterMaxAge, deadLetterMaxCount, flow);
    }

    @Override
    public String toString() {
        return "QueueOptions[name=" + name + ", codec=" + codec + ", visibilityTimeout=" + visibilityTimeout
                + ", maxAttempts=" + maxAttempts + ", maxPayloadBytes=" + maxPayloadBytes + ", deadLetterMaxAge="
                + deadLetterMaxAge + ", deadLetterMaxCount=" + deadLetterMaxCount
                + (hasFlowControl() ? ", rateLimit=" + flow.rateLimit + ", groupRateLimit=" + flow.groupRateLimit
                        + ", maxInFlightPerGroup=" + flow.maxInFlightPerGroup + ", groupWeights=" + flow.groupWeights
                        : "") + "]";
    }

    /** The flow-control options, kept together; 0 {@code maxInFlightPerGroup}: unlimited. */
    private record FlowOptions(RateLimit rateLimit, RateLimit groupRateLimit, int maxInFlightPerGroup,
                               Map<String, Integer> groupWeights) {
    }

    /**
     * Builds {@link QueueOptions}. Not thread-safe. Each option may be set once; a bad value fails at once, naming
     * the option and its allowed range.
     *
     * @param <V> the value type
     */
    public static final class Builder<V> {
        private String name;
        private Codec<V> codec;
        private Duration visibilityTimeout;
        private int maxAttempts;
        private int maxPayloadBytes;
        private Duration deadLetterMaxAge;
        private long deadLetterMaxCount;
        private RateLimit rateLimit;
        private RateLimit groupRateLimit;
        private int maxInFlightPerGroup;
        private final Map<String, Integer> groupWeights = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * @param name the queue's name: not blank, at most {@value #MAX_NAME_LENGTH} characters, well-formed Unicode
         *             (no unpaired surrogate: on Redis the name is part of every key, as UTF-8 bytes, and a string
         *             that does not round-trip through UTF-8 would share its keys with another name)
         * @return this builder
         * @throws IllegalArgumentException naming {@code name} if it is blank, too long or not well-formed
         */
        public Builder<V> name(String name) {
            checkName(name);
            checkUnset(this.name != null, "name");
            this.name = name;
            return this;
        }

        /**
         * Checks a queue name as {@link #name(String)} does, for the places that take a name without a builder.
         *
         * @param name the queue's name
         * @return the name
         * @throws NullPointerException     if null
         * @throws IllegalArgumentException naming {@code name} if it is blank, too long or not well-formed Unicode
         */
        public static String checkName(String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank() || name.length() > MAX_NAME_LENGTH) {
                throw new IllegalArgumentException("name must be 1 to " + MAX_NAME_LENGTH
                        + " non-blank characters, was '" + name + "'");
            }
            Utf8.checkWellFormed("name", name);
            return name;
        }

        /**
         * @param codec turns values into bytes
         * @return this builder
         */
        public Builder<V> codec(Codec<V> codec) {
            Objects.requireNonNull(codec, "codec");
            checkUnset(this.codec != null, "codec");
            this.codec = codec;
            return this;
        }

        /**
         * @param timeout how long a delivery stays in flight before redelivery, in [1 ms, 7 days]; default 30 s
         * @return this builder
         */
        public Builder<V> visibilityTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "visibilityTimeout");
            checkUnset(this.visibilityTimeout != null, "visibilityTimeout");
            if (timeout.compareTo(MIN_VISIBILITY_TIMEOUT) < 0 || timeout.compareTo(MAX_VISIBILITY_TIMEOUT) > 0) {
                throw new IllegalArgumentException("visibilityTimeout must be in [" + MIN_VISIBILITY_TIMEOUT + ", "
                        + MAX_VISIBILITY_TIMEOUT + "], was " + timeout);
            }
            this.visibilityTimeout = timeout;
            return this;
        }

        /**
         * @param maxAttempts deliveries before a message goes to the dead letters, in [1, 1,000,000]; default 5
         * @return this builder
         */
        public Builder<V> maxAttempts(int maxAttempts) {
            checkUnset(this.maxAttempts != 0, "maxAttempts");
            if (maxAttempts < 1 || maxAttempts > MAX_MAX_ATTEMPTS) {
                throw new IllegalArgumentException("maxAttempts must be in [1, " + MAX_MAX_ATTEMPTS + "], was "
                        + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * @param maxPayloadBytes the largest encoded value, in [1, 512 MiB]; default 1 MiB. It measures the codec's
         *                        bytes, so a backend without a codec refuses it.
         * @return this builder
         */
        public Builder<V> maxPayloadBytes(int maxPayloadBytes) {
            checkUnset(this.maxPayloadBytes != 0, "maxPayloadBytes");
            if (maxPayloadBytes < 1 || maxPayloadBytes > MAX_PAYLOAD_LIMIT) {
                throw new IllegalArgumentException("maxPayloadBytes must be in [1, " + MAX_PAYLOAD_LIMIT
                        + "], was " + maxPayloadBytes);
            }
            this.maxPayloadBytes = maxPayloadBytes;
            return this;
        }

        /**
         * Bounds the dead letters: nothing in the queue grows without a bound unless asked. Dead letters older than
         * {@code maxAge}, and beyond {@code maxCount} (oldest first), are trimmed when a message dies and when stats
         * or dead letters are read, and counted in {@link QueueStats#trimmed()}. Defaults
         * {@link #DEFAULT_DEAD_LETTER_MAX_AGE} and {@link #DEFAULT_DEAD_LETTER_MAX_COUNT}; to keep every dead letter,
         * pass {@link DelayedQueue#MAX_DELAY} and {@link Long#MAX_VALUE}.
         *
         * @param maxAge   in [1 ms, {@link DelayedQueue#MAX_DELAY}]
         * @param maxCount at least 1
         * @return this builder
         */
        public Builder<V> deadLetterRetention(Duration maxAge, long maxCount) {
            Objects.requireNonNull(maxAge, "maxAge");
            checkUnset(this.deadLetterMaxAge != null, "deadLetterRetention");
            if (maxAge.compareTo(Duration.ofMillis(1)) < 0 || maxAge.compareTo(DelayedQueue.MAX_DELAY) > 0) {
                throw new IllegalArgumentException("maxAge must be in [1 ms, " + DelayedQueue.MAX_DELAY.toMillis()
                        + " ms], was " + maxAge);
            }
            if (maxCount < 1) {
                throw new IllegalArgumentException("maxCount must be at least 1, was " + maxCount);
            }
            this.deadLetterMaxAge = maxAge;
            this.deadLetterMaxCount = maxCount;
            return this;
        }

        /**
         * Limits the queue's deliveries as a whole, across all its consumers: at most {@code permits} in any
         * {@code interval}, by the sliding log {@link RateLimit} defines, on the queue's clock (its
         * {@link io.clockwork.time.Ticker} in process). A message held back by the limit stays ready and is never
         * dropped: a poll that may wait sleeps until the next permit frees (a poll without a wait returns what it
         * may take, possibly nothing), and each poll that found due messages but returned none because of a rate
         * limit counts in {@link QueueCounters#rateLimited()}. Default: unlimited.
         *
         * @param permits  deliveries per interval, in [1, {@value RateLimit#MAX_PERMITS}]
         * @param interval the window, in [1 ms, 1 day]
         * @return this builder
         * @throws IllegalArgumentException naming {@code permits} or {@code interval} if out of range
         * @throws IllegalStateException    if already set
         */
        public Builder<V> rateLimit(int permits, Duration interval) {
            checkUnset(this.rateLimit != null, "rateLimit");
            this.rateLimit = new RateLimit(permits, interval);
            return this;
        }

        /**
         * Limits each group's deliveries: at most {@code permits} in any {@code interval} per group key (the same
         * numbers for every group), by the sliding log {@link RateLimit} defines. A group held back waits as for
         * {@link #rateLimit}, while other groups go on. Messages without a group are not limited by it (only by
         * {@link #rateLimit}). Default: unlimited.
         *
         * @param permits  deliveries per interval and group, in [1, {@value RateLimit#MAX_PERMITS}]
         * @param interval the window, in [1 ms, 1 day]
         * @return this builder
         * @throws IllegalArgumentException naming {@code permits} or {@code interval} if out of range
         * @throws IllegalStateException    if already set
         */
        public Builder<V> groupRateLimit(int permits, Duration interval) {
            checkUnset(this.groupRateLimit != null, "groupRateLimit");
            this.groupRateLimit = new RateLimit(permits, interval);
            return this;
        }

        /**
         * Limits how many messages of one group are in flight at once: a group with {@code max} messages delivered
         * and not yet acked, nacked, released, dead-lettered or timed out delivers nothing more until one of them
         * settles, while other groups go on. {@code maxInFlightPerGroup(1)} processes each group strictly one
         * message at a time, in delivery order. A delivery whose visibility timeout passes frees its group's slot
         * then, never earlier (a consumer that died holding it blocks its group for up to the visibility timeout),
         * and a lease extended after that fails if the group's slots are taken meanwhile. Messages without a group
         * are not limited by it. Default: unlimited.
         *
         * @param max in [1, {@value #MAX_IN_FLIGHT_PER_GROUP}]
         * @return this builder
         * @throws IllegalArgumentException naming {@code maxInFlightPerGroup} if out of range
         * @throws IllegalStateException    if already set
         */
        public Builder<V> maxInFlightPerGroup(int max) {
            checkUnset(this.maxInFlightPerGroup != 0, "maxInFlightPerGroup");
            if (max < 1 || max > MAX_IN_FLIGHT_PER_GROUP) {
                throw new IllegalArgumentException("maxInFlightPerGroup must be in [1, " + MAX_IN_FLIGHT_PER_GROUP
                        + "], was " + max);
            }
            this.maxInFlightPerGroup = max;
            return this;
        }

        /**
         * Gives a group a larger share of deliveries: among due messages of one priority, groups take turns in a
         * weighted round robin, where a group of weight {@code w} is delivered up to {@code w} messages in a row per
         * turn (its turn ends early if it has no more ready). Groups not named here, and the unnamed group of
         * messages without one, weigh {@value #DEFAULT_GROUP_WEIGHT}. May be called once per group.
         *
         * @param group  the group key, as for {@link Message#group(String)}
         * @param weight in [1, {@value #MAX_GROUP_WEIGHT}]
         * @return this builder
         * @throws IllegalArgumentException naming {@code group} or {@code weight} if out of range
         * @throws IllegalStateException    if this group's weight is already set
         */
        public Builder<V> groupWeight(String group, int weight) {
            QueueChecks.checkGroup("group", group);
            if (weight < 1 || weight > MAX_GROUP_WEIGHT) {
                throw new IllegalArgumentException("weight must be in [1, " + MAX_GROUP_WEIGHT + "], was " + weight
                        + " (group '" + group + "')");
            }
            checkUnset(groupWeights.containsKey(group), "groupWeight of group '" + group + "'");
            groupWeights.put(group, weight);
            return this;
        }

        boolean isNameSet() {
            return name != null;
        }

        boolean isCodecSet() {
            return codec != null;
        }

        int explicitMaxPayloadBytes() {
            return maxPayloadBytes;
        }

        /** Copies the options of a whole value, each counting as set; changes nothing if one was already set. */
        void setAll(QueueOptions<V> options) {
            checkUnset(options.name != null && name != null, "name");
            checkUnset(options.codec != null && codec != null, "codec");
            checkUnset(visibilityTimeout != null, "visibilityTimeout");
            checkUnset(maxAttempts != 0, "maxAttempts");
            checkUnset(options.payloadLimitSet && maxPayloadBytes != 0, "maxPayloadBytes");
            checkUnset(deadLetterMaxAge != null, "deadLetterRetention");
            checkUnset(options.flow.rateLimit != null && rateLimit != null, "rateLimit");
            checkUnset(options.flow.groupRateLimit != null && groupRateLimit != null, "groupRateLimit");
            checkUnset(options.flow.maxInFlightPerGroup != 0 && maxInFlightPerGroup != 0, "maxInFlightPerGroup");
            for (String group : options.flow.groupWeights.keySet()) {
                checkUnset(groupWeights.containsKey(group), "groupWeight of group '" + group + "'");
            }
            if (options.flow.rateLimit != null) {
                rateLimit = options.flow.rateLimit;
            }
            if (options.flow.groupRateLimit != null) {
                groupRateLimit = options.flow.groupRateLimit;
            }
            if (options.flow.maxInFlightPerGroup != 0) {
                maxInFlightPerGroup = options.flow.maxInFlightPerGroup;
            }
            groupWeights.putAll(options.flow.groupWeights);
            if (options.name != null) {
                name(options.name);
            }
            if (options.codec != null) {
                codec(options.codec);
            }
            visibilityTimeout(options.visibilityTimeout);
            maxAttempts(options.maxAttempts);
            if (options.payloadLimitSet) {
                maxPayloadBytes(options.maxPayloadBytes);
            }
            deadLetterRetention(options.deadLetterMaxAge, options.deadLetterMaxCount);
        }

        /** @return the options, with defaults for those not set (no name and no codec if unset) */
        public QueueOptions<V> build() {
            return build(null, null);
        }

        QueueOptions<V> build(String defaultName, Codec<V> defaultCodec) {
            return new QueueOptions<>(name != null ? name : defaultName,
                    codec != null ? codec : defaultCodec,
                    visibilityTimeout != null ? visibilityTimeout : DEFAULT_VISIBILITY_TIMEOUT,
                    maxAttempts != 0 ? maxAttempts : DEFAULT_MAX_ATTEMPTS,
                    maxPayloadBytes != 0 ? maxPayloadBytes : DEFAULT_MAX_PAYLOAD_BYTES, maxPayloadBytes != 0,
                    deadLetterMaxAge != null ? deadLetterMaxAge : DEFAULT_DEAD_LETTER_MAX_AGE,
                    deadLetterMaxAge != null ? deadLetterMaxCount : DEFAULT_DEAD_LETTER_MAX_COUNT,
                    new FlowOptions(rateLimit, groupRateLimit, maxInFlightPerGroup,
                            Collections.unmodifiableMap(new LinkedHashMap<>(groupWeights))));
        }

        static void checkUnset(boolean set, String option) {
            if (set) {
                throw new IllegalStateException(option + " was already set");
            }
        }
    }
}

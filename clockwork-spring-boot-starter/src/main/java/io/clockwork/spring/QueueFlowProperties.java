package io.clockwork.spring;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.spring.ClockworkProperties.QueueProperties;
import io.clockwork.spring.ClockworkProperties.RateLimitProperties;
import java.time.Duration;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Applies a queue's flow-control properties ({@code clockwork.queues.<name>.rate-limit.*}, {@code group-rate-limit.*},
 * {@code max-in-flight-per-group}, {@code group-weights.*}) to its builder, naming the property in every error.
 * Stateless and thread-safe.
 *
 * <p>The core checks each value with its builder's ranges; this class only says which property carried it. Queues
 * open on first use, so {@link #check} checks every queue's values when the context starts rather than when a queue
 * first opens. Both backends keep every option.
 */
final class QueueFlowProperties {

    /** A rate limit's interval unless {@code interval} is set: 1 s. */
    static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

    private QueueFlowProperties() {
    }

    /**
     * Checks the flow-control properties of every configured queue.
     *
     * @param queues the queues' properties by name
     * @throws IllegalArgumentException naming the property and its range if a value is bad
     */
    static void check(Map<String, QueueProperties> queues) {
        // Checks the values; the builder is never built.
        queues.forEach((name, q) -> apply(name, q, InMemoryDelayedQueue.builder()));
    }

    /**
     * Sets a queue's flow-control options on its builder.
     *
     * @param queue the queue's name, for errors
     * @param q     its properties
     * @param b     its builder
     * @param <V>   the value type
     * @param <B>   the builder's type
     * @return the builder
     * @throws IllegalArgumentException naming the property and its range if a value is bad
     */
    static <V, B extends DelayedQueueBuilder<V, B>> B apply(String queue, QueueProperties q, B b) {
        String prefix = "clockwork.queues." + queue + ".";
        rateLimit(prefix + "rate-limit", q.getRateLimit(), b::rateLimit);
        rateLimit(prefix + "group-rate-limit", q.getGroupRateLimit(), b::groupRateLimit);
        Integer max = q.getMaxInFlightPerGroup();
        if (max != null) {
            named(prefix + "max-in-flight-per-group", () -> b.maxInFlightPerGroup(max));
        }
        q.getGroupWeights().forEach((group, weight) -> {
            String property = prefix + "group-weights[" + group + "]";
            if (weight == null) {
                throw new IllegalArgumentException(property + " must be a weight in [1, 1000], was empty");
            }
            named(property, () -> b.groupWeight(group, weight));
        });
        return b;
    }

    private static void rateLimit(String property, RateLimitProperties r, BiConsumer<Integer, Duration> set) {
        if (r.getPermits() == null) {
            if (r.getInterval() != null) {
                throw new IllegalArgumentException(property + ".permits must be set with " + property
                        + ".interval, was unset");
            }
            return;
        }
        Duration interval = r.getInterval() != null ? r.getInterval() : DEFAULT_INTERVAL;
        named(property, () -> set.accept(r.getPermits(), interval));
    }

    /**
     * Runs a builder call, naming the property in its error. The core's error is not kept as the cause: its message
     * is all it says, and Spring reports the root cause of a failed start.
     */
    private static void named(String property, Runnable set) {
        try {
            set.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(property + ": " + e.getMessage());
        }
    }
}

package io.clockwork.worker;

import io.clockwork.queue.DelayedQueue;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a {@link Worker} retries a job whose handler threw: the delay before each retry (fixed, or exponential with a
 * cap), random jitter, how many attempts a job gets, and the exceptions never retried. An immutable value,
 * thread-safe; {@link #fixed}, {@link #exponential} and {@link #DEFAULT} cover most needs, {@link #builder()} the
 * rest.
 *
 * <p>The delay after failed attempt {@code a} (1 for the first delivery) is
 * {@code min(maxDelay, initialDelay * multiplier^(a-1))}, then shortened by up to {@code jitter} of itself at random
 * (so retries of many jobs that failed together spread out, and never exceed the cap). A job whose attempt reaches
 * {@code maxAttempts} (this policy's, or the queue's if lower) is dead-lettered instead, with its error as the
 * reason; so is one that threw an exception of a {@code noRetry} class (or a subclass), whatever its attempt. A
 * handler chooses one attempt's delay itself by throwing {@link RetryLater}.
 */
public final class RetryPolicy {

    /** Default first retry delay: 1 s. */
    public static final Duration DEFAULT_INITIAL_DELAY = Duration.ofSeconds(1);
    /** Default growth of the delay per attempt: 2. */
    public static final double DEFAULT_MULTIPLIER = 2.0;
    /** Default longest retry delay: 5 min. */
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofMinutes(5);
    /** Default jitter: each delay shortened by up to 20% at random. */
    public static final double DEFAULT_JITTER = 0.2;
    /** Default attempts: no limit of the policy's own, so the queue's {@code maxAttempts} decides. */
    public static final int DEFAULT_MAX_ATTEMPTS = Integer.MAX_VALUE;
    /** Largest multiplier accepted. */
    public static final double MAX_MULTIPLIER = 100.0;

    /** Exponential from 1 s, doubling, up to 5 min, 20% jitter, attempts as the queue allows, everything retried. */
    public static final RetryPolicy DEFAULT = builder().build();

    private final Duration initialDelay;
    private final double multiplier;
    private final Duration maxDelay;
    private final double jitter;
    private final int maxAttempts;
    private final List<Class<? extends Throwable>> noRetry;

    private RetryPolicy(Builder b) {
        this.initialDelay = b.initialDelay != null ? b.initialDelay : DEFAULT_INITIAL_DELAY;
        this.multiplier = !Double.isNaN(b.multiplier) ? b.multiplier : DEFAULT_MULTIPLIER;
        Duration max = b.maxDelay != null ? b.maxDelay : DEFAULT_MAX_DELAY;
        if (b.maxDelay == null && max.compareTo(initialDelay) < 0) {
            max = initialDelay; // a long initial delay with the default cap: the initial delay is the cap
        }
        if (max.compareTo(initialDelay) < 0) {
            throw new IllegalStateException("maxDelay (" + max + ") must be at least initialDelay (" + initialDelay
                    + ")");
        }
        this.maxDelay = max;
        this.jitter = !Double.isNaN(b.jitter) ? b.jitter : DEFAULT_JITTER;
        this.maxAttempts = b.maxAttempts != 0 ? b.maxAttempts : DEFAULT_MAX_ATTEMPTS;
        this.noRetry = b.noRetry != null ? b.noRetry : List.of();
    }

    /**
     * A fixed delay, without jitter.
     *
     * @param delay the delay before every retry, at least 0
     * @return the policy
     */
    public static RetryPolicy fixed(Duration delay) {
        return builder().initialDelay(delay).multiplier(1.0).maxDelay(delay).jitter(0.0).build();
    }

    /**
     * An exponential delay that doubles per attempt up to a cap, with the default jitter.
     *
     * @param initialDelay the first retry's delay
     * @param maxDelay     the longest delay, at least {@code initialDelay}
     * @return the policy
     */
    public static RetryPolicy exponential(Duration initialDelay, Duration maxDelay) {
        return builder().initialDelay(initialDelay).maxDelay(maxDelay).build();
    }

    /** @return a builder with nothing set: unset options take their {@code DEFAULT_*} values */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The delay before retrying after failed attempt {@code attempt}, with jitter drawn at random.
     *
     * @param attempt the attempt that failed, from 1
     * @return the delay, in [delay * (1 - jitter), delay]
     */
    public Duration delayAfter(int attempt) {
        return delayAfter(attempt, ThreadLocalRandom.current().nextDouble());
    }

    /**
     * The delay before retrying after failed attempt {@code attempt}, for a given draw of the jitter.
     *
     * @param attempt the attempt that failed, from 1
     * @param random  a draw in [0, 1): 0 gives the full delay, values towards 1 take up to {@code jitter} off it
     * @return the delay
     */
    public Duration delayAfter(int attempt, double random) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be at least 1, was " + attempt);
        }
        if (!(random >= 0.0 && random < 1.0)) {
            throw new IllegalArgumentException("random must be in [0, 1), was " + random);
        }
        double capNanos = nanos(maxDelay);
        double nanos = Math.min(capNanos, nanos(initialDelay) * Math.pow(multiplier, attempt - 1.0));
        nanos -= nanos * jitter * random;
        return Duration.ofNanos((long) Math.min(nanos, Long.MAX_VALUE));
    }

    /**
     * @param error what a handler threw
     * @return false if its class is one of the {@code noRetry} classes or a subclass of one
     */
    public boolean retries(Throwable error) {
        Objects.requireNonNull(error, "error");
        for (Class<? extends Throwable> c : noRetry) {
            if (c.isInstance(error)) {
                return false;
            }
        }
        return true;
    }

    /** @return the first retry delay */
    public Duration initialDelay() {
        return initialDelay;
    }

    /** @return the growth of the delay per attempt (1: fixed) */
    public double multiplier() {
        return multiplier;
    }

    /** @return the longest retry delay */
    public Duration maxDelay() {
        return maxDelay;
    }

    /** @return the most taken off a delay at random, as a share of it */
    public double jitter() {
        return jitter;
    }

    /** @return the attempts a job gets ({@link Integer#MAX_VALUE}: as many as the queue allows) */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** @return the exception classes never retried */
    public List<Class<? extends Throwable>> noRetry() {
        return noRetry;
    }

    private static double nanos(Duration d) {
        return d.getSeconds() * 1e9 + d.getNano();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryPolicy p && initialDelay.equals(p.initialDelay) && multiplier == p.multiplier
                && maxDelay.equals(p.maxDelay) && jitter == p.jitter && maxAttempts == p.maxAttempts
                && noRetry.equals(p.noRetry);
    }

    @Override
    public int hashCode() {
        return Objects.hash(initialDelay, multiplier, maxDelay, jitter, maxAttempts, noRetry);
    }

    @Override
    public String toString() {
        return "RetryPolicy[initialDelay=" + initialDelay + ", multiplier=" + multiplier + ", maxDelay=" + maxDelay
                + ", jitter=" + jitter + ", maxAttempts=" + (maxAttempts == DEFAULT_MAX_ATTEMPTS ? "queue's"
                : maxAttempts) + ", noRetry=" + noRetry.stream().map(Class::getSimpleName).toList() + "]";
    }

    /**
     * Builds a {@link RetryPolicy}. Not thread-safe. Each option may be set once; a bad value fails at once, naming
     * the option and its range.
     */
    public static final class Builder {
        private Duration initialDelay;
        private double multiplier = Double.NaN;
        private Duration maxDelay;
        private double jitter = Double.NaN;
        private int maxAttempts;
        private List<Class<? extends Throwable>> noRetry;

        private Builder() {
        }

        /**
         * @param delay the first retry's delay, in [0, {@link DelayedQueue#MAX_DELAY}]; default 1 s
         * @return this builder
         */
        public Builder initialDelay(Duration delay) {
            this.initialDelay = checkDelay(delay, "initialDelay", initialDelay != null);
            return this;
        }

        /**
         * @param multiplier the growth per attempt, in [1, {@value #MAX_MULTIPLIER}] (1: a fixed delay); default 2
         * @return this builder
         */
        public Builder multiplier(double multiplier) {
            checkUnset(!Double.isNaN(this.multiplier), "multiplier");
            if (!(multiplier >= 1.0 && multiplier <= MAX_MULTIPLIER)) {
                throw new IllegalArgumentException("multiplier must be in [1, " + MAX_MULTIPLIER + "], was "
                        + multiplier);
            }
            this.multiplier = multiplier;
            return this;
        }

        /**
         * @param delay the longest retry delay, in [0, {@link DelayedQueue#MAX_DELAY}] and at least the initial
         *              delay; default 5 min
         * @return this builder
         */
        public Builder maxDelay(Duration delay) {
            this.maxDelay = checkDelay(delay, "maxDelay", maxDelay != null);
            return this;
        }

        /**
         * @param jitter the most taken off each delay at random, as a share of it, in [0, 1]; default 0.2
         * @return this builder
         */
        public Builder jitter(double jitter) {
            checkUnset(!Double.isNaN(this.jitter), "jitter");
            if (!(jitter >= 0.0 && jitter <= 1.0)) {
                throw new IllegalArgumentException("jitter must be in [0, 1], was " + jitter);
            }
            this.jitter = jitter;
            return this;
        }

        /**
         * @param maxAttempts the attempts a job gets, at least 1; the queue's own {@code maxAttempts} still applies
         *                    if lower; default: the queue's
         * @return this builder
         */
        public Builder maxAttempts(int maxAttempts) {
            checkUnset(this.maxAttempts != 0, "maxAttempts");
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * @param classes exceptions (and their subclasses) never retried: a job that throws one is dead-lettered at
         *                once with {@code "class: message"} as the reason
         * @return this builder
         */
        @SafeVarargs
        public final Builder noRetry(Class<? extends Throwable>... classes) {
            Objects.requireNonNull(classes, "classes");
            checkUnset(noRetry != null, "noRetry");
            for (int i = 0; i < classes.length; i++) {
                Objects.requireNonNull(classes[i], "classes[" + i + "]");
            }
            this.noRetry = List.of(classes);
            return this;
        }

        /**
         * @return the policy
         * @throws IllegalStateException if {@code maxDelay} is below {@code initialDelay}
         */
        public RetryPolicy build() {
            return new RetryPolicy(this);
        }

        private static Duration checkDelay(Duration delay, String option, boolean set) {
            Objects.requireNonNull(delay, option);
            checkUnset(set, option);
            if (delay.isNegative() || delay.compareTo(DelayedQueue.MAX_DELAY) > 0) {
                throw new IllegalArgumentException(option + " must be in [0, " + DelayedQueue.MAX_DELAY + "], was "
                        + delay);
            }
            return delay;
        }

        private static void checkUnset(boolean set, String option) {
            if (set) {
                throw new IllegalStateException(option + " was already set");
            }
        }
    }
}

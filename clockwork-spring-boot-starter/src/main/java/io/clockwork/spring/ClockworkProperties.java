package io.clockwork.spring;

import io.clockwork.redis.RedisClients;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The {@code clockwork.*} properties. Not thread-safe: Spring binds it once at start-up, then it is only read.
 * Defaults are literals, so that the configuration metadata shows them; they equal the core's {@code DEFAULT_*}
 * constants (a test checks it).
 */
@ConfigurationProperties("clockwork")
public class ClockworkProperties {

    /** The longest duration a {@code clockwork.redis.*} option takes, as RedisQueueBuilder's options. */
    static final Duration MAX_DURATION = Duration.ofHours(1);

    /**
     * Where the queues live: in-process, redis or postgres. Unset: on Redis when clockwork.redis.uri is set or the
     * application has a Lettuce RedisClient bean, else in process. postgres puts them on the application's
     * DataSource (spring.datasource.*), where an offer inside @Transactional joins the transaction.
     */
    private Backend backend;
    private final Redis redis = new Redis();
    private final PostgresProperties postgres = new PostgresProperties();
    /** Queues by name, each with its options; a queue used without an entry here gets the defaults. */
    private final Map<String, QueueProperties> queues = new LinkedHashMap<>();
    private final WorkerProperties worker = new WorkerProperties();
    private final Metrics metrics = new Metrics();
    private final Tracing tracing = new Tracing();
    private final Health health = new Health();
    private final DashboardProperties dashboard = new DashboardProperties();

    public Backend getBackend() {
        return backend;
    }

    public void setBackend(Backend backend) {
        this.backend = backend;
    }

    public Redis getRedis() {
        return redis;
    }

    @NestedConfigurationProperty
    public PostgresProperties getPostgres() {
        return postgres;
    }

    public Map<String, QueueProperties> getQueues() {
        return queues;
    }

    public WorkerProperties getWorker() {
        return worker;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Tracing getTracing() {
        return tracing;
    }

    public Health getHealth() {
        return health;
    }

    public DashboardProperties getDashboard() {
        return dashboard;
    }

    /**
     * Checks a duration property as it binds, so that a bad value fails the start naming the property.
     *
     * @param property the property's name
     * @param value    its value
     * @param min      the least value allowed
     * @param max      the greatest value allowed
     * @return the value
     * @throws IllegalArgumentException if the value is null or out of range, naming the property and the range
     */
    static Duration checkRange(String property, Duration value, Duration min, Duration max) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(property + " must be in [" + min + ", " + max + "], was " + value);
        }
        return value;
    }

    /** Where queues live. */
    public static class Redis {

        /**
         * Redis URI of the queues, e.g. redis://127.0.0.1:6379 (Lettuce syntax: redis://:password@host:port/db,
         * rediss:// for TLS). Unset: queues are in-process (InMemoryDelayedQueue), unless the application defines
         * a Lettuce RedisClient bean, which is then used.
         */
        private String uri;
        /** Whether queues may open on a server whose maxmemory-policy can evict their keys. */
        private boolean allowEvictingServer;
        /**
         * How long one Redis command may wait for its reply before the operation fails, or is retried within
         * retry-for; in [1ms, 1h].
         */
        private Duration commandTimeout = Duration.ofSeconds(5);
        /**
         * How long a queue operation keeps retrying while Redis is unreachable, not answering or still loading after
         * a restart, before it throws; in [0s, 1h]. 0s fails at once. The default rides through a restart of Redis.
         */
        private Duration retryFor = Duration.ofSeconds(30);
        /**
         * How long a connect of the client built from the uri may take: TCP, TLS and the Redis handshake together,
         * the first one and every reconnect; in [1ms, 1h]. An application's own RedisClient bean keeps its options.
         */
        private Duration connectTimeout = Duration.ofSeconds(10);
        /**
         * Longest wait between two reconnect attempts of the client built from the uri after it lost Redis (the
         * waits grow from 10ms to this); in [10ms, 1h].
         */
        private Duration reconnectMaxDelay = Duration.ofSeconds(1);
        /**
         * The longest an idle listener's poll waits before checking Redis again without a wake-up signal; it bounds
         * how late a delivery can be when a signal is lost; in [1ms, 1h].
         */
        private Duration recheckInterval = Duration.ofSeconds(1);

        public String getUri() {
            return uri;
        }

        public void setUri(String uri) {
            this.uri = uri;
        }

        public boolean isAllowEvictingServer() {
            return allowEvictingServer;
        }

        public void setAllowEvictingServer(boolean allowEvictingServer) {
            this.allowEvictingServer = allowEvictingServer;
        }

        public Duration getCommandTimeout() {
            return commandTimeout;
        }

        public void setCommandTimeout(Duration commandTimeout) {
            this.commandTimeout = checkRange("clockwork.redis.command-timeout", commandTimeout,
                    Duration.ofMillis(1), MAX_DURATION);
        }

        public Duration getRetryFor() {
            return retryFor;
        }

        public void setRetryFor(Duration retryFor) {
            this.retryFor = checkRange("clockwork.redis.retry-for", retryFor, Duration.ZERO,
                    MAX_DURATION);
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = checkRange("clockwork.redis.connect-timeout", connectTimeout,
                    Duration.ofMillis(1), MAX_DURATION);
        }

        public Duration getReconnectMaxDelay() {
            return reconnectMaxDelay;
        }

        public void setReconnectMaxDelay(Duration reconnectMaxDelay) {
            this.reconnectMaxDelay = checkRange("clockwork.redis.reconnect-max-delay", reconnectMaxDelay,
                    RedisClients.RECONNECT_MIN_DELAY, MAX_DURATION);
        }

        public Duration getRecheckInterval() {
            return recheckInterval;
        }

        public void setRecheckInterval(Duration recheckInterval) {
            this.recheckInterval = checkRange("clockwork.redis.recheck-interval", recheckInterval,
                    Duration.ofMillis(1), MAX_DURATION);
        }
    }

    /** Where queues live ({@code clockwork.backend}). */
    public enum Backend {
        /** InMemoryDelayedQueue: one process, nothing stored. */
        IN_PROCESS,
        /** RedisDelayedQueue on clockwork.redis.uri or the application's RedisClient. */
        REDIS,
        /** PostgresDelayedQueue on the application's DataSource. */
        POSTGRES
    }

    /** One queue's options. */
    public static class QueueProperties {

        /** How long a delivery stays invisible to other consumers before it comes back unless acked. */
        private Duration visibilityTimeout = Duration.ofSeconds(30);
        /** Deliveries allowed before a message goes to the dead letters. */
        private int maxAttempts = 5;
        /** Partitions of a Redis queue (spread over a Redis Cluster); stored with the queue when it is created. */
        private int partitions = 1;
        /**
         * Shortest delay of a message a Redis queue keeps in its compact store (about 60% of the memory per pending
         * message); see RedisQueueBuilder.compactAfter.
         */
        private Duration compactAfter = Duration.ofSeconds(10);
        /**
         * Limits the queue's deliveries as a whole, across all its consumers: at most rate-limit.permits in any
         * rate-limit.interval (QueueOptions.Builder.rateLimit). In-process queues only.
         */
        private final RateLimitProperties rateLimit = new RateLimitProperties();
        /**
         * Limits each group's deliveries: at most group-rate-limit.permits in any group-rate-limit.interval per group
         * key (QueueOptions.Builder.groupRateLimit). In-process queues only.
         */
        private final RateLimitProperties groupRateLimit = new RateLimitProperties();
        /**
         * Messages of one group in flight at once, in [1, 1000000]; 1 processes each group strictly one message at a
         * time. Unset: unlimited. In-process queues only.
         */
        private Integer maxInFlightPerGroup;
        /**
         * Weights in the round robin between groups, by group key, each in [1, 1000]; a group not named weighs 1. A
         * key with characters other than letters, digits, '-' and '.' goes in brackets: group-weights[tenant/42]=3.
         * In-process queues only.
         */
        private final Map<String, Integer> groupWeights = new LinkedHashMap<>();

        public RateLimitProperties getRateLimit() {
            return rateLimit;
        }

        public RateLimitProperties getGroupRateLimit() {
            return groupRateLimit;
        }

        public Integer getMaxInFlightPerGroup() {
            return maxInFlightPerGroup;
        }

        public void setMaxInFlightPerGroup(Integer maxInFlightPerGroup) {
            this.maxInFlightPerGroup = maxInFlightPerGroup;
        }

        public Map<String, Integer> getGroupWeights() {
            return groupWeights;
        }

        public Duration getVisibilityTimeout() {
            return visibilityTimeout;
        }

        public void setVisibilityTimeout(Duration visibilityTimeout) {
            this.visibilityTimeout = visibilityTimeout;
        }

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public int getPartitions() {
            return partitions;
        }

        public void setPartitions(int partitions) {
            this.partitions = partitions;
        }

        public Duration getCompactAfter() {
            return compactAfter;
        }

        public void setCompactAfter(Duration compactAfter) {
            this.compactAfter = compactAfter;
        }
    }

    /** A rate limit of a queue: at most {@code permits} deliveries in any {@code interval}. */
    public static class RateLimitProperties {

        /** Deliveries allowed per interval, in [1, 1000000]. Unset: no limit. */
        private Integer permits;
        /** The window the permits are counted in, in [1ms, 1d]; 1s unless set. */
        private Duration interval;

        public Integer getPermits() {
            return permits;
        }

        public void setPermits(Integer permits) {
            this.permits = permits;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }
    }

    /** Defaults of the workers that @ClockworkListener methods start. */
    public static class WorkerProperties {

        /** Handlers running at once per listener, unless its annotation sets concurrency. */
        private int concurrency = 1;
        /**
         * Messages a worker takes ahead of free handlers (0: one per free handler), unless the annotation sets it;
         * unset: the Worker's adaptive prefetch (none at low load, batches under a backlog).
         */
        private Integer prefetch;
        /**
         * A job still running after this long is interrupted and its attempt counts as failed (Worker.timeout); a
         * message's own timeout (Message.timeout) wins. Unset: none.
         */
        private Duration timeout;
        /** How long running handlers may finish at shutdown before they are interrupted. */
        private Duration shutdownTimeout = Duration.ofSeconds(30);
        /**
         * The SmartLifecycle phase of the listener workers: they start after, and stop before, beans of lower
         * phases (the web server's graceful shutdown is at SmartLifecycle.DEFAULT_PHASE - 1024).
         */
        private int phase = Integer.MAX_VALUE - 512;
        private final Retry retry = new Retry();

        public int getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        public Integer getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(Integer prefetch) {
            this.prefetch = prefetch;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        public int getPhase() {
            return phase;
        }

        public void setPhase(int phase) {
            this.phase = phase;
        }

        public Retry getRetry() {
            return retry;
        }
    }

    /** The retry policy of a failed handler: exponential back-off with jitter. */
    public static class Retry {

        /** Delay before the first retry. */
        private Duration initialDelay = Duration.ofSeconds(1);
        /** Factor applied to the delay after each further failure. */
        private double multiplier = 2.0;
        /** Longest delay between two attempts. */
        private Duration maxDelay = Duration.ofMinutes(5);
        /** Share of each delay drawn at random, from 0 to 1. */
        private double jitter = 0.2;
        /** Attempts before the message goes to the dead letters (also capped by the queue's max-attempts). */
        private int maxAttempts = Integer.MAX_VALUE;

        public Duration getInitialDelay() {
            return initialDelay;
        }

        public void setInitialDelay(Duration initialDelay) {
            this.initialDelay = initialDelay;
        }

        public double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(double multiplier) {
            this.multiplier = multiplier;
        }

        public Duration getMaxDelay() {
            return maxDelay;
        }

        public void setMaxDelay(Duration maxDelay) {
            this.maxDelay = maxDelay;
        }

        public double getJitter() {
            return jitter;
        }

        public void setJitter(double jitter) {
            this.jitter = jitter;
        }

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }
    }

    /** Micrometer meters of the queues. */
    public static class Metrics {

        /** Whether queues are metered into the application's MeterRegistry (when there is one). */
        private boolean enabled = true;
        /** How often each queue's state counts are read from its backend for the clockwork.queue.messages gauges. */
        private Duration statsInterval = Duration.ofSeconds(10);
        /**
         * Whether offers carry a due-time header so that first deliveries record clockwork.queue.delivery.lateness
         * (measured between the producer's and the consumer's clocks).
         */
        private boolean deliveryLateness;

        public boolean isDeliveryLateness() {
            return deliveryLateness;
        }

        public void setDeliveryLateness(boolean deliveryLateness) {
            this.deliveryLateness = deliveryLateness;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getStatsInterval() {
            return statsInterval;
        }

        public void setStatsInterval(Duration statsInterval) {
            this.statsInterval = statsInterval;
        }
    }

    /** OpenTelemetry spans of the queues and listeners (with clockwork-opentelemetry on the classpath). */
    public static class Tracing {

        /** Whether queues and listeners are traced through the application's OpenTelemetry bean (when there is one). */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** The Actuator health indicator "clockwork". */
    public static class Health {

        /** Dead letters in one queue above which health turns to dead-letter-status; negative: never. */
        private long deadLetterThreshold = -1;
        /** The status when a queue's dead letters exceed the threshold: DOWN or OUT_OF_SERVICE. */
        private String deadLetterStatus = "OUT_OF_SERVICE";

        public long getDeadLetterThreshold() {
            return deadLetterThreshold;
        }

        public void setDeadLetterThreshold(long deadLetterThreshold) {
            this.deadLetterThreshold = deadLetterThreshold;
        }

        public String getDeadLetterStatus() {
            return deadLetterStatus;
        }

        public void setDeadLetterStatus(String deadLetterStatus) {
            this.deadLetterStatus = deadLetterStatus;
        }
    }

    /**
     * The dashboard mounted in the application (with clockwork-dashboard on the classpath, in a servlet web
     * application): a servlet under the path, behind the application's own security.
     */
    public static class DashboardProperties {

        /**
         * Whether the dashboard is mounted. It trusts the user that the application's security put on the request
         * (getUserPrincipal) and refuses requests without one, so secure the path before enabling it.
         */
        private boolean enabled;
        /** Where the dashboard is mounted, below the root, e.g. /clockwork or /ops/queues. */
        private String path = "/clockwork";
        /**
         * Whether the dashboard only shows: no cancel, reschedule, requeue or purge, refused on the server too. Set
         * false to allow these actions to every user the path's security lets in.
         */
        private boolean readOnly = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public boolean isReadOnly() {
            return readOnly;
        }

        public void setReadOnly(boolean readOnly) {
            this.readOnly = readOnly;
        }
    }
}

package io.clockwork.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code clockwork.*} properties. Not thread-safe: Spring binds it once at start-up, then it is only read.
 * Defaults are literals, so that the configuration metadata shows them; they equal the core's {@code DEFAULT_*}
 * constants (a test checks it).
 */
@ConfigurationProperties("clockwork")
public class ClockworkProperties {

    private final Redis redis = new Redis();
    /** Queues by name, each with its options; a queue used without an entry here gets the defaults. */
    private final Map<String, QueueProperties> queues = new LinkedHashMap<>();
    private final WorkerProperties worker = new WorkerProperties();
    private final Metrics metrics = new Metrics();
    private final Tracing tracing = new Tracing();
    private final Health health = new Health();
    private final DashboardProperties dashboard = new DashboardProperties();

    public Redis getRedis() {
        return redis;
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

    /** Defaults of the workers that @ClockworkListener methods start. */
    public static class WorkerProperties {

        /** Handlers running at once per listener, unless its annotation sets concurrency. */
        private int concurrency = 1;
        /** Messages a worker takes ahead of free handlers (0: one per free handler), unless the annotation sets it. */
        private int prefetch = 0;
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

        public int getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(int prefetch) {
            this.prefetch = prefetch;
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

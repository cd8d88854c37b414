package io.clockwork.spring;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueStats;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The Actuator health indicator {@code clockwork}. Thread-safe. It reports:
 * <ul>
 *   <li>Redis reachable: a {@code PING}; no answer is {@code DOWN};</li>
 *   <li>eviction policy safe: {@code maxmemory-policy} from {@code INFO memory}; anything but {@code noeviction}
 *       is {@code DOWN} (evicted queue keys lose messages), unless {@code clockwork.redis.allow-evicting-server};</li>
 *   <li>dead letters per open queue: above {@code clockwork.health.dead-letter-threshold} the status is
 *       {@code clockwork.health.dead-letter-status} ({@code OUT_OF_SERVICE} by default, or {@code DOWN}).</li>
 * </ul>
 * Details list each open queue's counts by state and whether it is paused (a pause is an operator's choice, not a
 * fault: it leaves the status as it is).
 */
public final class ClockworkHealthIndicator extends AbstractHealthIndicator implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final ClockworkQueues queues;
    private final ClockworkProperties properties;
    private final RedisClient redis;
    private final Status deadLetterStatus;
    private StatefulRedisConnection<String, String> connection;

    /**
     * @param queues     the open queues
     * @param properties thresholds and the eviction opt-in
     * @param redis      the queues' Redis client, or null for in-process queues
     */
    public ClockworkHealthIndicator(ClockworkQueues queues, ClockworkProperties properties, RedisClient redis) {
        super("Clockwork health check failed");
        this.queues = Objects.requireNonNull(queues, "queues");
        this.properties = Objects.requireNonNull(properties, "properties");
        this.redis = redis;
        String s = properties.getHealth().getDeadLetterStatus();
        if (!s.equals(Status.DOWN.getCode()) && !s.equals(Status.OUT_OF_SERVICE.getCode())) {
            throw new IllegalArgumentException("clockwork.health.dead-letter-status must be DOWN or OUT_OF_SERVICE: "
                    + s);
        }
        this.deadLetterStatus = new Status(s);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.up();
        if (redis != null) {
            StatefulRedisConnection<String, String> c = connection();
            String pong = c.sync().ping();
            builder.withDetail("redis", pong);
            String policy = policy(c.sync().info("memory"));
            builder.withDetail("maxmemoryPolicy", policy);
            if (!"noeviction".equals(policy) && !properties.getRedis().isAllowEvictingServer()) {
                builder.down().withDetail("eviction", "maxmemory-policy " + policy + " can evict queue keys; set it "
                        + "to noeviction (or clockwork.redis.allow-evicting-server=true)");
            }
        }
        long threshold = properties.getHealth().getDeadLetterThreshold();
        Map<String, Object> details = new LinkedHashMap<>();
        boolean tooManyDead = false;
        for (Map.Entry<String, DelayedQueue<?>> e : queues.opened().entrySet()) {
            QueueStats s = e.getValue().stats();
            details.put(e.getKey(), Map.of("delayed", s.delayed(), "ready", s.ready(), "inFlight", s.inFlight(),
                    "dead", s.dead(), "paused", e.getValue().isPaused()));
            if (threshold >= 0 && s.dead() > threshold) {
                tooManyDead = true;
            }
        }
        builder.withDetail("queues", details);
        if (tooManyDead && builder.build().getStatus().equals(Status.UP)) {
            builder.status(deadLetterStatus).withDetail("deadLetters", "above the threshold " + threshold);
        }
    }

    private synchronized StatefulRedisConnection<String, String> connection() {
        if (connection == null || !connection.isOpen()) {
            connection = redis.connect();
            connection.setTimeout(TIMEOUT);
        }
        return connection;
    }

    static String policy(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("maxmemory_policy:")) {
                return line.substring("maxmemory_policy:".length()).trim();
            }
        }
        return "unknown";
    }

    /** Closes the indicator's connection. */
    @Override
    public synchronized void close() {
        if (connection != null) {
            connection.close();
        }
    }
}

package io.clockwork.spring;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueStats;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The Actuator health indicator {@code clockwork}. Thread-safe. It reports:
 * <ul>
 *   <li>Redis reachable: a {@code PING}; no answer is {@code DOWN};</li>
 *   <li>PostgreSQL reachable and writable ({@code clockwork.backend=postgres}): a connection from the application's
 *       DataSource that answers within two seconds and is not read-only ({@code transaction_read_only}, as on a
 *       replica); otherwise {@code DOWN} with the reason;</li>
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
    private final DataSource dataSource;
    private final Status deadLetterStatus;
    private StatefulRedisConnection<String, String> connection;

    /**
     * @param queues     the open queues
     * @param properties thresholds and the eviction opt-in
     * @param redis      the queues' Redis client, or null for in-process queues
     */
    public ClockworkHealthIndicator(ClockworkQueues queues, ClockworkProperties properties, RedisClient redis) {
        this(queues, properties, redis, null);
    }

    /**
     * @param queues     the open queues
     * @param properties thresholds and the eviction opt-in
     * @param redis      the queues' Redis client, or null unless the queues are on Redis
     * @param dataSource the queues' DataSource, or null unless the queues are on PostgreSQL
     */
    public ClockworkHealthIndicator(ClockworkQueues queues, ClockworkProperties properties, RedisClient redis,
                                    DataSource dataSource) {
        super("Clockwork health check failed");
        this.queues = Objects.requireNonNull(queues, "queues");
        this.properties = Objects.requireNonNull(properties, "properties");
        this.redis = redis;
        this.dataSource = dataSource;
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
        if (dataSource != null && queues.backend() == ClockworkProperties.Backend.POSTGRES) {
            checkPostgres(builder);
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

    private void checkPostgres(Health.Builder builder) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.isValid((int) TIMEOUT.toSeconds())) {
                builder.down().withDetail("postgres", "no answer within " + TIMEOUT.toSeconds() + " s");
                return;
            }
            builder.withDetail("postgres", c.getMetaData().getDatabaseProductVersion());
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW transaction_read_only")) {
                if (rs.next() && "on".equals(rs.getString(1))) {
                    builder.down().withDetail("readOnly", "the database is read-only (a replica, or "
                            + "default_transaction_read_only): queues cannot write; point the DataSource at the "
                            + "primary");
                }
            }
        } catch (SQLException e) {
            builder.down().withDetail("postgres", "unreachable: " + e.getMessage());
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

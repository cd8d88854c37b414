package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.RateLimit;
import io.clockwork.testing.Await;
import io.clockwork.testing.queue.RateLimitContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link RateLimitContract} on a real PostgreSQL server, plus what only a shared backend promises: one limit for
 * every client of a queue, on the database's clock.
 */
@ExtendWith(PostgresExtension.class)
class PostgresRateLimitIT extends RateLimitContract {

    private static final Duration VISIBILITY = Duration.ofMinutes(5);

    private final ContractQueues queues = new ContractQueues("rate-");

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    /** Half an interval covers a test step's own latency on a busy machine. */
    @Override
    protected Duration interval() {
        return Duration.ofMillis(400);
    }

    @Override
    protected void passTime(Duration amount) {
        ContractQueues.passTime(amount);
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }

    /** The database time of every delivery in flight, in microseconds: a take sets its lease end to now + lease. */
    private static List<Long> deliveryMicros(String name) {
        List<Long> times = new ArrayList<>();
        try (Connection c = ContractQueues.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT (extract(epoch FROM due) * 1000000)::int8 - ?"
                     + " FROM clockwork.clockwork_messages WHERE queue = ? AND state = 1 ORDER BY due")) {
            ps.setLong(1, VISIBILITY.toNanos() / 1000);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    times.add(rs.getLong(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return times;
    }

    /** @return the most deliveries in any window (t - window, t] */
    private static int mostInAnyWindow(List<Long> sorted, long window) {
        int most = 0;
        int from = 0;
        for (int to = 0; to < sorted.size(); to++) {
            while (sorted.get(from) <= sorted.get(to) - window) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        return most;
    }

    @Test
    void threeClientsShareOneLimitOnTheDatabasesClock() throws Exception {
        String name = "rate-shared";
        RateLimit limit = new RateLimit(40, Duration.ofMillis(400));
        int total = 200;
        List<PostgresDelayedQueue<String>> clients = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            clients.add(queues.track(PostgresDelayedQueue.builder(ContractQueues.dataSource(), name, Codec.string())
                    .visibilityTimeout(VISIBILITY).rateLimit(limit.permits(), limit.interval()).build()));
        }
        for (int i = 0; i < total; i++) {
            clients.get(0).offer("m" + i, Duration.ZERO);
        }
        AtomicBoolean done = new AtomicBoolean();
        List<Future<Integer>> consumers = new ArrayList<>();
        for (PostgresDelayedQueue<String> q : clients) {
            for (int t = 0; t < 2; t++) {
                boolean batches = t == 0;
                consumers.add(background.submit(() -> {
                    int taken = 0;
                    while (!done.get()) {
                        taken += batches ? q.poll(7, Duration.ofMillis(200)).size()
                                : (q.poll(Duration.ofMillis(200)) != null ? 1 : 0);
                    }
                    return taken;
                }));
            }
        }
        Await.until("every message delivered", Duration.ofSeconds(30), () -> deliveryMicros(name).size() >= total);
        done.set(true);
        int taken = 0;
        for (Future<Integer> f : consumers) {
            taken += f.get(10, TimeUnit.SECONDS);
        }
        List<Long> times = deliveryMicros(name);
        assertThat(taken).isEqualTo(total);
        assertThat(times).hasSize(total);
        assertThat(mostInAnyWindow(times, 400_000)).as("deliveries in any 400 ms of the database's clock")
                .isLessThanOrEqualTo(40);
        assertThat(times.get(total - 1) - times.get(0)).as("five windows' worth: four full intervals at least")
                .isGreaterThanOrEqualTo(4 * 400_000L).isLessThan(4 * 400_000L + 2_000_000L);
        PostgresDelayedQueue<String> observer = queues.track(
                PostgresDelayedQueue.builder(ContractQueues.dataSource(), name, Codec.string()).build());
        assertThat(observer.counters().orElseThrow().rateLimited()).as("waits every process sees").isPositive();
        assertThat(observer.counters().orElseThrow().delivered()).isEqualTo(total);
    }

    @Test
    void aQueueWithoutALimitStoresNoneAndCountsNoWait() throws Exception {
        PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> { });
        for (int i = 0; i < 20; i++) {
            q.offer("m" + i, Duration.ZERO);
        }
        assertThat(q.poll(20, Duration.ZERO)).hasSize(20);
        assertThat(q.counters().orElseThrow().rateLimited()).isZero();
        try (Connection c = ContractQueues.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT count(*) FROM clockwork.clockwork_rate_limits WHERE queue = ?")) {
            ps.setString(1, q.name());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getLong(1)).isZero();
            }
        }
    }
}

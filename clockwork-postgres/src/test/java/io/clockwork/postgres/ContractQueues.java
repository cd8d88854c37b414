package io.clockwork.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.postgres.fixture.PostgresServerProcess;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What the contract tests share on PostgreSQL: one HikariCP pool per test JVM on the shared server, queues with fresh
 * names in the default schema, each closed by {@link #close()}, and time that passes on the database's clock.
 * Thread-safe.
 */
final class ContractQueues implements AutoCloseable {

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static HikariDataSource pool;

    private final String prefix;
    private final List<DelayedQueue<?>> queues = new CopyOnWriteArrayList<>();

    /** @param prefix starts each queue's name, which ends with a number unique in this JVM */
    ContractQueues(String prefix) {
        this.prefix = prefix;
    }

    /** @return the JVM's pool on the shared server (closed at JVM exit with the server) */
    static synchronized HikariDataSource dataSource() {
        if (pool == null) {
            PostgresServerProcess server = PostgresServerProcess.shared();
            pool = pool(server.jdbcUrl(), 40);
        }
        return pool;
    }

    /** @return a new pool of {@code size} connections on {@code url} */
    static HikariDataSource pool(String url, int size) {
        return pool(url, size, Duration.ofSeconds(10));
    }

    /** @return a new pool of {@code size} connections on {@code url}, waiting {@code timeout} for a connection */
    static HikariDataSource pool(String url, int size, Duration timeout) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(Math.min(size, 8));
        config.setConnectionTimeout(timeout.toMillis());
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    /** A queue with a fresh name and these options, closed by {@link #close()}. */
    <V> PostgresDelayedQueue<V> fresh(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        PostgresQueueBuilder<V> builder = builder(codec);
        options.accept(builder);
        return track(builder.build());
    }

    /** A builder of a queue with a fresh name; {@link #track} its queue. */
    <V> PostgresQueueBuilder<V> builder(Codec<V> codec) {
        return PostgresDelayedQueue.builder(dataSource(), prefix + NAMES.incrementAndGet(), codec);
    }

    /** Closes q with the others. */
    <Q extends DelayedQueue<?>> Q track(Q q) {
        queues.add(q);
        return q;
    }

    /**
     * Opens q's listener, which its first poll given a positive wait does, and waits until it listens: for tests that
     * count notifications. q must have nothing due (the poll must find nothing to take).
     */
    static void listening(PostgresDelayedQueue<?> q) {
        try {
            if (q.poll(Duration.ofMillis(1)) != null) {
                throw new IllegalStateException("queue '" + q.name() + "' had a message due: the poll took it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        io.clockwork.testing.Await.until("queue '" + q.name() + "' listens", q::isListening);
    }

    /** Waits until at least {@code amount} has passed on the database's clock. */
    static void passTime(Duration amount) {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            double start = serverMillis(s);
            long nanos = amount.toNanos();
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000)); // time itself is the subject here
            while (serverMillis(s) - start < amount.toNanos() / 1e6) {
                Thread.sleep(1); // why real time: the database's clock is the subject, read until it has moved
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static double serverMillis(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT extract(epoch FROM clock_timestamp()) * 1000")) {
            rs.next();
            return rs.getDouble(1);
        }
    }

    @Override
    public void close() {
        queues.forEach(DelayedQueue::close);
        queues.clear();
    }
}

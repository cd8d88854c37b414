package io.clockwork.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What goes wrong outside the queue gives an error that says what and how to fix it: a database that cannot be
 * reached, a read-only one, a role without the privileges the schema or the queue needs; and what the backend does
 * not support (groups, rate limits) is refused, not ignored.
 */
@ExtendWith(PostgresExtension.class)
class PostgresQueueErrorsIT {

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeAll
    static void roles(PostgresServerProcess postgres) {
        postgres.sql("""
                DO $$ BEGIN
                  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'cw_app') THEN CREATE ROLE cw_app LOGIN; END IF;
                END $$;
                CREATE SCHEMA IF NOT EXISTS locked;
                GRANT USAGE ON SCHEMA locked TO cw_app;
                CREATE SCHEMA IF NOT EXISTS granted;
                GRANT USAGE, CREATE ON SCHEMA granted TO cw_app;
                """);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private HikariDataSource pool(String url) {
        HikariDataSource ds = ContractQueues.pool(url, 4);
        closeables.add(ds);
        return ds;
    }

    private static String as(String role) {
        return PostgresServerProcess.shared().jdbcUrl().replace("user=" + PostgresServerProcess.SUPERUSER,
                "user=" + role);
    }

    @Test
    void aDatabaseThatCannotBeReachedIsNamedWithTheDriversReason() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        HikariDataSource ds = ContractQueues.pool("jdbc:postgresql://127.0.0.1:" + closedPort + "/nowhere", 1,
                Duration.ofMillis(500));
        closeables.add(ds);
        assertThatThrownBy(() -> PostgresDelayedQueue.builder(ds, "unreachable", Codec.string()).build())
                .isInstanceOf(PostgresQueueException.class)
                .hasMessageContaining("queue 'unreachable'").hasMessageContaining("connect")
                .hasMessageContaining("cannot reach the database")
                .hasMessageContaining("127.0.0.1:" + closedPort);
    }

    @Test
    void aReadOnlyDatabaseIsNamedAsSuch() {
        String readOnly = PostgresServerProcess.shared().jdbcUrl()
                + "&options=-c%20default_transaction_read_only%3Don";
        assertThatThrownBy(() -> PostgresDelayedQueue.builder(pool(readOnly), "ro", Codec.string())
                .schema("read_only_fresh").build())
                .as("creating the schema").isInstanceOf(PostgresQueueException.class)
                .hasMessageContaining("read-only").hasMessageContaining("default_transaction_read_only")
                .hasMessageContaining("primary");
        PostgresDelayedQueue.builder(ContractQueues.dataSource(), "ro", Codec.string()).schema("read_only_made")
                .build().close();
        assertThatThrownBy(() -> PostgresDelayedQueue.builder(pool(readOnly), "ro", Codec.string())
                .schema("read_only_made").build())
                .as("registering the queue in an existing schema").isInstanceOf(PostgresQueueException.class)
                .hasMessageContaining("read-only");
    }

    @Test
    void aRoleWithoutCreateOnTheSchemaIsToldWhichGrantIsMissing() {
        assertThatThrownBy(() -> PostgresDelayedQueue.builder(pool(as("cw_app")), "app", Codec.string())
                .schema("locked").build())
                .isInstanceOf(PostgresQueueException.class).hasMessageContaining("permission denied")
                .hasMessageContaining("GRANT CREATE ON SCHEMA locked TO <role>")
                .hasMessageContaining("autoCreateSchema(false)");
        assertThatThrownBy(() -> PostgresDelayedQueue.builder(pool(as("cw_app")), "app", Codec.string())
                .schema("missing_for_app").build())
                .isInstanceOf(PostgresQueueException.class)
                .hasMessageContaining("GRANT CREATE ON DATABASE");
    }

    @Test
    void aRoleWithCreateOnTheSchemaNeedsNothingElse() throws Exception {
        PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(pool(as("cw_app")), "app", Codec.string())
                .schema("granted").build();
        closeables.add(q);
        q.offer("by an ordinary role", Duration.ZERO);
        assertThat(q.poll(Duration.ZERO).ack()).isTrue();
    }

    @Test
    void aRoleWithoutTablePrivilegesIsToldTheGrants(PostgresServerProcess postgres) {
        postgres.sql("""
                DO $$ BEGIN
                  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'cw_reader') THEN
                    CREATE ROLE cw_reader LOGIN;
                  END IF;
                END $$;
                """);
        PostgresDelayedQueue.builder(ContractQueues.dataSource(), "reader", Codec.string()).schema("for_reader")
                .build().close();
        postgres.sql("GRANT USAGE ON SCHEMA for_reader TO cw_reader");
        assertThatThrownBy(() -> PostgresDelayedQueue.builder(pool(as("cw_reader")), "reader", Codec.string())
                .schema("for_reader").autoCreateSchema(false).build())
                .isInstanceOf(PostgresQueueException.class).hasMessageContaining("permission denied")
                .hasMessageContaining("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA for_reader")
                .hasMessageContaining("GRANT USAGE ON ALL SEQUENCES IN SCHEMA for_reader");
    }

    @Test
    void anExhaustedPoolIsNamedWithHowToSizeIt() {
        HikariDataSource one = ContractQueues.pool(PostgresServerProcess.shared().jdbcUrl(), 1,
                Duration.ofMillis(300));
        closeables.add(one);
        // The pool opens its connection in the background; on a loaded machine that may take longer than 300 ms.
        Await.until("the pool's one connection", Duration.ofSeconds(20), () -> one.getHikariPoolMXBean() != null
                && one.getHikariPoolMXBean().getIdleConnections() == 1);
        PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(one, "exhausted", Codec.string()).build();
        closeables.add(q);
        assertThatThrownBy(() -> q.poll(Duration.ofSeconds(5)))
                .as("a waiting poll opens the listener, which keeps the pool's only connection from the poll's take")
                .isInstanceOf(PostgresQueueException.class).hasMessageContaining("pool is exhausted");
        assertThatThrownBy(() -> q.offer("x", Duration.ZERO)).as("the listener holds the pool's only connection")
                .isInstanceOf(PostgresQueueException.class).hasMessageContaining("queue 'exhausted'")
                .hasMessageContaining("pool is exhausted").hasMessageContaining("listener");
    }

    @Test
    void aStatementTimeoutIsNamed() {
        String impatient = PostgresServerProcess.shared().jdbcUrl() + "&options=-c%20statement_timeout%3D1";
        PostgresDelayedQueue.builder(ContractQueues.dataSource(), "impatient", Codec.string()).schema("impatient")
                .build().close();
        assertThatThrownBy(() -> {
            try (PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(pool(impatient), "impatient",
                    Codec.string()).schema("impatient").build()) {
                for (int i = 0; i < 1000; i++) {
                    q.offerAll(java.util.Collections.nCopies(1000, "x".repeat(100)), Duration.ZERO);
                }
            }
        }).isInstanceOf(PostgresQueueException.class).hasMessageContaining("statement_timeout");
    }

    @Test
    void theDataSourceIsRequired() {
        assertThatThrownBy(() -> PostgresDelayedQueue.builder(null, "q", Codec.string()))
                .isInstanceOf(NullPointerException.class).hasMessage("dataSource");
    }
}

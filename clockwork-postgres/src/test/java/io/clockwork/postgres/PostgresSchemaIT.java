package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The schema: created once when several processes' clients start at once, idempotent, checked (not created) with
 * {@code autoCreateSchema(false)} until a DBA applies the shipped SQL file by hand, and a schema name that must be an
 * identifier.
 */
@ExtendWith(PostgresExtension.class)
class PostgresSchemaIT {

    private final List<PostgresDelayedQueue<String>> queues = new ArrayList<>();

    @AfterEach
    void close() {
        queues.forEach(PostgresDelayedQueue::close);
    }

    private PostgresDelayedQueue<String> build(PostgresQueueBuilder<String> builder) {
        PostgresDelayedQueue<String> q = builder.build();
        queues.add(q);
        return q;
    }

    private static long versions(String schema) throws Exception {
        try (Connection c = ContractQueues.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schema + ".clockwork_schema_version")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void clientsStartingAtOnceInAFreshSchemaCreateItOnce() throws Exception {
        int n = 8;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<PostgresDelayedQueue<String>>> builds = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                // Each client on a pool of its own, as separate processes would be.
                builds.add(pool.submit(() -> {
                    go.await();
                    return PostgresDelayedQueue.builder(ContractQueues.pool(PostgresServerProcess.shared().jdbcUrl(),
                            2), "at-once", Codec.string()).schema("at_once").build();
                }));
            }
            go.countDown();
            for (Future<PostgresDelayedQueue<String>> f : builds) {
                queues.add(f.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(versions("at_once")).isEqualTo(SchemaManager.VERSION);
        queues.get(0).offer("one", Duration.ZERO);
        assertThat(queues.get(n - 1).poll(Duration.ZERO).value()).isEqualTo("one");
    }

    @Test
    void buildingAgainChangesNothing() throws Exception {
        build(PostgresDelayedQueue.builder(ContractQueues.dataSource(), "again", Codec.string()).schema("again"));
        build(PostgresDelayedQueue.builder(ContractQueues.dataSource(), "again", Codec.string()).schema("again"));
        build(PostgresDelayedQueue.builder(ContractQueues.dataSource(), "again", Codec.string()).schema("again")
                .autoCreateSchema(false));
        assertThat(versions("again")).isEqualTo(SchemaManager.VERSION);
    }

    @Test
    void withoutAutoCreateAMissingSchemaNamesTheFileAndTheHandAppliedFileIsAccepted() throws Exception {
        PostgresQueueBuilder<String> manual = PostgresDelayedQueue.builder(ContractQueues.dataSource(), "manual",
                Codec.string()).schema("by_hand").autoCreateSchema(false);
        assertThatThrownBy(manual::build).isInstanceOf(PostgresQueueException.class)
                .hasMessageContaining("queue 'manual'").hasMessageContaining("schema 'by_hand' is at version 0")
                .hasMessageContaining("V1__queue.sql").hasMessageContaining("autoCreateSchema(true)");
        try (Connection c = ContractQueues.dataSource().getConnection(); Statement s = c.createStatement()) {
            assertThat(s.executeQuery("SELECT 1 FROM pg_namespace WHERE nspname = 'by_hand'").next())
                    .as("nothing was created").isFalse();
            // What a DBA does: create the schema, substitute the placeholder, run the file.
            s.execute("CREATE SCHEMA by_hand");
            for (String file : SchemaManager.FILES) {
                s.execute(SchemaManager.text(file).replace("${schema}", "by_hand"));
            }
        }
        PostgresDelayedQueue<String> q = build(PostgresDelayedQueue.builder(ContractQueues.dataSource(), "manual",
                Codec.string()).schema("by_hand").autoCreateSchema(false));
        q.offer("applied by hand", Duration.ZERO);
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("applied by hand");
    }

    @Test
    void theSchemaMustBeALowercaseIdentifier() {
        for (String bad : List.of("", "Upper", "1st", "a-b", "a;drop table x", "x".repeat(64), "\"q\"")) {
            assertThatThrownBy(() -> PostgresDelayedQueue.builder(ContractQueues.dataSource(), "q", Codec.string())
                    .schema(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("schema must be a lowercase SQL identifier");
        }
        assertThatThrownBy(() -> PostgresDelayedQueue.builder(ContractQueues.dataSource(), "q", Codec.string())
                .schema(null)).isInstanceOf(NullPointerException.class).hasMessage("schema");
        assertThatThrownBy(() -> PostgresDelayedQueue.builder(ContractQueues.dataSource(), "q", Codec.string())
                .schema("a").schema("b")).isInstanceOf(IllegalStateException.class).hasMessageContaining("schema");
    }

    @Test
    void queuesOfOneSchemaAreSeparateByNameAndSchemasAreSeparate() throws Exception {
        PostgresDelayedQueue<String> a = build(PostgresDelayedQueue.builder(ContractQueues.dataSource(), "same",
                Codec.string()).schema("sep_one"));
        PostgresDelayedQueue<String> b = build(PostgresDelayedQueue.builder(ContractQueues.dataSource(), "same",
                Codec.string()).schema("sep_two"));
        PostgresDelayedQueue<String> c = build(PostgresDelayedQueue.builder(ContractQueues.dataSource(), "other",
                Codec.string()).schema("sep_one"));
        a.offer("in one", Duration.ZERO);
        assertThat(b.poll(Duration.ZERO)).isNull();
        assertThat(c.poll(Duration.ZERO)).isNull();
        assertThat(a.poll(Duration.ZERO).value()).isEqualTo("in one");
    }
}

package io.clockwork.opentelemetry;

import io.clockwork.postgres.PostgresDelayedQueue;
import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link TracingAcrossClients} through a real PostgreSQL: each client has a {@code DataSource} of its own, and each
 * test a schema of its own, so no test sees another's messages. The trace context travels in the {@code headers}
 * column of {@code clockwork_messages}.
 */
@ExtendWith(PostgresExtension.class)
class TracingPostgresIT extends TracingAcrossClients {

    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    private final String url;
    private final String schema = "tracing_" + SCHEMAS.incrementAndGet();

    TracingPostgresIT(PostgresServerProcess postgres) {
        this.url = postgres.jdbcUrl();
    }

    @Override
    protected DelayedQueue<String> newClient() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url);
        return PostgresDelayedQueue.builder(dataSource, "orders", Codec.string()).schema(schema).build();
    }
}

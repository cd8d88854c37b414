package io.clockwork.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The listener's connection goes back to the pool clean: it no longer listens once its queue is closed. */
@ExtendWith(PostgresExtension.class)
class PostgresListenerIT {

    @Test
    void aClosedQueueLeavesNoListeningConnectionInThePool() throws Exception {
        // Two connections: the listener's, and one for the poll that opens it.
        try (HikariDataSource pool = ContractQueues.pool(PostgresServerProcess.shared().jdbcUrl(), 2,
                Duration.ofSeconds(5))) {
            PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(pool, "unlisten", Codec.string()).build();
            assertThat(q.poll(Duration.ofMillis(1))).as("a poll that waits opens the listener").isNull();
            Await.until("listening", q::isListening);
            q.close();
            Await.until("the listener gave its connection back", () -> pool.getHikariPoolMXBean() != null
                    && pool.getHikariPoolMXBean().getActiveConnections() == 0);
            try (Connection c1 = pool.getConnection(); Connection c2 = pool.getConnection()) {
                for (Connection c : List.of(c1, c2)) {
                    try (Statement s = c.createStatement();
                         ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_listening_channels()")) {
                        rs.next();
                        assertThat(rs.getLong(1)).as("channels a pooled connection still listens to").isZero();
                    }
                }
            }
        }
    }
}

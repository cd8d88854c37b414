package io.clockwork.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A kill -9 of the database and its restart, on a server of this test's own: what was committed survives, what was
 * acked is not redelivered, calls during the outage fail clearly, and the queue (its pool and its listener) resumes
 * by itself, so a waiting consumer is woken by notifications again.
 */
class PostgresQueueRestartIT {

    private static PostgresServerProcess server;
    private static HikariDataSource pool;

    @BeforeAll
    static void start() {
        server = PostgresServerProcess.start();
        pool = ContractQueues.pool(server.jdbcUrl(), 8, Duration.ofSeconds(2));
    }

    @AfterAll
    static void stop() {
        pool.close();
        server.close();
    }

    @Test
    void aKilledDatabaseKeepsWhatWasCommittedAndTheQueueResumesByItself() throws Exception {
        ExecutorService background = Executors.newCachedThreadPool();
        try (PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(pool, "restart", Codec.string())
                .build()) {
            q.offerAll(List.of("acked", "pending-1", "pending-2"), Duration.ZERO);
            Delivery<String> acked = q.poll(Duration.ZERO);
            assertThat(acked.value()).isEqualTo("acked");
            assertThat(acked.ack()).isTrue();

            server.kill();
            assertThatThrownBy(() -> q.offer("during", Duration.ZERO)).isInstanceOf(PostgresQueueException.class)
                    .hasMessageContaining("queue 'restart'").hasMessageContaining("failed");
            server.restart();

            Await.until("the listener reconnected", q::isListening);
            Set<String> after = new HashSet<>();
            Await.until("the pool reconnected", () -> {
                try {
                    for (Delivery<String> d : q.poll(10, Duration.ZERO)) {
                        after.add(d.value());
                        d.ack();
                    }
                    return after.size() == 2;
                } catch (PostgresQueueException | InterruptedException stillDown) {
                    return false;
                }
            });
            assertThat(after).containsExactlyInAnyOrder("pending-1", "pending-2");

            long before = q.notificationsReceived();
            Future<Delivery<String>> waiting = background.submit(() -> q.poll(Duration.ofSeconds(20)));
            q.offer("after the restart", Duration.ZERO);
            assertThat(waiting.get(20, TimeUnit.SECONDS).value()).isEqualTo("after the restart");
            Await.until("a notification after the restart", () -> q.notificationsReceived() > before);
            assertThat(q.stats().total()).as("nothing acked came back").isEqualTo(1);
        } finally {
            background.shutdownNow();
        }
    }
}

package io.clockwork.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.testing.Await;
import io.clockwork.worker.Worker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
            ContractQueues.listening(q);
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

    @Test
    void aWorkerUnderLoadRidesThroughAKillAndLosesNothingCommitted() throws Exception {
        int n = 2000;
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        try (PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(pool, "restart-load", Codec.string())
                .visibilityTimeout(Duration.ofSeconds(2)).build()) {
            List<String> values = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                values.add("job-" + i);
            }
            for (int i = 0; i < n; i += 500) {
                q.offerAll(values.subList(i, i + 500), Duration.ZERO);
            }
            Worker<String> worker = Worker.builder(q, job -> {
                handled.merge(job.value(), 1, Integer::sum);
                Thread.sleep(1); // some work, so that the kill lands while jobs run
            }).concurrency(4).build();
            try {
                Await.until("a quarter handled", () -> handled.size() >= n / 4);
                server.kill();
                server.restart();
                Await.until("every job handled", Duration.ofSeconds(60), () -> handled.size() == n);
                Await.until("every job acked", Duration.ofSeconds(60), () -> {
                    try {
                        return q.stats().total() == 0;
                    } catch (PostgresQueueException stillDown) {
                        return false;
                    }
                });
            } finally {
                worker.close();
            }
        }
        assertThat(handled.keySet()).hasSize(n);
        long twice = handled.values().stream().filter(c -> c > 1).count();
        // What the Worker may hold at the kill: its prefetched jobs, its 4 running handlers, and the acks waiting to
        // go out (a batch of 100, plus one per handler finishing meanwhile). Only those may run again.
        int held = Worker.MAX_ADAPTIVE_PREFETCH + 4 + 100 + 4;
        assertThat(twice).as("at least once: only jobs in flight at the kill may run again").isLessThanOrEqualTo(held);
    }
}

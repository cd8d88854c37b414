package io.clockwork.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client opens its {@code LISTEN} connection at the first poll that waits, not at build: a producer-only client
 * (an application that only offers) holds no connection between its calls, and a consumer still wakes at once on an
 * offer. Each client here has a pool of its own, so its pool's active connections are the client's.
 */
@ExtendWith(PostgresExtension.class)
class PostgresLazyListenerIT {

    private final ExecutorService background = Executors.newCachedThreadPool();
    private HikariDataSource producerPool;
    private HikariDataSource consumerPool;

    @BeforeEach
    void pools() {
        producerPool = ContractQueues.pool(PostgresServerProcess.shared().jdbcUrl(), 4, Duration.ofSeconds(5));
        consumerPool = ContractQueues.pool(PostgresServerProcess.shared().jdbcUrl(), 4, Duration.ofSeconds(5));
    }

    @AfterEach
    void close() {
        background.shutdownNow();
        producerPool.close();
        consumerPool.close();
    }

    /** @return the server's backends whose last statement was the LISTEN of the queue's channel */
    private static long listeningBackends(PostgresDelayedQueue<?> q) throws Exception {
        try (Connection c = ContractQueues.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN \"' || ? || '\"'")) {
            ps.setString(1, q.channel());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static int active(HikariDataSource pool) {
        return pool.getHikariPoolMXBean() == null ? -1 : pool.getHikariPoolMXBean().getActiveConnections();
    }

    @Test
    void aProducerOnlyClientHoldsNoConnectionAndListensToNothing() throws Exception {
        try (PostgresDelayedQueue<String> producer = PostgresDelayedQueue.builder(producerPool, "lazy-producer",
                Codec.string()).build()) {
            producer.offer("now", Duration.ZERO);
            producer.offer("later", Duration.ofMinutes(5));
            producer.offerAll(List.of(Message.of("a"), Message.of("b").delay(Duration.ofSeconds(1))));
            assertThat(producer.stats().total()).isEqualTo(4);
            assertThat(producer.poll(Duration.ZERO)).as("a poll that does not wait").isNotNull().satisfies(
                    d -> assertThat(d.ack()).isTrue());

            assertThat(active(producerPool)).as("connections the producer holds between its calls").isZero();
            assertThat(producer.isListening()).isFalse();
            assertThat(listeningBackends(producer)).as("backends listening on the queue's channel").isZero();
        }
    }

    @Test
    void aConsumerListensFromItsFirstWaitingPollWakesAtOnceOnAnOfferAndGivesTheConnectionBackAtClose()
            throws Exception {
        PostgresDelayedQueue<String> producer = PostgresDelayedQueue.builder(producerPool, "lazy-wake",
                Codec.string()).build();
        PostgresDelayedQueue<String> consumer = PostgresDelayedQueue.builder(consumerPool, "lazy-wake",
                Codec.string()).build();
        try {
            producer.offer("far", Duration.ofHours(1));
            assertThat(consumer.poll(Duration.ZERO)).isNull();
            assertThat(consumer.isListening()).as("before any poll that waits").isFalse();
            assertThat(active(consumerPool)).isZero();

            Future<Delivery<String>> waiting = background.submit(() -> consumer.poll(Duration.ofSeconds(20)));
            Await.until("the waiting consumer listens", consumer::isListening);
            // The take that follows the first LISTEN may hold a second connection for a moment.
            Await.until("the consumer holds only the listener's connection", () -> active(consumerPool) == 1);
            assertThat(listeningBackends(consumer)).isEqualTo(1);
            long before = consumer.notificationsReceived();
            long sent = System.nanoTime();
            producer.offer("now", Duration.ZERO);
            Delivery<String> d = waiting.get(20, TimeUnit.SECONDS);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
            assertThat(d.value()).isEqualTo("now");
            assertThat(consumer.notificationsReceived()).as("woken by the offer's NOTIFY").isGreaterThan(before);
            assertThat(tookMillis).as("woken by the notification, not by the once-a-second recheck")
                    .isLessThan(900);
            assertThat(d.ack()).isTrue();

            assertThat(consumer.poll(Duration.ofMillis(50))).as("a second waiting poll reuses the listener").isNull();
            assertThat(listeningBackends(consumer)).isEqualTo(1);
        } finally {
            consumer.close();
            producer.close();
        }
        Await.until("the closed consumer gave its listener connection back", () -> active(consumerPool) == 0);
        assertThat(listeningBackends(consumer)).isZero();
    }

    @Test
    void aClientClosedBeforeItEverWaitedNeverListens() throws Exception {
        PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(consumerPool, "lazy-closed",
                Codec.string()).build();
        q.offer("x", Duration.ZERO);
        q.close();
        assertThat(q.isListening()).isFalse();
        assertThat(active(consumerPool)).isZero();
        assertThat(listeningBackends(q)).isZero();
    }
}

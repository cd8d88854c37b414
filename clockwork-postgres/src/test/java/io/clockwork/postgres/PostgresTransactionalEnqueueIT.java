package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Transactional enqueue: offers, cancels and reschedules on the caller's connection exist, and wake consumers, only
 * if the caller's transaction commits, together with the caller's own rows.
 */
@ExtendWith(PostgresExtension.class)
class PostgresTransactionalEnqueueIT {

    private final ContractQueues queues = new ContractQueues("tx-");
    private final ExecutorService background = Executors.newCachedThreadPool();

    @BeforeAll
    static void ordersTable() throws SQLException {
        try (Connection c = ContractQueues.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS tx_orders (id text PRIMARY KEY)");
        }
    }

    @AfterEach
    void close() {
        background.shutdownNow();
        queues.close();
    }

    private static Connection begin() throws SQLException {
        Connection c = ContractQueues.dataSource().getConnection();
        c.setAutoCommit(false);
        return c;
    }

    private static void insertOrder(Connection c, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO tx_orders (id) VALUES (?)")) {
            ps.setString(1, id);
            ps.executeUpdate();
        }
    }

    @Test
    void aCommittedOfferIsDeliveredAndWakesAWaitingConsumerOnlyAtCommit() throws Exception {
        PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> { });
        Future<Delivery<String>> waiting = background.submit(() -> q.poll(Duration.ofSeconds(20)));
        Await.until("the waiting poll opened the listener", q::isListening);
        long before = q.notificationsReceived();
        try (Connection c = begin()) {
            insertOrder(c, "order-1");
            Offered o = q.offer(c, Message.of("pay order-1").id("deadline-1"));
            assertThat(o.outcome()).isEqualTo(Offered.Outcome.ADDED);
            assertThat(q.stats().ready()).as("invisible to others before commit").isZero();
            assertThat(waiting.isDone()).isFalse();
            c.commit();
            assertThat(c.isClosed()).isFalse();
        }
        Delivery<String> d = waiting.get(20, TimeUnit.SECONDS);
        assertThat(d.id()).isEqualTo("deadline-1");
        assertThat(d.value()).isEqualTo("pay order-1");
        Await.until("the commit's NOTIFY arrived", () -> q.notificationsReceived() > before);
        assertThat(d.ack()).isTrue();
    }

    @Test
    void aRolledBackOfferLeavesNoMessageAndWakesNobody() throws Exception {
        PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> { });
        ContractQueues.listening(q);
        long before = q.notificationsReceived();
        try (Connection c = begin()) {
            insertOrder(c, "order-rolled-back");
            q.offer(c, Message.of("never").id("never-1"));
            q.offerAll(c, List.of(Message.of("never 2"), Message.of("never 3").delay(Duration.ofMinutes(1))));
            c.rollback();
        }
        assertThat(q.stats().total()).isZero();
        assertThat(q.poll(Duration.ZERO)).isNull();
        // Notifications arrive in commit order: a marker committed after the rollback comes alone if the rolled-back
        // offers sent nothing.
        try (Connection c = ContractQueues.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, 'marker')")) {
            ps.setString(1, q.channel());
            ps.execute();
        }
        Await.until("the marker arrived", () -> q.notificationsReceived() > before);
        assertThat(q.notificationsReceived()).as("only the marker").isEqualTo(before + 1);
        assertThat(q.offer("never-1", "the id is free", Duration.ZERO)).isTrue();
    }

    @Test
    void cancelAndRescheduleTakeEffectOnlyWhenTheCallersTransactionCommits() throws Exception {
        PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> { });
        q.offer("a", "cancel me", Duration.ofHours(1));
        q.offer("b", "move me", Duration.ofHours(1));
        try (Connection c = begin()) {
            assertThat(q.cancel(c, "a")).isTrue();
            assertThat(q.reschedule(c, "b", Duration.ZERO)).isTrue();
            c.rollback();
        }
        assertThat(q.stats().delayed()).as("both still delayed").isEqualTo(2);
        try (Connection c = begin()) {
            assertThat(q.cancel(c, "a")).isTrue();
            assertThat(q.reschedule(c, "b", Duration.ZERO)).isTrue();
            assertThat(q.poll(Duration.ZERO)).as("not yet committed").isNull();
            c.commit();
        }
        Delivery<String> d = q.poll(Duration.ofSeconds(5));
        assertThat(d.id()).isEqualTo("b");
        assertThat(q.stats().total()).as("a is gone, b in flight").isEqualTo(1);
    }

    @Test
    void aCallersOpenTransactionHoldsUpNoStatementOfTheQueueOnABackendThatSharesItsCounterShard() throws Exception {
        PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> { });
        try (Connection open = begin()) {
            q.offer(open, Message.of("in an open transaction").id("held-open"));
            // A connection in autocommit mode, as the queue's own are, whose backend falls on the open transaction's
            // counter shard (pid % 64): its statements count in the same row unless transactions count apart.
            try (Connection same = connectionOnTheShardOf(pid(open))) {
                Future<Offered> offered = background.submit(() -> q.offer(same, Message.of("autocommit").id("mine")));
                assertThat(offered.get(20, TimeUnit.SECONDS).outcome()).isEqualTo(Offered.Outcome.ADDED);
            }
            open.rollback();
        }
        assertThat(q.stats().total()).isEqualTo(1);
        assertThat(q.counters().orElseThrow().offered()).as("the committed offer counted, the rolled-back one not")
                .isEqualTo(1);
    }

    private static int pid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** A new connection (not the pool's) whose backend's pid is {@code pid} modulo 64; about 64 attempts. */
    private static Connection connectionOnTheShardOf(int pid) throws SQLException {
        String url = PostgresServerProcess.shared().jdbcUrl();
        for (int attempt = 0; attempt < 2_000; attempt++) {
            Connection c = DriverManager.getConnection(url);
            if (pid(c) % 64 == pid % 64) {
                return c;
            }
            c.close();
        }
        throw new IllegalStateException("no backend on the shard of pid " + pid + " in 2,000 connections");
    }

    @Test
    void ofAThousandTransactionsHalfRolledBackExactlyTheCommittedHalfIsDelivered() throws Exception {
        PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> { });
        int n = 1000;
        List<Future<Void>> producers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int first = t;
            producers.add(background.submit(() -> {
                for (int i = first; i < n; i += 4) {
                    try (Connection c = begin()) {
                        insertOrder(c, "bulk-" + i);
                        q.offer(c, Message.of("job-" + i).id("job-" + i));
                        if (i % 2 == 0) {
                            c.commit();
                        } else {
                            c.rollback();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<Void> f : producers) {
            f.get(60, TimeUnit.SECONDS);
        }
        Set<String> delivered = new HashSet<>();
        List<Delivery<String>> batch;
        while (!(batch = q.poll(1000, Duration.ZERO)).isEmpty()) {
            for (Delivery<String> d : batch) {
                assertThat(delivered.add(d.value())).as("delivered once: %s", d.value()).isTrue();
            }
            assertThat(q.ackAll(batch)).allMatch(b -> b);
        }
        Set<String> committed = new HashSet<>();
        for (int i = 0; i < n; i += 2) {
            committed.add("job-" + i);
        }
        assertThat(delivered).isEqualTo(committed);
        assertThat(q.counters().orElseThrow().offered()).as("rolled-back offers are not counted").isEqualTo(n / 2);
    }
}

package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
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
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One-message offers from many threads of one client, which the client stores together when they come at once: each
 * caller still gets its own outcome, and every message is stored once.
 */
@ExtendWith(PostgresExtension.class)
class PostgresGroupCommitIT {

    private static final AtomicInteger NAMES = new AtomicInteger();

    @Test
    void concurrentOffersOfOneIdAddItOnceAndEveryOtherMessageIsStored() throws Exception {
        int threads = 8;
        int each = 300;
        try (PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(ContractQueues.dataSource(),
                "group-commit-" + NAMES.incrementAndGet(), Codec.string()).build()) {
            ExecutorService callers = Executors.newFixedThreadPool(threads);
            List<Future<int[]>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(callers.submit(() -> {
                    int added = 0;
                    for (int i = 0; i < each; i++) {
                        // every id twice: thread t and thread t ^ 1 offer "shared-<pair>-<i>"
                        Offered o = q.offer(Message.of("v" + thread).id("shared-" + (thread / 2) + "-" + i));
                        added += o.outcome() == Offered.Outcome.ADDED ? 1 : 0;
                        q.offer("own-" + thread + "-" + i, Duration.ZERO);
                    }
                    return new int[] {added};
                }));
            }
            int added = 0;
            for (Future<int[]> f : done) {
                added += f.get(120, TimeUnit.SECONDS)[0];
            }
            callers.shutdownNow();
            int distinctShared = threads / 2 * each;
            assertThat(added).as("ADDED outcomes of the shared ids").isEqualTo(distinctShared);
            assertThat(q.counters().orElseThrow().offered()).isEqualTo(distinctShared + (long) threads * each);

            Set<String> ids = new HashSet<>();
            List<String> own = new ArrayList<>();
            List<Delivery<String>> batch;
            while (!(batch = q.poll(1000, Duration.ZERO)).isEmpty()) {
                for (Delivery<String> d : batch) {
                    assertThat(ids.add(d.id())).as("delivered once: %s", d.id()).isTrue();
                    if (d.value().startsWith("own-")) {
                        own.add(d.value());
                    }
                }
                q.ackAll(batch);
            }
            assertThat(ids).hasSize(distinctShared + threads * each);
            assertThat(new HashSet<>(own)).hasSize(threads * each);
        }
    }

    @Test
    void offersUnderIdsTheClientMakesGoOnWhileOffersUnderCallersIdsWaitOnAnOpenTransactionsRows() throws Exception {
        try (PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(ContractQueues.dataSource(),
                "group-commit-" + NAMES.incrementAndGet(), Codec.string()).build();
             Connection open = ContractQueues.dataSource().getConnection()) {
            open.setAutoCommit(false);
            q.offer(open, Message.of("held").id("locked-1"));
            q.offer(open, Message.of("held").id("locked-2"));
            ExecutorService callers = Executors.newFixedThreadPool(3);
            try {
                // As many offers under those ids as their statements may run at once: each waits on a row lock.
                List<Future<Offered>> waiting = new ArrayList<>();
                for (int i = 1; i <= PostgresDelayedQueue.OFFER_STATEMENTS; i++) {
                    String id = "locked-" + i;
                    waiting.add(callers.submit(() -> q.offer(Message.of("v").id(id))));
                }
                Await.until("both offers wait on the open transaction's rows", () -> waitingOnLocks() >= 2);
                Future<String> fresh = callers.submit(() -> q.offer("v", Duration.ZERO));
                assertThat(fresh.get(20, TimeUnit.SECONDS)).isNotNull();
                assertThat(waiting).noneMatch(Future::isDone);
                open.rollback();
                for (Future<Offered> w : waiting) {
                    assertThat(w.get(20, TimeUnit.SECONDS).outcome()).isEqualTo(Offered.Outcome.ADDED);
                }
            } finally {
                callers.shutdownNow();
            }
            assertThat(q.stats().total()).isEqualTo(3);
        }
    }

    /** Backends of the test server whose insert into the messages table waits on a lock. */
    private static int waitingOnLocks() {
        try (Connection c = ContractQueues.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                     + " AND query LIKE '%INSERT INTO%clockwork_messages%'")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.worker.Job;
import io.clockwork.worker.Worker;
import io.clockwork.worker.WorkerListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A measuring harness, not a test (its name matches neither *Test nor *IT, so builds never run it): what a queue's
 * tables hold on disk under steady churn. A queue keeps 10,000 messages due in 30 days while 2 producer threads offer
 * messages due now one by one and a {@code Worker} (concurrency 4) takes and acks them, for
 * {@code -Dchurn.seconds} (default 300) on the fixture's server with PostgreSQL's default autovacuum; every
 * {@code -Dchurn.every} seconds (default 20) it prints the messages handled so far, the messages due and not yet
 * taken, the size of the messages table and of its indexes ({@code pg_relation_size}, {@code pg_indexes_size}), its
 * dead tuples and its autovacuum runs. Run it alone: {@code mvn -o -pl clockwork-postgres verify
 * -Dit.test=PostgresChurnHarness -Dtest=NoSuch -Dsurefire.failIfNoSpecifiedTests=false}; its lines start with CHURN.
 */
@ExtendWith(PostgresExtension.class)
class PostgresChurnHarness {

    private static final String SIZES = """
            SELECT pg_relation_size(c.oid), pg_indexes_size(c.oid), s.n_dead_tup, s.autovacuum_count
            FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
            WHERE c.oid = 'clockwork.clockwork_messages'::regclass
            """;

    @Test
    void steadyChurn() throws Exception {
        long seconds = Long.getLong("churn.seconds", 300);
        long every = Long.getLong("churn.every", 20);
        AtomicLong handled = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        try (PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(ContractQueues.dataSource(), "churn",
                Codec.string()).build()) {
            List<String> far = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                far.add("x".repeat(100));
            }
            for (int i = 0; i < 10; i++) {
                q.offerAll(far, Duration.ofDays(30));
            }
            WorkerListener<String> acks = new WorkerListener<>() {
                @Override
                public void acked(Job<String> job) {
                    handled.incrementAndGet();
                }
            };
            Worker<String> worker = Worker.builder(q, job -> { }).concurrency(4).listener(acks).build();
            List<Thread> producers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                Thread p = new Thread(() -> {
                    String payload = "y".repeat(100);
                    while (!stop.get()) {
                        q.offer(payload, Duration.ZERO);
                    }
                }, "churn-producer-" + t);
                p.start();
                producers.add(p);
            }
            System.out.println("CHURN | seconds | handled | due, not yet taken | table bytes | index bytes"
                    + " | dead tuples | autovacuums");
            long start = System.nanoTime();
            for (long t = 0; t <= seconds; t += every) {
                long at = start + t * 1_000_000_000L;
                while (System.nanoTime() - at < 0) {
                    // Why real time: the harness samples a real run at fixed intervals.
                    Thread.sleep(Math.max(1, (at - System.nanoTime()) / 1_000_000));
                }
                try (Connection c = ContractQueues.dataSource().getConnection(); Statement s = c.createStatement();
                     ResultSet r = s.executeQuery(SIZES)) {
                    r.next();
                    System.out.println("CHURN | " + t + " | " + handled.get() + " | " + q.stats().ready() + " | "
                            + r.getLong(1) + " | "
                            + r.getLong(2) + " | " + r.getLong(3) + " | " + r.getLong(4));
                }
            }
            stop.set(true);
            for (Thread p : producers) {
                p.join();
            }
            worker.shutdown(Duration.ofSeconds(30));
        }
    }
}

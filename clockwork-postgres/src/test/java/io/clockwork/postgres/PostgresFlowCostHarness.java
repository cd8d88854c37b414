package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A measuring harness, not a test (its name matches neither *Test nor *IT, so builds never run it): the plans of the
 * plain poll with 1,000,000 delayed prioritized messages pending and of the grouped take with 1,000,000 delayed
 * grouped messages in 1,000 groups pending (EXPLAIN ANALYZE), then the take's time per message on 20,000 due
 * messages, plain against grouped with priorities. Run it alone:
 * {@code mvn -o -pl clockwork-postgres verify -Dit.test=PostgresFlowCostHarness -Dtest=NoSuch
 * -Dsurefire.failIfNoSpecifiedTests=false}; its lines start with EXPLAIN and COST.
 */
@ExtendWith(PostgresExtension.class)
class PostgresFlowCostHarness {

    private static void sql(String text) throws Exception {
        try (Connection c = ContractQueues.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(text);
        }
    }

    private static void explain(String title, Unit full, Map<String, Object> args) throws Exception {
        String src = full.sourceText();
        String last = src.substring(src.lastIndexOf(";\n") + 2);
        Unit u = Unit.of("explain", "\"clockwork\"", "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + last);
        try (Connection c = ContractQueues.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = u.prepare(c, args); ResultSet rs = ps.executeQuery()) {
                System.out.println("EXPLAIN " + title);
                while (rs.next()) {
                    System.out.println("EXPLAIN | " + rs.getString(1));
                }
            }
            c.rollback();
        }
    }

    private static Map<String, Object> args(String queue, Object... more) {
        Map<String, Object> m = new HashMap<>();
        m.put("queue", queue);
        m.put("channel", "x");
        m.put("n", 10);
        m.put("visibility", 30000L);
        m.put("max_attempts", 5);
        m.put("exhausted", "x");
        for (int i = 0; i < more.length; i += 2) {
            m.put((String) more[i], more[i + 1]);
        }
        return m;
    }

    private static void fill(String q, int n, String due, String priority, String group) throws Exception {
        sql("INSERT INTO clockwork.clockwork_messages (queue, id, state, due, seq, priority, payload, grp) "
                + "SELECT '" + q + "', '" + due.hashCode() + "-' || g, 0, " + due + ", "
                + "nextval('clockwork.clockwork_seq'), " + priority + ", '\\x41'::bytea, " + group
                + " FROM generate_series(1, " + n + ") g");
    }

    @Test
    void measure() throws Exception {
        ContractQueues queues = new ContractQueues("cost-");
        PostgresDelayedQueue<String> prio = queues.fresh(Codec.string(), b -> { });
        String later = "clock_timestamp() + interval '1 hour' + g * interval '1 ms'";
        fill(prio.name(), 1_000_000, later, "(g % 5 - 2)::int2", "NULL");
        fill(prio.name(), 1_000, "clock_timestamp() - g * interval '1 ms'", "(g % 3)::int2", "NULL");
        PostgresDelayedQueue<String> grouped = queues.fresh(Codec.string(), b -> b.maxInFlightPerGroup(5));
        fill(grouped.name(), 1_000_000, later, "0::int2", "'g' || (g % 1000)");
        fill(grouped.name(), 1_000, "clock_timestamp() - g * interval '1 ms'", "(g % 3)::int2", "'g' || (g % 100)");
        sql("UPDATE clockwork.clockwork_queues SET grouped = true WHERE name = '" + grouped.name() + "'");
        sql("VACUUM ANALYZE clockwork.clockwork_messages");
        QueueSql qs = new QueueSql("clockwork");
        explain("plain poll, 1M delayed prioritized pending", qs.poll, args(prio.name()));
        GroupSql gs = new GroupSql("clockwork", qs);
        explain("grouped take, 1M delayed grouped pending (1000 groups)", gs.take, args(grouped.name(),
                "max_flight", 5, "wg", null, "ww", null, "gpermits", 0, "ginterval", 0L, "count", false));
        sql("DELETE FROM clockwork.clockwork_messages WHERE queue IN ('" + prio.name() + "', '" + grouped.name()
                + "')");

        for (int round = 0; round < 2; round++) {
            PostgresDelayedQueue<String> plain = queues.fresh(Codec.string(), b -> { });
            String due = "clock_timestamp() - interval '1 minute' + g * interval '1 us'";
            fill(plain.name(), 20_000, due, "0::int2", "NULL");
            PostgresDelayedQueue<String> flow = queues.fresh(Codec.string(), b -> { });
            fill(flow.name(), 20_000, due, "(g % 4)::int2", "'t' || (g % 100)");
            sql("UPDATE clockwork.clockwork_queues SET grouped = true WHERE name = '" + flow.name() + "'");
            sql("VACUUM ANALYZE clockwork.clockwork_messages");
            System.out.printf("COST round %d plain %.1f us/msg, grouped+priorities %.1f us/msg%n", round,
                    drain(plain), drain(flow));
        }
        queues.close();
    }

    /** @return microseconds of polling per message to take all (polls of 100, acked in batches, acks not timed) */
    private static double drain(PostgresDelayedQueue<String> q) throws Exception {
        int n = 0;
        long polling = 0;
        while (true) {
            long t0 = System.nanoTime();
            List<Delivery<String>> got = q.poll(100, Duration.ZERO);
            polling += System.nanoTime() - t0;
            if (got.isEmpty()) {
                break;
            }
            n += got.size();
            q.ackAll(got);
        }
        return polling / 1000.0 / n;
    }
}

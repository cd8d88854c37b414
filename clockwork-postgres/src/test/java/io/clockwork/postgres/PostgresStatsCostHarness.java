package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.queue.QueueStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A measuring harness, not a test (its name matches neither *Test nor *IT, so builds never run it): the time of
 * {@code stats()} on a queue of 1,000,000 messages (870,000 delayed, 20,000 ready, 10,000 in flight, 100,000 dead,
 * the default retention's count)
 * beside another queue of 1,000,000 delayed messages in the same table, right after the rows were written and again
 * after {@code VACUUM}, and after a churn of 20,000 messages, beside a count in one pass over the queue's rows, with
 * the plan of its counting statement (EXPLAIN ANALYZE). Run it alone:
 * {@code mvn -o -pl clockwork-postgres verify -Dit.test=PostgresStatsCostHarness -Dtest=NoSuch
 * -Dsurefire.failIfNoSpecifiedTests=false}; its lines start with EXPLAIN and STATS.
 */
@ExtendWith(PostgresExtension.class)
class PostgresStatsCostHarness {

    private static void sql(String text) throws Exception {
        try (Connection c = ContractQueues.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(text);
        }
    }

    private static void fill(String q, int n, int state, String due) throws Exception {
        sql("INSERT INTO clockwork.clockwork_messages (queue, id, state, due, seq, payload) "
                + "SELECT '" + q + "', '" + state + "-" + due.hashCode() + "-' || g, " + state + ", " + due
                + ", nextval('clockwork.clockwork_seq'), convert_to(repeat('x', 100), 'UTF8')"
                + " FROM generate_series(1, " + n + ") g");
    }

    private static void explain(String queue) throws Exception {
        String src = new QueueSql("clockwork").stats.sourceText();
        String last = src.substring(src.lastIndexOf(";\n") + 2);
        Unit u = Unit.of("explain", "\"clockwork\"", "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + last);
        Map<String, Object> args = new HashMap<>();
        args.put("queue", queue);
        try (Connection c = ContractQueues.dataSource().getConnection();
             PreparedStatement ps = u.prepare(c, args); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                System.out.println("EXPLAIN | " + rs.getString(1));
            }
        }
    }

    /** The counting statement of a single pass over the queue's rows, for comparison. */
    private static final String ONE_PASS = """
            SELECT count(*) FILTER (WHERE m.state = 0 AND m.due > t.now),
                   count(*) FILTER (WHERE m.state = 0 AND m.due <= t.now),
                   count(*) FILTER (WHERE m.state = 1),
                   count(*) FILTER (WHERE m.state = 2),
                   extract(epoch FROM min(m.due) FILTER (WHERE m.state = 0 AND m.due > t.now) - t.now) * 1000,
                   (SELECT coalesce(sum(trimmed), 0) FROM ${schema}.clockwork_counters WHERE queue = :queue)
            FROM (SELECT clock_timestamp() AS now) t LEFT JOIN ${schema}.clockwork_messages m ON m.queue = :queue
            GROUP BY t.now
            """;

    private static long onePassMillis(String queue) throws Exception {
        Unit u = Unit.of("one pass", "\"clockwork\"", ONE_PASS);
        try (Connection c = ContractQueues.dataSource().getConnection();
             PreparedStatement ps = u.prepare(c, Map.of("queue", queue))) {
            long t0 = System.nanoTime();
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
            }
            return (System.nanoTime() - t0) / 1_000_000;
        }
    }

    /** The retention's count limit as an IN list of the ids beyond the newest :max_count, for comparison. */
    private static final String RETENTION_BY_IDS = """
            DELETE FROM ${schema}.clockwork_messages WHERE queue = :queue AND state = 2 AND id IN (
              SELECT id FROM ${schema}.clockwork_messages WHERE queue = :queue AND state = 2
              ORDER BY due DESC, seq DESC OFFSET :max_count)
            """;
    private static final String RETENTION_BY_BOUND = """
            DELETE FROM ${schema}.clockwork_messages WHERE queue = :queue AND state = 2 AND (due, seq) < (
              SELECT due, seq FROM ${schema}.clockwork_messages WHERE queue = :queue AND state = 2
              ORDER BY due DESC, seq DESC OFFSET :max_count - 1 LIMIT 1)
            """;

    /** @return the median ms of a retention statement that deletes nothing (rolled back anyway) */
    private static long retentionMillis(String text, String queue) throws Exception {
        Unit u = Unit.of("retention", "\"clockwork\"", text);
        long[] millis = new long[5];
        try (Connection c = ContractQueues.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < millis.length; i++) {
                try (PreparedStatement ps = u.prepare(c, Map.of("queue", queue, "max_count", 100_000L))) {
                    long t0 = System.nanoTime();
                    ps.executeUpdate();
                    millis[i] = (System.nanoTime() - t0) / 1_000_000;
                }
                c.rollback();
            }
        }
        Arrays.sort(millis);
        return millis[millis.length / 2];
    }

    private static void time(String title, PostgresDelayedQueue<String> q) throws Exception {
        QueueStats s = q.stats();
        onePassMillis(q.name());
        long[] millis = new long[7];
        long[] onePass = new long[millis.length];
        for (int i = 0; i < millis.length; i++) {
            long t0 = System.nanoTime();
            s = q.stats();
            millis[i] = (System.nanoTime() - t0) / 1_000_000;
            onePass[i] = onePassMillis(q.name());
        }
        Arrays.sort(millis);
        Arrays.sort(onePass);
        System.out.printf("STATS %s: stats() median %d ms (min %d, max %d); one-pass count median %d ms (min %d,"
                + " max %d); %s%n", title, millis[millis.length / 2], millis[0], millis[millis.length - 1],
                onePass[millis.length / 2], onePass[0], onePass[millis.length - 1], s);
    }

    /** Takes and acks every ready message and offers as many delayed ones: pages of the backlog change. */
    private static void churn(PostgresDelayedQueue<String> q) throws Exception {
        java.util.Random random = new java.util.Random(1);
        int n = 0;
        while (true) {
            java.util.List<io.clockwork.queue.Delivery<String>> got = q.poll(500, java.time.Duration.ZERO);
            if (got.isEmpty()) {
                break;
            }
            q.ackAll(got);
            java.util.List<io.clockwork.queue.Message<String>> batch = new java.util.ArrayList<>();
            for (int i = 0; i < got.size(); i++) {
                batch.add(io.clockwork.queue.Message.of("x".repeat(100))
                        .delay(java.time.Duration.ofSeconds(3600 + random.nextInt(3600))));
            }
            q.offerAll(batch);
            n += got.size();
        }
        System.out.println("STATS churned " + n + " messages");
    }

    @Test
    void measure() throws Exception {
        try (ContractQueues queues = new ContractQueues("stats-cost-")) {
            PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> { });
            PostgresDelayedQueue<String> other = queues.fresh(Codec.string(), b -> { });
            fill(other.name(), 1_000_000, 0, "clock_timestamp() + interval '1 hour' + g * interval '1 ms'");
            fill(q.name(), 870_000, 0, "clock_timestamp() + interval '1 hour' + g * interval '1 ms'");
            fill(q.name(), 20_000, 0, "clock_timestamp() - g * interval '1 ms'");
            fill(q.name(), 10_000, 1, "clock_timestamp() + interval '1 hour'");
            fill(q.name(), 100_000, 2, "clock_timestamp() - g * interval '1 ms'");
            sql("ANALYZE clockwork.clockwork_messages");
            time("1M rows, analyzed, not vacuumed", q);
            sql("VACUUM ANALYZE clockwork.clockwork_messages");
            time("1M rows, vacuumed", q);
            explain(q.name());
            System.out.printf("STATS retention's count limit, 100,000 dead kept: by ids %d ms, by bound %d ms%n",
                    retentionMillis(RETENTION_BY_IDS, q.name()), retentionMillis(RETENTION_BY_BOUND, q.name()));
            time("other queue's 1M rows", other);
            churn(q);
            time("1M rows, 20,000 taken, acked and offered again since the vacuum", q);
            sql("DELETE FROM clockwork.clockwork_messages WHERE queue IN ('" + q.name() + "', '" + other.name()
                    + "')");
            sql("VACUUM clockwork.clockwork_messages");
        }
    }
}

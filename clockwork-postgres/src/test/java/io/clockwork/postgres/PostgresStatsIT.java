package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.QueueStats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code stats()} on a large queue: exact counts, read from the partial indexes alone (index-only scans), so its cost
 * is the queue's index entries, never its rows (payloads) nor other queues' rows; and the retention's count limit
 * keeps exactly the newest dead letters without reading the rows it keeps.
 */
@ExtendWith(PostgresExtension.class)
class PostgresStatsIT {

    private final ContractQueues queues = new ContractQueues("stats-");

    @AfterEach
    void close() {
        queues.close();
    }

    private static void sql(String text) throws Exception {
        try (Connection c = ContractQueues.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(text);
        }
    }

    private static void fill(String queue, int n, int state, String due, String prefix) throws Exception {
        sql("INSERT INTO clockwork.clockwork_messages (queue, id, state, due, seq, payload) SELECT '" + queue
                + "', '" + prefix + "' || g, " + state + ", " + due + ", nextval('clockwork.clockwork_seq'), "
                + "convert_to(repeat('x', 100), 'UTF8') FROM generate_series(1, " + n + ") g");
    }

    /** @return the plan lines of the last statement of a unit, run with EXPLAIN ANALYZE in a rolled-back transaction */
    private static List<String> plan(Unit unit, Map<String, Object> args) throws Exception {
        String src = unit.sourceText();
        int cut = src.lastIndexOf(";\n");
        String last = cut < 0 ? src : src.substring(cut + 2);
        Unit explain = Unit.of("explain", "\"clockwork\"", "EXPLAIN (ANALYZE, COSTS OFF) " + last);
        List<String> lines = new ArrayList<>();
        try (Connection c = ContractQueues.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = explain.prepare(c, args); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    lines.add(rs.getString(1));
                }
            }
            c.rollback();
        }
        return lines;
    }

    /** @return the plan's scans of clockwork_messages (one line each) */
    private static List<String> scansOfMessages(List<String> plan) {
        return plan.stream().filter(l -> l.contains(" on clockwork_messages")).map(String::trim).toList();
    }

    @Test
    void statsOfALargeQueueAreExactAndReadOnlyThePartialIndexes() throws Exception {
        PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> b.deadLetterRetention(Duration.ofDays(1),
                1_000));
        PostgresDelayedQueue<String> other = queues.fresh(Codec.string(), b -> { });
        fill(other.name(), 50_000, 0, "clock_timestamp() + interval '1 hour'", "o-");
        fill(q.name(), 60_000, 0, "clock_timestamp() + interval '1 hour' + g * interval '1 ms'", "d-");
        fill(q.name(), 3_000, 0, "clock_timestamp() - g * interval '1 ms'", "r-");
        fill(q.name(), 2_000, 1, "clock_timestamp() + interval '1 hour'", "f-");
        // Dead letters d-1 newest ... d-1500 oldest: the retention keeps the newest 1,000.
        fill(q.name(), 1_500, 2, "clock_timestamp() - interval '1 minute' - g * interval '1 ms'", "x-");
        sql("VACUUM ANALYZE clockwork.clockwork_messages");

        QueueStats s = q.stats();
        assertThat(s.delayed()).isEqualTo(60_000);
        assertThat(s.ready()).isEqualTo(3_000);
        assertThat(s.inFlight()).isEqualTo(2_000);
        assertThat(s.dead()).as("the newest 1,000 kept").isEqualTo(1_000);
        assertThat(s.trimmed()).isEqualTo(500);
        assertThat(s.nextDueIn()).hasValueSatisfying(d -> assertThat(d).isBetween(Duration.ofMinutes(59),
                Duration.ofMinutes(60)));
        List<DeadLetter> kept = q.deadLetters(2_000);
        assertThat(kept).hasSize(1_000);
        assertThat(kept.get(0).id()).as("the oldest kept").isEqualTo("x-1000");
        assertThat(kept.get(kept.size() - 1).id()).as("the newest").isEqualTo("x-1");
        assertThat(other.stats().delayed()).isEqualTo(50_000);

        Map<String, Object> args = new HashMap<>();
        args.put("queue", q.name());
        List<String> counting = scansOfMessages(plan(new QueueSql("clockwork").stats, args));
        assertThat(counting).as("the counting statement's scans of clockwork_messages")
                .hasSize(4).allSatisfy(l -> assertThat(l).startsWith("->  Index Only Scan using clockwork_messages_"));

        fill(q.name(), 10, 2, "clock_timestamp()", "y-");
        args.put("max_age", Store.MAX_AGE_MILLIS);
        args.put("max_count", 1_000L);
        args.put("channel", q.channel());
        List<String> retention = scansOfMessages(plan(Unit.of("retention", "\"clockwork\"",
                new QueueSql("clockwork").deadList.sourceText().split(";\n")[0]), args));
        assertThat(retention).as("the retention's scans of clockwork_messages").anySatisfy(l -> assertThat(l)
                .startsWith("->  Index Only Scan Backward using clockwork_messages_dead"))
                .noneMatch(l -> l.contains("Seq Scan"));
    }
}

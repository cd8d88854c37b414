package io.clockwork.postgres;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs the {@link QueueSql} units of one queue on a connection it is given, binding the queue's own parameters
 * (name, channel, max attempts, retention) and reading the replies. It neither opens, commits nor closes a
 * connection: the queue does, or the caller of a transactional operation. Immutable and thread-safe.
 */
final class Store {

    /** A message a poll took: its id, receipt, attempt, payload and headers (bytes). */
    record Taken(String id, long seq, int attempt, byte[] payload, byte[] headers) {
    }

    /**
     * What a poll found: the messages it took, how long until the next scheduled message it did not take and the next
     * lease end (milliseconds, negative if past, null if none or unknown), and whether the queue is paused (known only
     * when nothing was taken).
     */
    record Take(List<Taken> taken, Double nextDueMillis, Double nextLeaseMillis, boolean paused) {
    }

    /** The longest dead-letter age the retention compares: 1,000 years, longer than any dead letter lives. */
    static final long MAX_AGE_MILLIS = 1_000L * 365 * 24 * 3_600_000;

    private final QueueSql sql;
    private final String queue;
    private final String channel;
    private final int maxAttempts;
    private final String exhausted;
    private final long deadMaxAgeMillis;
    private final long deadMaxCount;

    Store(QueueSql sql, String queue, String channel, int maxAttempts, Duration deadMaxAge, long deadMaxCount) {
        this.sql = sql;
        this.queue = queue;
        this.channel = channel;
        this.maxAttempts = maxAttempts;
        this.exhausted = "maxAttempts (" + maxAttempts + ") reached";
        // Beyond about 6,700 years before now a timestamp leaves PostgreSQL's range (4713 BC); every older age keeps
        // every dead letter, as the cap does.
        this.deadMaxAgeMillis = Math.min(deadMaxAge.toMillis(), MAX_AGE_MILLIS);
        this.deadMaxCount = deadMaxCount;
    }

    Map<String, Object> args(Object... namesAndValues) {
        Map<String, Object> m = new HashMap<>();
        m.put("queue", queue);
        m.put("channel", channel);
        m.put("max_attempts", maxAttempts);
        m.put("exhausted", exhausted);
        m.put("max_age", deadMaxAgeMillis);
        m.put("max_count", deadMaxCount);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            m.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return m;
    }

    /** Runs a unit and returns the rows of its last result set (a unit of several statements answers last). */
    private static List<Object[]> rows(Connection c, Unit unit, Map<String, Object> args) throws SQLException {
        try (PreparedStatement ps = unit.prepare(c, args)) {
            List<Object[]> last = List.of();
            boolean isResultSet = ps.execute();
            while (true) {
                if (isResultSet) {
                    try (ResultSet rs = ps.getResultSet()) {
                        last = read(rs);
                    }
                } else if (ps.getUpdateCount() == -1) {
                    return last;
                }
                isResultSet = ps.getMoreResults();
            }
        }
    }

    /** Runs a unit and returns the rows of each of its result sets, in order. */
    private static List<List<Object[]>> allRows(Connection c, Unit unit, Map<String, Object> args)
            throws SQLException {
        try (PreparedStatement ps = unit.prepare(c, args)) {
            List<List<Object[]>> all = new ArrayList<>();
            boolean isResultSet = ps.execute();
            while (true) {
                if (isResultSet) {
                    try (ResultSet rs = ps.getResultSet()) {
                        all.add(read(rs));
                    }
                } else if (ps.getUpdateCount() == -1) {
                    return all;
                }
                isResultSet = ps.getMoreResults();
            }
        }
    }

    private static List<Object[]> read(ResultSet rs) throws SQLException {
        int n = rs.getMetaData().getColumnCount();
        List<Object[]> rows = new ArrayList<>();
        while (rs.next()) {
            Object[] row = new Object[n];
            for (int i = 0; i < n; i++) {
                row[i] = rs.getObject(i + 1);
            }
            rows.add(row);
        }
        return rows;
    }

    private static long count(List<Object[]> rows, int column) {
        return ((Number) rows.get(0)[column]).longValue();
    }

    private static int update(Connection c, Unit unit, Map<String, Object> args) throws SQLException {
        try (PreparedStatement ps = unit.prepare(c, args)) {
            return ps.executeUpdate();
        }
    }

    /** offer under KEEP: whether the message was added. */
    boolean offer(Connection c, String id, byte[] payload, byte[] headers, long delayMillis, int priority,
                  String group) throws SQLException {
        return count(rows(c, sql.offer, args("id", id, "payload", payload, "headers", headers,
                "delay", delayMillis, "priority", priority, "grp", group)), 0) == 1;
    }

    /** offer under REPLACE ({@code replace}) or EXTEND: what happened. */
    Offered.Outcome offer(Connection c, String id, byte[] payload, byte[] headers, long delayMillis, int priority,
                          String group, boolean replace) throws SQLException {
        Object[] row = rows(c, sql.offerReplace, args("id", id, "payload", payload, "headers", headers,
                "delay", delayMillis, "priority", priority, "grp", group, "replace", replace)).get(0);
        if (((Number) row[0]).longValue() == 1) {
            return Boolean.TRUE.equals(row[1]) ? Offered.Outcome.ADDED
                    : replace ? Offered.Outcome.REPLACED : Offered.Outcome.EXTENDED;
        }
        int was = row[2] == null ? -1 : ((Number) row[2]).intValue();
        return was == 1 ? Offered.Outcome.IN_FLIGHT : was == 2 ? Offered.Outcome.DEAD : Offered.Outcome.KEPT;
    }

    /** offer of a batch under KEEP, in list order: the ids added. */
    Set<String> offerAll(Connection c, List<String> ids, List<byte[]> payloads, List<byte[]> headers,
                         List<Long> delaysMillis, List<Short> priorities, List<String> groups)
            throws SQLException {
        Array idArray = c.createArrayOf("text", ids.toArray());
        Array payloadArray = c.createArrayOf("bytea", payloads.toArray(new byte[0][]));
        Array headerArray = c.createArrayOf("bytea", headers.toArray(new byte[0][]));
        Array delayArray = c.createArrayOf("int8", delaysMillis.toArray());
        Array priorityArray = c.createArrayOf("int2", priorities.toArray());
        Array groupArray = c.createArrayOf("text", groups.toArray());
        Set<String> added = new HashSet<>();
        for (Object[] row : rows(c, sql.offerBatch, args("ids", idArray, "payloads", payloadArray,
                "headers", headerArray, "delays", delayArray, "priorities", priorityArray, "groups", groupArray))) {
            added.add((String) row[0]);
        }
        return added;
    }

    /** poll: sweep, then take up to {@code n}. */
    Take poll(Connection c, int n, long visibilityMillis) throws SQLException {
        return take(rows(c, sql.poll, args("n", n, "visibility", visibilityMillis)));
    }

    /** What ack and poll found: whether the ack held, and the poll's take. */
    record AckTake(boolean acked, Take take) {
    }

    /** ack, then poll for one, in one round trip. */
    AckTake ackAndPoll(Connection c, String id, long seq, long visibilityMillis) throws SQLException {
        List<List<Object[]>> all = allRows(c, sql.ackPoll, args("id", id, "seq", seq, "n", 1,
                "visibility", visibilityMillis));
        return new AckTake(count(all.get(0), 0) == 1, take(all.get(all.size() - 1)));
    }

    private static Take take(List<Object[]> rows) {
        List<Taken> taken = new ArrayList<>(rows.size());
        for (Object[] r : rows) {
            if (r[0] == null) {
                return new Take(List.of(), millis(r[5]), millis(r[6]), Boolean.TRUE.equals(r[7]));
            }
            taken.add(new Taken((String) r[0], ((Number) r[1]).longValue(), ((Number) r[2]).intValue(),
                    (byte[]) r[3], (byte[]) r[4]));
        }
        return rows.isEmpty() ? new Take(taken, null, null, false)
                : new Take(taken, millis(rows.get(0)[5]), millis(rows.get(0)[6]), false);
    }

    private static Double millis(Object value) {
        return value == null ? null : ((Number) value).doubleValue();
    }

    /** ack: whether the receipt still held the message. */
    boolean ack(Connection c, String id, long seq) throws SQLException {
        return count(rows(c, sql.ack, args("id", id, "seq", seq)), 0) == 1;
    }

    /** ack of a batch: the "id/seq" keys of the messages deleted. */
    Set<String> ackAll(Connection c, List<String> ids, List<Long> seqs) throws SQLException {
        Set<String> acked = new HashSet<>();
        for (Object[] row : rows(c, sql.ackBatch, args("ids", c.createArrayOf("text", ids.toArray()),
                "seqs", c.createArrayOf("int8", seqs.toArray())))) {
            acked.add(row[0] + "/" + row[1]);
        }
        return acked;
    }

    boolean nack(Connection c, String id, long seq, long delayMillis, String reason) throws SQLException {
        return count(rows(c, sql.nack, args("id", id, "seq", seq, "delay", delayMillis, "reason", reason)), 0) == 1;
    }

    boolean extend(Connection c, String id, long seq, long visibilityMillis) throws SQLException {
        return update(c, sql.extend, args("id", id, "seq", seq, "visibility", visibilityMillis)) == 1;
    }

    boolean release(Connection c, String id, long seq) throws SQLException {
        return count(rows(c, sql.release, args("id", id, "seq", seq)), 0) == 1;
    }

    boolean kill(Connection c, String id, long seq, String reason) throws SQLException {
        return count(rows(c, sql.kill, args("id", id, "seq", seq, "reason", reason)), 0) == 1;
    }

    boolean cancel(Connection c, String id) throws SQLException {
        return update(c, sql.cancel, args("id", id)) == 1;
    }

    boolean reschedule(Connection c, String id, long delayMillis) throws SQLException {
        return count(rows(c, sql.reschedule, args("id", id, "delay", delayMillis)), 0) == 1;
    }

    void pause(Connection c, boolean paused) throws SQLException {
        rows(c, sql.pause, args("paused", paused));
    }

    boolean isPaused(Connection c) throws SQLException {
        return Boolean.TRUE.equals(rows(c, sql.isPaused, args()).get(0)[0]);
    }

    void open(Connection c) throws SQLException {
        update(c, sql.open, args());
    }

    List<DeadLetter> deadLetters(Connection c, int limit) throws SQLException {
        List<DeadLetter> letters = new ArrayList<>();
        for (Object[] r : rows(c, sql.deadList, args("limit", limit))) {
            letters.add(new DeadLetter((String) r[0], (byte[]) r[1], ((Number) r[2]).intValue(),
                    r[3] == null ? "" : (String) r[3], Headers.decode((byte[]) r[4])));
        }
        return letters;
    }

    boolean requeueDead(Connection c, String id) throws SQLException {
        return count(rows(c, sql.deadRequeue, args("id", id)), 0) == 1;
    }

    long purgeDead(Connection c) throws SQLException {
        return update(c, sql.deadPurge, args());
    }

    QueueStats stats(Connection c) throws SQLException {
        Object[] r = rows(c, sql.stats, args()).get(0);
        Optional<Duration> next = r[4] == null ? Optional.empty()
                : Optional.of(Duration.ofNanos(Math.max(0, (long) (((Number) r[4]).doubleValue() * 1_000_000))));
        return new QueueStats(((Number) r[0]).longValue(), ((Number) r[1]).longValue(),
                ((Number) r[2]).longValue(), ((Number) r[3]).longValue(), 0, next, ((Number) r[5]).longValue());
    }

    QueueCounters counters(Connection c) throws SQLException {
        Object[] r = rows(c, sql.counters, args()).get(0);
        return new QueueCounters(((Number) r[0]).longValue(), ((Number) r[1]).longValue(),
                ((Number) r[2]).longValue(), ((Number) r[3]).longValue(), ((Number) r[4]).longValue());
    }
}

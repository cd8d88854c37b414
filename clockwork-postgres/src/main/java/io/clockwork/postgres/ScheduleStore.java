package io.clockwork.postgres;

import io.clockwork.schedule.ScheduleInfo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs the {@link ScheduleSql} units of one queue's schedules on a connection it is given, binding the queue's name
 * and reading rows into {@link Row}s. It neither opens, commits nor closes a connection: {@link PostgresSchedules}
 * does. Immutable and thread-safe.
 */
final class ScheduleStore {

    /** What a put stores for a schedule besides its state: the specs, the spread, the codec's bytes and headers. */
    record Definition(String rule, String misfire, long spreadMs, byte[] payload, byte[] headers) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Definition d && d.rule.equals(rule) && d.misfire.equals(misfire)
                    && d.spreadMs == spreadMs && Arrays.equals(d.payload, payload) && Arrays.equals(d.headers, headers);
        }

        @Override
        public int hashCode() {
            return Objects.hash(rule, misfire, spreadMs, Arrays.hashCode(payload), Arrays.hashCode(headers));
        }

        @Override
        public String toString() {
            return "Definition[" + rule + ", " + misfire + ", spread " + spreadMs + " ms]";
        }
    }

    /**
     * One row of {@code clockwork_schedules} with the database's clock when it was read; times in epoch ms, null
     * for SQL NULL.
     */
    record Row(String name, String rule, String misfire, long spreadMs, byte[] payload, byte[] headers,
               boolean paused, Long next, Long last, String outstanding, Long lookAt, long now) {

        Definition definition() {
            return new Definition(rule, misfire, spreadMs, payload, headers);
        }

        /** @return the instant after which a changed or resumed rule takes its first fire time */
        long from() {
            return last == null ? now : Math.max(last, now);
        }

        ScheduleInfo info() {
            return new ScheduleInfo(name, rule, misfire, paused,
                    Optional.ofNullable(last).map(Instant::ofEpochMilli),
                    paused ? Optional.empty() : Optional.ofNullable(next).map(Instant::ofEpochMilli));
        }
    }

    private final ScheduleSql sql;
    private final String queue;
    private final String channel;

    ScheduleStore(ScheduleSql sql, String queue, String channel) {
        this.sql = sql;
        this.queue = queue;
        this.channel = channel;
    }

    /** Locks up to {@code limit} due schedules, skipping those another transaction holds. */
    List<Row> due(Connection c, int limit) throws SQLException {
        return rows(c, sql.due, args(null, "limit", limit));
    }

    /** @return the ms from the database's now to the earliest look time of the queue's schedules; null if none */
    Long untilNext(Connection c) throws SQLException {
        try (PreparedStatement ps = sql.untilNext.prepare(c, args(null)); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? (Long) rs.getObject(1) : null;
        }
    }

    /** @return the schedule, or null */
    Row get(Connection c, String name) throws SQLException {
        return one(c, sql.get, name);
    }

    /** @return the schedule, locked until the transaction ends, or null */
    Row lock(Connection c, String name) throws SQLException {
        return one(c, sql.lock, name);
    }

    /** @return every schedule of the queue, in no order */
    List<Row> list(Connection c) throws SQLException {
        return rows(c, sql.list, args(null));
    }

    /** @return the database's clock, epoch ms */
    long now(Connection c) throws SQLException {
        try (PreparedStatement ps = sql.now.prepare(c, Map.of()); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Creates a running schedule with its first fire time; returns false if the name exists. */
    boolean insert(Connection c, String name, Definition d, Long next) throws SQLException {
        return update(c, sql.insert, args(name, "rule", d.rule, "misfire", d.misfire, "spread", d.spreadMs,
                "payload", d.payload, "headers", d.headers, "next", next)) == 1;
    }

    /** Rewrites a schedule's definition and state. */
    void write(Connection c, String name, Definition d, boolean paused, Long next, Long last, String outstanding,
               Long look) throws SQLException {
        update(c, sql.update, args(name, "rule", d.rule, "misfire", d.misfire, "spread", d.spreadMs, "payload",
                d.payload, "headers", d.headers, "paused", paused, "next", next, "last", last, "outstanding",
                outstanding, "look", look));
    }

    /** Moves a schedule on after a pass: its next and last fire time, outstanding occurrence and look time. */
    void move(Connection c, String name, Long next, Long last, String outstanding, Long look) throws SQLException {
        update(c, sql.move, args(name, "next", next, "last", last, "outstanding", outstanding, "look", look));
    }

    /** @return whether the schedule existed and is now deleted */
    boolean delete(Connection c, String name) throws SQLException {
        return update(c, sql.delete, args(name)) == 1;
    }

    /** @return whether the message of this id is scheduled or in flight (not finished, not dead) */
    boolean live(Connection c, String id) throws SQLException {
        try (PreparedStatement ps = sql.live.prepare(c, Map.of("queue", queue, "id", id));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** Notifies the queue's sleeping schedulers, at commit. */
    void notifySchedulers(Connection c) throws SQLException {
        try (PreparedStatement ps = sql.notify.prepare(c, Map.of("channel", channel))) {
            ps.execute();
        }
    }

    private Map<String, Object> args(String name, Object... more) {
        Map<String, Object> m = new HashMap<>();
        m.put("queue", queue);
        m.put("name", name);
        for (int i = 0; i < more.length; i += 2) {
            m.put((String) more[i], more[i + 1]);
        }
        return m;
    }

    private static List<Row> rows(Connection c, Unit unit, Map<String, Object> args) throws SQLException {
        try (PreparedStatement ps = unit.prepare(c, args); ResultSet rs = ps.executeQuery()) {
            List<Row> out = new ArrayList<>();
            while (rs.next()) {
                out.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getBytes(5),
                        rs.getBytes(6), rs.getBoolean(7), (Long) rs.getObject(8), (Long) rs.getObject(9),
                        rs.getString(10), (Long) rs.getObject(11), rs.getLong(12)));
            }
            return out;
        }
    }

    private Row one(Connection c, Unit unit, String name) throws SQLException {
        List<Row> r = rows(c, unit, args(name));
        return r.isEmpty() ? null : r.get(0);
    }

    private static int update(Connection c, Unit unit, Map<String, Object> args) throws SQLException {
        try (PreparedStatement ps = unit.prepare(c, args)) {
            return ps.executeUpdate();
        }
    }
}

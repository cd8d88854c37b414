package io.clockwork.postgres;

import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.QueueOptions;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The grouped take of a {@link PostgresDelayedQueue} ({@link GroupSql#take}) and when a client uses it: from the
 * start if the client sets a per-group option, else once it offers a message with a group or finds the queue's
 * {@code grouped} flag set (the plain {@code poll} takes nothing from such a queue). Thread-safe.
 */
final class GroupTake {

    private final GroupSql sql;
    private final Store store;
    private final int maxInFlight;
    private final int groupPermits;
    private final long groupIntervalMillis;
    private final String[] weightKeys;
    private final Integer[] weights;
    private volatile boolean active;

    GroupTake(GroupSql sql, Store store, QueueOptions<?> options) {
        this.sql = sql;
        this.store = store;
        this.maxInFlight = options.maxInFlightPerGroup().orElse(0);
        this.groupPermits = options.groupRateLimit().map(r -> r.permits()).orElse(0);
        this.groupIntervalMillis = options.groupRateLimit().map(r -> r.interval().toMillis()).orElse(0L);
        this.weightKeys = options.groupWeights().keySet().toArray(new String[0]);
        this.weights = new Integer[weightKeys.length];
        for (int i = 0; i < weightKeys.length; i++) {
            weights[i] = options.groupWeights().get(weightKeys[i]);
        }
        this.active = maxInFlight > 0 || groupPermits > 0 || weightKeys.length > 0;
    }

    /** @return the named groups with the most ready messages, then the most in flight, up to {@code limit} */
    List<GroupBacklog> largest(Connection c, int limit) throws SQLException {
        List<GroupBacklog> out = new ArrayList<>();
        try (PreparedStatement ps = sql.largest.prepare(c, store.args("limit", limit));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new GroupBacklog(rs.getString(1), rs.getLong(2), rs.getLong(3)));
            }
        }
        return out;
    }

    /** @return whether this client takes with the grouped take */
    boolean active() {
        return active;
    }

    /** Marks the queue grouped, before a message with a group is stored on {@code c}. */
    void markGrouped(Connection c) throws SQLException {
        try (PreparedStatement ps = sql.markGrouped.prepare(c, store.args())) {
            ps.executeUpdate();
        }
        active = true;
    }

    /** Reads the queue's {@code grouped} flag; once set, this client takes with the grouped take. */
    boolean refresh(Connection c) throws SQLException {
        try (PreparedStatement ps = sql.grouped.prepare(c, store.args()); ResultSet rs = ps.executeQuery()) {
            rs.next();
            if (rs.getBoolean(1)) {
                active = true;
            }
        }
        return active;
    }

    /**
     * Takes up to {@code n} (one round trip, one transaction in autocommit mode).
     *
     * @param count whether a take that a group's rate limit holds back from due messages counts as a held poll
     */
    RateGate.Gated take(Connection c, int n, long visibilityMillis, boolean count) throws SQLException {
        Array keys = c.createArrayOf("text", weightKeys);
        Array values = c.createArrayOf("int4", weights);
        Map<String, Object> args = store.args("n", n, "visibility", visibilityMillis, "max_flight", maxInFlight,
                "wg", keys, "ww", values, "gpermits", groupPermits, "ginterval", groupIntervalMillis, "count", count);
        try (PreparedStatement ps = sql.take.prepare(c, args)) {
            boolean isResultSet = ps.execute();
            int results = 0;
            while (true) {
                if (isResultSet && ++results == 3) {
                    try (ResultSet rs = ps.getResultSet()) {
                        return read(rs);
                    }
                } else if (!isResultSet && ps.getUpdateCount() == -1) {
                    throw new SQLException("the grouped poll returned no take");
                }
                isResultSet = ps.getMoreResults();
            }
        }
    }

    /** The take's rows: the messages taken, or one row of what an empty take found. */
    private static RateGate.Gated read(ResultSet rs) throws SQLException {
        List<Store.Taken> taken = new ArrayList<>();
        while (rs.next()) {
            if (rs.getString(1) == null) {
                return new RateGate.Gated(new Store.Take(List.of(), number(rs, 6), number(rs, 7), rs.getBoolean(8)),
                        rs.getBoolean(9));
            }
            taken.add(new Store.Taken(rs.getString(1), rs.getLong(2), rs.getInt(3), rs.getBytes(4),
                    rs.getBytes(5)));
        }
        return new RateGate.Gated(new Store.Take(taken, null, null, false), false);
    }

    private static Double number(ResultSet rs, int column) throws SQLException {
        double v = rs.getDouble(column);
        return rs.wasNull() ? null : v;
    }
}

package io.clockwork.postgres;

import io.clockwork.queue.RateLimit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The queue-wide rate limit of a {@link PostgresDelayedQueue}: a limited poll runs in one transaction that locks the
 * limit's row ({@link RateSql#permits}), takes at most the free permits (a {@link Taker}) and writes
 * what it took to the sliding log ({@link RateSql#spend}). The lock makes the takes of one limited queue decide their
 * permits one at a time, in every process, on the database's clock; it is held for one take's statements only. With
 * groups the take is the grouped one ({@link GroupTake}), within the same free permits.
 * Immutable and thread-safe.
 */
final class RateGate {

    /** A limited poll's outcome: the take, and whether the limit held it back from due messages. */
    record Gated(Store.Take take, boolean held) {
    }

    /** A take of up to n within the permits: the plain poll or the grouped one. */
    interface Taker {
        Gated take(Connection c, int n, long visibilityMillis) throws SQLException;
    }

    private final RateSql sql;
    private final String queue;
    private final RateLimit limit;

    RateGate(RateSql sql, String queue, RateLimit limit) {
        this.sql = sql;
        this.queue = queue;
        this.limit = limit;
    }

    private Map<String, Object> args(Object... more) {
        Map<String, Object> m = new HashMap<>();
        m.put("queue", queue);
        m.put("grp", "");
        m.put("permits", limit.permits());
        m.put("interval", limit.interval().toMillis());
        for (int i = 0; i < more.length; i += 2) {
            m.put((String) more[i], more[i + 1]);
        }
        return m;
    }

    /** Stores the limit with the queue, at build. */
    void open(Connection c) throws SQLException {
        execute(c, sql.open, args());
    }

    /** @return the polls the limits of queue {@code queue} held back, in every process (0 if it never had one) */
    static long held(Connection c, RateSql sql, String queue) throws SQLException {
        Object[] row = last(c, sql.held, Map.of("queue", queue));
        return ((Number) row[0]).longValue();
    }

    /**
     * Takes up to {@code n} within the limit, in a transaction of its own on {@code c} (in autocommit mode, as the
     * queue gives it).
     *
     * @param count whether a poll held back is counted ({@code rateLimited}): once per waiting poll
     */
    Gated poll(Connection c, int n, long visibilityMillis, boolean count, Taker taker) throws SQLException {
        c.setAutoCommit(false);
        try {
            Object[] p = last(c, sql.permits, args());
            int free = ((Number) p[0]).intValue();
            Gated out;
            if (free > 0) {
                out = taker.take(c, Math.min(n, free), visibilityMillis);
                if (!out.take().taken().isEmpty()) {
                    execute(c, sql.spend, args("n", out.take().taken().size()));
                } else if (out.held() && count) {
                    execute(c, sql.hold, args());
                }
            } else {
                boolean held = Boolean.TRUE.equals(p[2]);
                if (held && count) {
                    execute(c, sql.hold, args());
                }
                Double next = p[1] == null ? null : ((Number) p[1]).doubleValue();
                out = new Gated(new Store.Take(List.of(), next, null, false), held);
            }
            c.commit();
            return out;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // the connection is broken: its transaction is gone with it
            }
            throw e;
        } finally {
            try {
                c.setAutoCommit(true);
            } catch (SQLException ignored) {
                // as above
            }
        }
    }

    private static void execute(Connection c, Unit unit, Map<String, Object> args) throws SQLException {
        try (PreparedStatement ps = unit.prepare(c, args)) {
            ps.execute();
        }
    }

    /** The first row of the unit's last result set. */
    private static Object[] last(Connection c, Unit unit, Map<String, Object> args) throws SQLException {
        try (PreparedStatement ps = unit.prepare(c, args)) {
            Object[] row = null;
            boolean isResultSet = ps.execute();
            while (true) {
                if (isResultSet) {
                    try (ResultSet rs = ps.getResultSet()) {
                        if (rs.next()) {
                            row = new Object[rs.getMetaData().getColumnCount()];
                            for (int i = 0; i < row.length; i++) {
                                row[i] = rs.getObject(i + 1);
                            }
                        }
                    }
                } else if (ps.getUpdateCount() == -1) {
                    return row;
                }
                isResultSet = ps.getMoreResults();
            }
        }
    }
}

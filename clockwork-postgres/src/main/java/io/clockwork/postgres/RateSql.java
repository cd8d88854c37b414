package io.clockwork.postgres;

/**
 * The SQL units of a queue's rate limit in one schema: its sliding log in {@code clockwork_rate_limits} (a row per
 * limit, locked by each limited take for its transaction) and {@code clockwork_rate_log} (a row per take that
 * delivered). Times are the database's {@code clock_timestamp()}. Immutable and thread-safe.
 *
 * <p>Parameters: {@code :queue} the queue's name, {@code :grp} the limit's key ({@code ''} for the queue's own),
 * {@code :permits} and {@code :interval} (whole milliseconds) the limit, {@code :n} deliveries taken.
 */
final class RateSql {

    private static final String L = "${schema}.clockwork_rate_limits";
    private static final String G = "${schema}.clockwork_rate_log";

    /** open: stores the limit (the last client built with one sets it for the others). */
    final Unit open;
    /**
     * permits: locks the limit's row, forgets the deliveries older than its interval; returns the free permits, the
     * milliseconds until the oldest remembered delivery leaves the window (null if none), and whether a message of
     * the queue is due and the queue not paused.
     */
    final Unit permits;
    /** spend: remembers :n deliveries now. */
    final Unit spend;
    /**
     * hold: counts a poll that a limit (the queue's or a group's) held back from due messages, in the queue's row
     * (made without permits if the queue has no limit of its own: a limited client's open sets them).
     */
    final Unit hold;
    /** held: the polls held back, for the queue's counters. */
    final Unit held;

    /** @param schema the schema's name, checked by {@link SchemaManager#checkSchema} */
    RateSql(String schema) {
        String s = "\"" + schema + "\"";
        open = Unit.of("open a rate limit", s, """
                INSERT INTO %1$s (queue, grp, permits, interval_ms) VALUES (:queue, :grp, :permits, :interval)
                ON CONFLICT (queue, grp) DO UPDATE SET permits = excluded.permits, interval_ms = excluded.interval_ms
                """.formatted(L));
        permits = Unit.of("rate limit's permits", s, """
                SELECT 1 FROM %1$s WHERE queue = :queue AND grp = :grp FOR UPDATE;
                WITH l AS (SELECT permits, interval_ms * interval '1 millisecond' AS span FROM %1$s
                           WHERE queue = :queue AND grp = :grp),
                t AS (SELECT clock_timestamp() AS now),
                e AS (
                  DELETE FROM %2$s g USING l, t
                  WHERE g.queue = :queue AND g.grp = :grp AND g.at <= t.now - l.span
                  RETURNING g.n),
                r AS (
                  UPDATE %1$s SET used = used - (SELECT sum(n) FROM e)
                  WHERE queue = :queue AND grp = :grp AND EXISTS (SELECT 1 FROM e)
                  RETURNING used)
                SELECT l.permits - coalesce((SELECT used FROM r),
                         (SELECT used FROM %1$s WHERE queue = :queue AND grp = :grp)),
                       extract(epoch FROM (SELECT min(g.at) FROM %2$s g
                                           WHERE g.queue = :queue AND g.grp = :grp AND g.at > t.now - l.span)
                         + l.span - t.now) * 1000,
                       EXISTS (SELECT 1 FROM ${schema}.clockwork_messages m
                               WHERE m.queue = :queue AND m.state = 0 AND m.due <= t.now)
                         AND NOT EXISTS (SELECT 1 FROM ${schema}.clockwork_queues WHERE name = :queue AND paused)
                FROM l, t
                """.formatted(L, G));
        spend = Unit.of("spend a rate limit's permits", s, """
                WITH i AS (INSERT INTO %2$s (queue, grp, at, n) VALUES (:queue, :grp, clock_timestamp(), :n))
                UPDATE %1$s SET used = used + :n WHERE queue = :queue AND grp = :grp
                """.formatted(L, G));
        hold = Unit.of("hold a poll", s, """
                INSERT INTO %1$s AS r (queue, grp, permits, interval_ms, held) VALUES (:queue, '', 0, 0, 1)
                ON CONFLICT (queue, grp) DO UPDATE SET held = r.held + 1
                """.formatted(L));
        held = Unit.of("polls held", s, """
                SELECT coalesce(sum(held), 0) FROM %1$s WHERE queue = :queue
                """.formatted(L));
    }
}

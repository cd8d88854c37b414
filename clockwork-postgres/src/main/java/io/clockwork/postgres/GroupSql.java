package io.clockwork.postgres;

/**
 * The SQL units of fair groups in one schema: the take of a queue whose messages name groups (round robin between
 * groups, weighted, within each group's in-flight limit and rate limit), and the queue's {@code grouped} flag, which
 * turns its plain {@code poll} off for every client. A group's turn is kept in {@code clockwork_groups}: its pass
 * (deficit round robin by stride: each delivery adds 1/weight) and when it was last served; a group whose pass is
 * behind the queue's ({@code clockwork_queues.flow_pass}, the pass of its last delivery) starts from the queue's, last
 * in the current round. Immutable and thread-safe.
 *
 * <p>Parameters: {@code :queue}, {@code :n}, {@code :visibility} (ms) as for {@code poll}; {@code :max_flight} the
 * per-group in-flight limit (0: none); {@code :wg}, {@code :ww} the groups' weights (keys and values; 1 otherwise);
 * {@code :gpermits} and {@code :ginterval} (ms) the per-group rate limit (0 permits: none).
 */
final class GroupSql {

    private static final String M = "${schema}.clockwork_messages";
    private static final String MS = " * interval '1 millisecond'";

    /** mark grouped: the queue's messages name groups, so every client takes with {@link #take}. */
    final Unit markGrouped;
    /** grouped: whether the queue's messages name groups. */
    final Unit grouped;
    /**
     * take: sweep, then lock the queue's row (grouped takes of one queue run one at a time, so a group's in-flight
     * count and rate log are read after the previous take committed), then take up to :n due messages by priority,
     * then by the groups' passes, then by which group was served longest ago (each group offering at most its
     * weight's share of :n plus one, within its limits); or read the next due time, the next
     * lease end, the pause, and whether a group's rate limit holds back its due messages (counted as a held poll
     * if :count). A lease starts when its row is updated, at the end of the statement, so that a long statement
     * does not shorten it.
     */
    final Unit take;

    /**
     * largest groups: the named groups with the most ready messages (due, not taken), then the most in flight, then
     * by name, up to :limit; one pass over the queue's grouped messages, for dashboards and tools.
     */
    final Unit largest;

    /** @param sql the queue's units in the same schema (for the sweep) */
    GroupSql(String schema, QueueSql sql) {
        String s = "\"" + schema + "\"";
        markGrouped = Unit.of("mark grouped", s, """
                UPDATE ${schema}.clockwork_queues SET grouped = true WHERE name = :queue AND NOT grouped
                """);
        grouped = Unit.of("grouped", s, """
                SELECT EXISTS (SELECT 1 FROM ${schema}.clockwork_queues WHERE name = :queue AND grouped)
                """);
        largest = Unit.of("largest groups", s, """
                WITH t AS (SELECT clock_timestamp() AS now),
                g AS (
                  SELECT m.grp, count(*) FILTER (WHERE m.state = 0 AND m.due <= t.now) AS ready,
                    count(*) FILTER (WHERE m.state = 1) AS flight
                  FROM %1$s m, t WHERE m.queue = :queue AND m.state IN (0, 1) AND m.grp IS NOT NULL AND m.grp <> ''
                  GROUP BY m.grp)
                SELECT grp, ready, flight FROM g WHERE ready > 0 OR flight > 0
                ORDER BY ready DESC, flight DESC, grp LIMIT :limit
                """.formatted(M));
        take = Unit.of("grouped poll", s, sql.sweep.sourceText() + ";\n"
                + "SELECT 1 FROM ${schema}.clockwork_queues WHERE name = :queue FOR UPDATE;\n" + """
                WITH RECURSIVE t AS (SELECT clock_timestamp() AS now),
                q AS (SELECT flow_pass AS vt FROM ${schema}.clockwork_queues WHERE name = :queue AND NOT paused),
                gs AS (
                  SELECT (SELECT grp FROM %1$s WHERE queue = :queue AND state = 0 AND grp IS NOT NULL
                          ORDER BY grp LIMIT 1) AS g
                  UNION ALL
                  SELECT (SELECT m.grp FROM %1$s m WHERE m.queue = :queue AND m.state = 0 AND m.grp IS NOT NULL
                          AND m.grp > gs.g ORDER BY m.grp LIMIT 1)
                  FROM gs WHERE gs.g IS NOT NULL),
                s0 AS (
                  SELECT e.g, greatest(coalesce(k.pass, 0), q.vt) AS pass, coalesce(k.last_seq, 0) AS last,
                    coalesce(w.w, 1)::float8 AS w,
                    CASE WHEN :max_flight::int > 0 AND e.g <> '' THEN (SELECT count(*) FROM %1$s f
                      WHERE f.queue = :queue AND f.state = 1 AND f.grp = e.g) ELSE 0 END AS flight,
                    CASE WHEN :gpermits::int > 0 AND e.g <> '' THEN (SELECT coalesce(sum(l.n), 0)
                      FROM ${schema}.clockwork_rate_log l WHERE l.queue = :queue AND l.grp = e.g
                      AND l.at > t.now - :ginterval%2$s) ELSE 0 END AS used
                  FROM (SELECT g FROM gs WHERE g IS NOT NULL UNION ALL SELECT '') e
                  CROSS JOIN q CROSS JOIN t
                  LEFT JOIN ${schema}.clockwork_groups k ON k.queue = :queue AND k.grp = e.g
                  LEFT JOIN unnest(:wg::text[], :ww::int[]) AS w(g, w) ON w.g = e.g),
                s AS (
                  SELECT g, pass, last, w,
                    least(ceil(:n::int * w / (SELECT sum(w) FROM s0))::int + 1,
                      CASE WHEN :max_flight::int > 0 AND g <> '' THEN :max_flight::int - flight ELSE :n::int END,
                      CASE WHEN :gpermits::int > 0 AND g <> '' THEN :gpermits::int - used ELSE :n::int END) AS room,
                    :gpermits::int > 0 AND g <> '' AND used >= :gpermits::int AS no_permit
                  FROM s0),
                ga AS (
                  SELECT s.g, x.id, x.priority, x.due, x.seq FROM s, LATERAL (
                    SELECT m.id, m.priority, m.due, m.seq FROM %1$s m
                    WHERE m.queue = :queue AND m.grp = s.g AND m.state = 0 AND m.due <= now()
                    ORDER BY m.due, m.seq LIMIT s.room
                    FOR UPDATE OF m SKIP LOCKED) x
                  WHERE s.g <> '' AND s.room > 0),
                gb AS (
                  SELECT s.g, x.id, x.priority, x.due, x.seq FROM s, LATERAL (
                    SELECT m.id, m.priority, m.due, m.seq FROM %1$s m
                    WHERE m.queue = :queue AND m.grp = s.g AND m.state = 0 AND m.priority <> 0 AND m.due <= now()
                    ORDER BY m.priority DESC, m.due, m.seq LIMIT s.room
                    FOR UPDATE OF m SKIP LOCKED) x
                  WHERE s.g <> '' AND s.room > 0),
                cg AS (
                  SELECT y.g, y.id, y.priority, y.due, y.seq FROM (
                    SELECT z.*, row_number() OVER (PARTITION BY z.g ORDER BY z.priority DESC, z.due, z.seq) AS i
                    FROM (SELECT * FROM ga UNION SELECT * FROM gb) z) y
                  JOIN s ON s.g = y.g WHERE y.i <= s.room),
                cp AS (
                  SELECT ''::text AS g, m.id, m.priority, m.due, m.seq FROM %1$s m, (SELECT 1 FROM s WHERE g = '') z
                  WHERE m.queue = :queue AND m.state = 0 AND m.priority <> 0 AND m.grp IS NULL AND m.due <= now()
                  ORDER BY m.priority DESC, m.due, m.seq LIMIT (SELECT room FROM s WHERE g = '')
                  FOR UPDATE OF m SKIP LOCKED),
                c0 AS (
                  SELECT ''::text AS g, m.id, m.priority, m.due, m.seq FROM %1$s m, (SELECT 1 FROM s WHERE g = '') z
                  WHERE m.queue = :queue AND m.state = 0 AND m.priority = 0 AND m.grp IS NULL AND m.due <= now()
                  ORDER BY m.due, m.seq LIMIT (SELECT room FROM s WHERE g = '')
                  FOR UPDATE OF m SKIP LOCKED),
                c AS (SELECT * FROM cg UNION ALL SELECT * FROM cp UNION ALL SELECT * FROM c0),
                r AS (
                  SELECT c.g, c.id, c.priority, c.due, c.seq, s.last, s.w,
                    s.pass + (row_number() OVER (PARTITION BY c.g, c.priority ORDER BY c.due, c.seq) - 1) / s.w
                      AS vpass
                  FROM c JOIN s ON s.g = c.g),
                p AS (
                  SELECT r.*, row_number() OVER (ORDER BY r.priority DESC, r.vpass, r.last, r.g) AS ord
                  FROM r ORDER BY r.priority DESC, r.vpass, r.last, r.g LIMIT :n),
                sq AS (SELECT nextval('${schema}.clockwork_seq') AS v),
                k AS (
                  UPDATE %1$s m SET state = 1, due = clock_timestamp() + :visibility%2$s, attempts = m.attempts + 1,
                    seq = nextval('${schema}.clockwork_seq')
                  FROM p WHERE m.queue = :queue AND m.id = p.id
                  RETURNING m.id, m.seq, m.attempts, m.payload, m.headers, p.g, p.w, p.vpass, p.ord),
                u AS (
                  INSERT INTO ${schema}.clockwork_groups AS x (queue, grp, pass, last_seq)
                  SELECT :queue, k.g, max(k.vpass) + 1 / max(k.w), sq.v * 1024 + max(k.ord)
                  FROM k, sq GROUP BY k.g, sq.v
                  ON CONFLICT (queue, grp) DO UPDATE SET pass = excluded.pass, last_seq = excluded.last_seq),
                v AS (
                  UPDATE ${schema}.clockwork_queues SET flow_pass = (SELECT max(vpass) FROM k)
                  WHERE name = :queue AND EXISTS (SELECT 1 FROM k)),
                gl AS (
                  INSERT INTO ${schema}.clockwork_rate_log (queue, grp, at, n)
                  SELECT :queue, k.g, clock_timestamp(), count(*) FROM k
                  WHERE :gpermits::int > 0 AND k.g <> '' GROUP BY k.g),
                gd AS (
                  DELETE FROM ${schema}.clockwork_rate_log l USING s, t
                  WHERE :gpermits::int > 0 AND l.queue = :queue AND l.grp = s.g AND s.g <> ''
                    AND l.at <= t.now - :ginterval%2$s),
                hc AS (
                  INSERT INTO ${schema}.clockwork_rate_limits AS x (queue, grp, permits, interval_ms, held)
                  SELECT :queue, '', 0, 0, 1
                  WHERE :count AND NOT EXISTS (SELECT 1 FROM k) AND EXISTS (SELECT 1 FROM s WHERE s.no_permit
                    AND EXISTS (SELECT 1 FROM %1$s d WHERE d.queue = :queue AND d.grp = s.g AND d.state = 0
                                AND d.due <= now()))
                  ON CONFLICT (queue, grp) DO UPDATE SET held = x.held + 1),
                cn AS (
                  INSERT INTO ${schema}.clockwork_counters AS x (queue, shard, delivered)
                  SELECT :queue, %3$s, count(*) FROM k HAVING count(*) > 0
                  ON CONFLICT (queue, shard) DO UPDATE SET delivered = x.delivered + excluded.delivered)
                SELECT id, seq, attempts, payload, headers, NULL::float8 AS next_due_ms,
                       NULL::float8 AS next_lease_ms, NULL::boolean AS paused, NULL::boolean AS held, ord
                FROM k
                UNION ALL
                SELECT NULL, NULL, NULL, NULL, NULL,
                       extract(epoch FROM (SELECT min(due) FROM %1$s WHERE queue = :queue AND state = 0)
                         - clock_timestamp()) * 1000,
                       extract(epoch FROM (SELECT min(due) FROM %1$s WHERE queue = :queue AND state = 1)
                         - clock_timestamp()) * 1000,
                       EXISTS (SELECT 1 FROM ${schema}.clockwork_queues WHERE name = :queue AND paused),
                       EXISTS (SELECT 1 FROM s WHERE s.no_permit AND EXISTS (SELECT 1 FROM %1$s d
                         WHERE d.queue = :queue AND d.grp = s.g AND d.state = 0 AND d.due <= now())),
                       NULL
                WHERE NOT EXISTS (SELECT 1 FROM k)
                ORDER BY ord NULLS LAST
                """.formatted(M, MS, QueueSql.SHARD));
    }
}

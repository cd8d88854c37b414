package io.clockwork.postgres;

/**
 * The SQL units of the queue's state machine in one schema, one per operation of the table in docs/design.md and named
 * as there. Every due time and lease end is computed here from the database's {@code clock_timestamp()}, never from a
 * client's clock. What is due is compared with {@code now()}, the start of the unit's own transaction (a consumer's
 * units run in autocommit mode): {@code now()} is stable within a statement, so the comparison is an index condition
 * and the take's scan stops at the first message not due, where {@code clock_timestamp()}, being volatile, would make
 * it a filter over every scheduled message of the queue. A unit that makes a message due earlier than every scheduled
 * message of its queue sends {@code pg_notify} on the queue's channel in the same statement, so the wake-up is sent at
 * commit and never for a rolled-back change. Counts go to the queue's counter row of the backend's shard. Immutable and
 * thread-safe.
 *
 * <p>A unit that finds messages by id tests their state as {@code state + 0}, an expression that no partial index's
 * predicate matches, so that the planner reaches each row through the primary key. Tested as {@code state = 1}, the
 * leases index (estimated to hold a few rows, as few messages are in flight at a time) looks cheaper to the planner,
 * yet it still holds an entry for every lease since the table's last vacuum, and a bitmap scan of it reads them all
 * and their heap pages, where the primary key reads one entry per id.
 *
 * <p>Parameters: {@code :queue} the queue's name, {@code :channel} its notification channel, delays and visibility
 * timeouts in whole milliseconds ({@code :delay}, {@code :visibility}), {@code :seq} a delivery's receipt.
 */
final class QueueSql {

    private static final String M = "${schema}.clockwork_messages";
    private static final String SEQ = "nextval('${schema}.clockwork_seq')";
    private static final String MS = " * interval '1 millisecond'";
    /**
     * The counter row a unit adds to: one of 64 by the backend's process id, so that concurrent transactions rarely
     * share one, and of another 64 in a transaction the caller holds open ({@link Unit#SHARD_BASE}), so that a long
     * transactional enqueue never holds the row a statement of the queue's own counts in.
     */
    static final String SHARD = "(pg_backend_pid() % 64 + :" + Unit.SHARD_BASE + ")::smallint";

    /** offer, KEEP: a new message unless the id is taken, whatever its state. Returns added, woke. */
    final Unit offer;
    /** offer, replace or extend: a scheduled message takes the new due time (and value, headers if replacing). */
    final Unit offerReplace;
    /** offer of a batch under KEEP: a row per element of the arrays, in array order; returns the ids added. */
    final Unit offerBatch;
    /** sweep: expired leases come back scheduled (retried) or die after the last attempt (dead-lettered). */
    final Unit sweep;
    /**
     * poll: sweep, then take up to :n due messages unless paused or grouped (a queue whose messages name groups is
     * taken by {@link GroupSql#take}), by priority, due time and offer order, and read the next due time of the
     * messages not taken and the next lease end (and, if none was taken, the pause). Messages of the default priority
     * come from the scheduled index, a range scan up to now; the others from the prioritized index, one range scan per
     * priority present (the priorities are found by a loose index scan), so neither reads a backlog of messages not
     * yet due.
     */
    final Unit poll;
    /** ack: deletes the message if the receipt still holds it. */
    final Unit ack;
    /** ack and poll: ack, then poll, in one round trip (and one transaction). */
    final Unit ackPoll;
    /** ack of a batch: deletes each message whose receipt still holds it; returns the (id, seq) pairs deleted. */
    final Unit ackBatch;
    /** nack: due again after :delay, or dead after the last attempt; a reason becomes the last error. */
    final Unit nack;
    /** extend: the lease ends :visibility from now. */
    final Unit extend;
    /** release: due now, the delivery not counted. */
    final Unit release;
    /** kill: dead now, with :reason. */
    final Unit kill;
    /** cancel: a scheduled or in-flight message is deleted. */
    final Unit cancel;
    /** reschedule (and promote, with a zero delay): a scheduled message is due :delay from now. */
    final Unit reschedule;
    /** pause and resume: the queue's flag; a resume wakes the waiting consumers. */
    final Unit pause;
    /** isPaused. */
    final Unit isPaused;
    /** open: registers the queue (its row in clockwork_queues), at build. */
    final Unit open;
    /** list dead letters: retention, then the oldest deaths first. */
    final Unit deadList;
    /** requeue a dead letter: due now, attempts and last error reset. */
    final Unit deadRequeue;
    /** purge dead letters. */
    final Unit deadPurge;
    /** stats: sweep, retention, then the counts by state and the next due time. */
    final Unit stats;
    /** counters: the sums of the queue's counter shards. */
    final Unit counters;

    /** @param schema the schema's name, checked by {@link SchemaManager#checkSchema} */
    QueueSql(String schema) {
        String s = "\"" + schema + "\"";
        offer = Unit.of("offer", s, """
                WITH i AS (
                  INSERT INTO %1$s (queue, id, state, due, seq, priority, payload, headers, grp)
                  VALUES (:queue, :id, 0, clock_timestamp() + :delay%2$s, %3$s, :priority, :payload, :headers::bytea,
                          :grp::text)
                  ON CONFLICT (queue, id) DO NOTHING
                  RETURNING 0::smallint AS state, due),
                %4$s,
                %5$s
                SELECT (SELECT count(*) FROM i) AS added, (SELECT count(*) FROM w) AS woke
                """.formatted(M, MS, SEQ, counters("c", "offered", "(SELECT count(*) FROM i)"), wake("i")));
        offerReplace = Unit.of("offer, replace or extend", s, """
                WITH i AS (
                  INSERT INTO %1$s AS m (queue, id, state, due, seq, priority, payload, headers, grp)
                  VALUES (:queue, :id, 0, clock_timestamp() + :delay%2$s, %3$s, :priority, :payload, :headers::bytea,
                          :grp::text)
                  ON CONFLICT (queue, id) DO UPDATE SET due = excluded.due, seq = excluded.seq,
                    payload = CASE WHEN :replace THEN excluded.payload ELSE m.payload END,
                    headers = CASE WHEN :replace THEN excluded.headers ELSE m.headers END,
                    grp = CASE WHEN :replace THEN excluded.grp ELSE m.grp END,
                    priority = CASE WHEN :replace THEN excluded.priority ELSE m.priority END
                  WHERE m.state = 0
                  RETURNING (m.xmax = 0) AS added, 0::smallint AS state, m.due),
                %4$s,
                %5$s
                SELECT (SELECT count(*) FROM i) AS stored, (SELECT bool_or(added) FROM i) AS added,
                       (SELECT state FROM %1$s WHERE queue = :queue AND id = :id) AS was
                """.formatted(M, MS, SEQ, counters("c", "offered", "(SELECT count(*) FROM i)"), wake("i")));
        offerBatch = Unit.of("offer", s, """
                WITH t AS (SELECT clock_timestamp() AS now),
                i AS (
                  INSERT INTO %1$s (queue, id, state, due, seq, priority, payload, headers, grp)
                  SELECT :queue, u.id, 0, t.now + u.delay%2$s, %3$s, u.priority, u.payload, u.headers, u.grp
                  FROM t, unnest(:ids::text[], :payloads::bytea[], :headers::bytea[], :delays::int8[],
                                 :priorities::int2[], :groups::text[])
                       WITH ORDINALITY AS u(id, payload, headers, delay, priority, grp, ord)
                  ORDER BY u.ord
                  ON CONFLICT (queue, id) DO NOTHING
                  RETURNING id, 0::smallint AS state, due),
                %4$s,
                %5$s
                SELECT id, (SELECT count(*) FROM w) AS woke FROM i
                """.formatted(M, MS, SEQ, counters("c", "offered", "(SELECT count(*) FROM i)"), wake("i")));
        sweep = Unit.of("sweep", s, sweepSql());
        poll = Unit.of("poll", s, sweepSql() + ";\n" + """
                WITH RECURSIVE t AS (SELECT clock_timestamp() AS now),
                go AS (
                  SELECT NOT EXISTS (SELECT 1 FROM ${schema}.clockwork_queues WHERE name = :queue
                                     AND (paused OR grouped)) AS go),
                lv AS (
                  SELECT (SELECT priority FROM %1$s WHERE queue = :queue AND state = 0 AND priority <> 0
                          ORDER BY priority DESC LIMIT 1) AS p
                  UNION ALL
                  SELECT (SELECT priority FROM %1$s WHERE queue = :queue AND state = 0 AND priority <> 0
                          AND priority < lv.p ORDER BY priority DESC LIMIT 1)
                  FROM lv WHERE lv.p IS NOT NULL),
                pp AS (
                  SELECT x.id, x.due, x.seq, x.priority FROM lv, go, LATERAL (
                    SELECT m.id, m.due, m.seq, m.priority FROM %1$s m
                    WHERE m.queue = :queue AND m.state = 0 AND m.priority <> 0 AND m.priority = lv.p
                      AND m.due <= now()
                    ORDER BY m.due, m.seq LIMIT :n
                    FOR UPDATE OF m SKIP LOCKED) x
                  WHERE lv.p IS NOT NULL AND go.go),
                p0 AS (
                  SELECT m.id, m.due, m.seq, m.priority FROM %1$s m, go
                  WHERE m.queue = :queue AND m.state = 0 AND m.due <= now() AND m.priority = 0 AND go.go
                  ORDER BY m.due, m.seq LIMIT :n
                  FOR UPDATE OF m SKIP LOCKED),
                p AS (
                  SELECT * FROM pp UNION ALL SELECT * FROM p0
                  ORDER BY priority DESC, due, seq LIMIT :n),
                k AS (
                  UPDATE %1$s m SET state = 1, due = t.now + :visibility%2$s, attempts = m.attempts + 1,
                    seq = %3$s
                  FROM p, t WHERE m.queue = :queue AND m.id = p.id
                  RETURNING m.id, m.seq, m.attempts, m.payload, m.headers, p.priority AS was_priority,
                    p.due AS was_due, p.seq AS was_seq),
                %4$s
                SELECT id, seq, attempts, payload, headers,
                       extract(epoch FROM (SELECT min(due) FROM %1$s WHERE queue = :queue AND state = 0
                                           AND id NOT IN (SELECT id FROM p)) - clock_timestamp()) * 1000,
                       extract(epoch FROM (SELECT min(due) FROM %1$s WHERE queue = :queue AND state = 1)
                         - clock_timestamp()) * 1000,
                       NULL::boolean AS paused, was_priority, was_due, was_seq
                FROM k
                UNION ALL
                SELECT NULL, NULL, NULL, NULL, NULL,
                       extract(epoch FROM (SELECT min(due) FROM %1$s WHERE queue = :queue AND state = 0)
                         - clock_timestamp()) * 1000,
                       extract(epoch FROM (SELECT min(due) FROM %1$s WHERE queue = :queue AND state = 1)
                         - clock_timestamp()) * 1000,
                       EXISTS (SELECT 1 FROM ${schema}.clockwork_queues WHERE name = :queue AND paused),
                       NULL, NULL, NULL
                WHERE NOT EXISTS (SELECT 1 FROM k)
                ORDER BY was_priority DESC NULLS LAST, was_due, was_seq
                """.formatted(M, MS, SEQ, counters("c", "delivered", "(SELECT count(*) FROM k)")));
        ack = Unit.of("ack", s, """
                WITH d AS (
                  DELETE FROM %1$s WHERE queue = :queue AND id = :id AND seq = :seq AND state + 0 = 1 RETURNING 1),
                %2$s
                SELECT count(*) FROM d
                """.formatted(M, counters("c", "acked", "(SELECT count(*) FROM d)")));
        ackPoll = Unit.of("ack and poll", s, ack.sourceText() + ";\n" + poll.sourceText());
        ackBatch = Unit.of("ack", s, """
                WITH d AS (
                  DELETE FROM %1$s m USING unnest(:ids::text[], :seqs::int8[]) AS u(id, seq)
                  WHERE m.queue = :queue AND m.id = u.id AND m.seq = u.seq AND m.state + 0 = 1
                  RETURNING m.id, m.seq),
                %2$s
                SELECT id, seq FROM d
                """.formatted(M, counters("c", "acked", "(SELECT count(*) FROM d)")));
        nack = Unit.of("nack", s, """
                WITH t AS (SELECT clock_timestamp() AS now),
                i AS (
                  UPDATE %1$s m SET
                    state = CASE WHEN m.attempts >= :max_attempts THEN 2 ELSE 0 END,
                    due = CASE WHEN m.attempts >= :max_attempts THEN t.now ELSE t.now + :delay%2$s END,
                    seq = %3$s,
                    last_error = CASE WHEN m.attempts >= :max_attempts
                      THEN coalesce(:reason::text, m.last_error, :exhausted::text)
                      ELSE coalesce(:reason::text, m.last_error) END
                  FROM t WHERE m.queue = :queue AND m.id = :id AND m.seq = :seq AND m.state + 0 = 1
                  RETURNING m.state, m.due),
                %4$s,
                %5$s
                SELECT (SELECT count(*) FROM i), (SELECT count(*) FROM w)
                """.formatted(M, MS, SEQ, counters("c", "retried", "(SELECT count(*) FROM i WHERE state = 0)",
                "dead_lettered", "(SELECT count(*) FROM i WHERE state = 2)"), wake("i")));
        extend = Unit.of("extend", s, """
                UPDATE %1$s SET due = clock_timestamp() + :visibility%2$s
                WHERE queue = :queue AND id = :id AND seq = :seq AND state + 0 = 1
                """.formatted(M, MS));
        release = Unit.of("release", s, """
                WITH i AS (
                  UPDATE %1$s m SET state = 0, due = clock_timestamp(), seq = %2$s, attempts = m.attempts - 1
                  WHERE m.queue = :queue AND m.id = :id AND m.seq = :seq AND m.state + 0 = 1
                  RETURNING m.state, m.due),
                %3$s
                SELECT (SELECT count(*) FROM i), (SELECT count(*) FROM w)
                """.formatted(M, SEQ, wake("i")));
        kill = Unit.of("kill", s, """
                WITH d AS (
                  UPDATE %1$s SET state = 2, due = clock_timestamp(), seq = %2$s, last_error = :reason::text
                  WHERE queue = :queue AND id = :id AND seq = :seq AND state + 0 = 1
                  RETURNING 1),
                %3$s
                SELECT count(*) FROM d
                """.formatted(M, SEQ, counters("c", "dead_lettered", "(SELECT count(*) FROM d)")));
        cancel = Unit.of("cancel", s, """
                DELETE FROM %1$s WHERE queue = :queue AND id = :id AND state < 2
                """.formatted(M));
        reschedule = Unit.of("reschedule", s, """
                WITH i AS (
                  UPDATE %1$s SET due = clock_timestamp() + :delay%2$s, seq = %3$s
                  WHERE queue = :queue AND id = :id AND state = 0
                  RETURNING state, due),
                %4$s
                SELECT (SELECT count(*) FROM i), (SELECT count(*) FROM w)
                """.formatted(M, MS, SEQ, wake("i")));
        pause = Unit.of("pause", s, """
                WITH u AS (
                  INSERT INTO ${schema}.clockwork_queues AS q (name, paused) VALUES (:queue, :paused)
                  ON CONFLICT (name) DO UPDATE SET paused = excluded.paused
                  RETURNING paused)
                SELECT pg_notify(:channel, '') FROM u WHERE NOT u.paused
                """);
        isPaused = Unit.of("isPaused", s, """
                SELECT EXISTS (SELECT 1 FROM ${schema}.clockwork_queues WHERE name = :queue AND paused)
                """);
        open = Unit.of("open", s, """
                INSERT INTO ${schema}.clockwork_queues (name) VALUES (:queue) ON CONFLICT (name) DO NOTHING
                """);
        deadList = Unit.of("list dead letters", s, retentionSql() + ";\n" + """
                SELECT id, payload, attempts, last_error, headers FROM %1$s
                WHERE queue = :queue AND state = 2 ORDER BY due, seq LIMIT :limit
                """.formatted(M));
        deadRequeue = Unit.of("requeue a dead letter", s, """
                WITH i AS (
                  UPDATE %1$s SET state = 0, due = clock_timestamp(), seq = %2$s, attempts = 0, last_error = NULL
                  WHERE queue = :queue AND id = :id AND state + 0 = 2
                  RETURNING state, due),
                %3$s
                SELECT (SELECT count(*) FROM i), (SELECT count(*) FROM w)
                """.formatted(M, SEQ, wake("i")));
        deadPurge = Unit.of("purge dead letters", s, """
                DELETE FROM %1$s WHERE queue = :queue AND state = 2
                """.formatted(M));
        stats = Unit.of("stats", s, sweepSql() + ";\n" + retentionSql() + ";\n" + """
                SELECT s.delayed, s.ready,
                       (SELECT count(*) FROM %1$s WHERE queue = :queue AND state = 1),
                       (SELECT count(*) FROM %1$s WHERE queue = :queue AND state = 2),
                       extract(epoch FROM (SELECT min(due) FROM %1$s WHERE queue = :queue AND state = 0
                         AND due > t.now) - t.now) * 1000,
                       (SELECT coalesce(sum(trimmed), 0) FROM ${schema}.clockwork_counters WHERE queue = :queue)
                FROM (SELECT clock_timestamp() AS now) t, LATERAL (
                  SELECT count(*) FILTER (WHERE due > t.now) AS delayed, count(*) FILTER (WHERE due <= t.now) AS ready
                  FROM %1$s WHERE queue = :queue AND state = 0) s
                """.formatted(M));
        counters = Unit.of("counters", s, """
                SELECT coalesce(sum(offered), 0), coalesce(sum(delivered), 0), coalesce(sum(acked), 0),
                       coalesce(sum(retried), 0), coalesce(sum(dead_lettered), 0)
                FROM ${schema}.clockwork_counters WHERE queue = :queue
                """);
    }

    /** The sweep: at most 1000 expired leases per call, skipping those another sweep holds. */
    private static String sweepSql() {
        return """
                WITH t AS (SELECT clock_timestamp() AS now),
                e AS (
                  SELECT m.id FROM %1$s m WHERE m.queue = :queue AND m.state = 1 AND m.due <= now()
                  LIMIT 1000 FOR UPDATE OF m SKIP LOCKED),
                x AS (
                  UPDATE %1$s m SET
                    state = CASE WHEN m.attempts >= :max_attempts THEN 2 ELSE 0 END,
                    due = CASE WHEN m.attempts >= :max_attempts THEN t.now ELSE m.due END,
                    seq = %2$s,
                    last_error = CASE WHEN m.attempts >= :max_attempts
                      THEN coalesce(m.last_error, :exhausted::text) ELSE m.last_error END
                  FROM e, t WHERE m.queue = :queue AND m.id = e.id
                  RETURNING m.state),
                %3$s
                SELECT count(*) FROM x
                """.formatted(M, SEQ, counters("c", "retried", "(SELECT count(*) FROM x WHERE state = 0)",
                "dead_lettered", "(SELECT count(*) FROM x WHERE state = 2)"));
    }

    /**
     * Retention: dead letters older than :max_age ms, or beyond the newest :max_count, are deleted (trimmed). The
     * newest :max_count are counted off the dead-letter index alone (due and seq are its columns; seq is unique), and
     * those older than the last of them deleted, so keeping many dead letters reads no row it keeps.
     */
    private static String retentionSql() {
        return """
                WITH t AS (SELECT clock_timestamp() AS now),
                o AS (
                  DELETE FROM %1$s m USING t
                  WHERE m.queue = :queue AND m.state = 2 AND m.due < t.now - :max_age%2$s
                  RETURNING 1),
                b AS (
                  DELETE FROM %1$s WHERE queue = :queue AND state = 2 AND (due, seq) < (
                    SELECT due, seq FROM %1$s WHERE queue = :queue AND state = 2 ORDER BY due DESC, seq DESC
                    OFFSET :max_count - 1 LIMIT 1)
                  RETURNING 1),
                %3$s
                SELECT (SELECT count(*) FROM o) + (SELECT count(*) FROM b)
                """.formatted(M, MS, counters("c", "trimmed", "(SELECT count(*) FROM o) + (SELECT count(*) FROM b)"));
    }

    /**
     * A CTE {@code name} adding counts to the queue's counter row of this backend's shard.
     *
     * @param name            the CTE's name
     * @param columnsAndCounts column, SQL count expression, column, expression, ...
     */
    private static String counters(String name, String... columnsAndCounts) {
        StringBuilder cols = new StringBuilder();
        StringBuilder vals = new StringBuilder();
        StringBuilder sum = new StringBuilder();
        StringBuilder set = new StringBuilder();
        for (int i = 0; i < columnsAndCounts.length; i += 2) {
            String col = columnsAndCounts[i];
            String sep = i == 0 ? "" : ", ";
            cols.append(", ").append(col);
            vals.append(sep).append(columnsAndCounts[i + 1]).append(" AS ").append(col);
            sum.append(i == 0 ? "" : " + ").append("x.").append(col);
            set.append(sep).append(col).append(" = k.").append(col).append(" + excluded.").append(col);
        }
        return name + " AS (\n  INSERT INTO ${schema}.clockwork_counters AS k (queue, shard" + cols + ")\n"
                + "  SELECT :queue, " + SHARD + cols.toString().replace(", ", ", x.")
                + " FROM (SELECT " + vals + ") x WHERE " + sum + " > 0\n"
                + "  ON CONFLICT (queue, shard) DO UPDATE SET " + set + ")";
    }

    /**
     * A CTE {@code w} that notifies the queue's channel if {@code source} (rows with {@code state} and {@code due})
     * made a message scheduled earlier than every message scheduled before the statement, and due within a second:
     * then a consumer may be sleeping past its due time. The payload is the milliseconds until that due time
     * ({@link Listener} wakes the consumers then, not at once). A later one needs no wake-up, as an idle consumer takes
     * again at least every second ({@link PostgresQueueBuilder#MAX_RECHECK_INTERVAL}); so a steady stream of delayed
     * offers sends no notifications, which PostgreSQL serializes at commit. The head is read as {@code min(due)}, one
     * probe of the scheduled index whatever the plan (a {@code NOT EXISTS} of an earlier message may be planned as a
     * scan of the scheduled messages with the due time as a filter).
     */
    private static String wake(String source) {
        return """
                w AS (
                  SELECT pg_notify(:channel,
                    greatest(0, ceil(extract(epoch FROM s.due - clock_timestamp()) * 1000))::bigint::text)
                  FROM (SELECT min(due) AS due FROM %2$s WHERE state = 0) s
                  WHERE s.due IS NOT NULL AND s.due < clock_timestamp() + interval '1 second'
                    AND s.due < coalesce((SELECT min(e.due) FROM %1$s e WHERE e.queue = :queue AND e.state = 0),
                                         'infinity'))"""
                .formatted(M, source);
    }
}

package io.clockwork.postgres;

/**
 * The SQL units of {@link PostgresSchedules} on the {@code clockwork_schedules} table of one schema
 * ({@code V2__schedules.sql}). Every "now" is the database's {@code clock_timestamp()} in whole epoch milliseconds,
 * the unit in which rules compute fire times, so every client plans on the database's timeline. Immutable and
 * thread-safe.
 *
 * <p>Parameters: {@code :queue} the queue's name, {@code :name} a schedule's, fire and look times in epoch ms.
 */
final class ScheduleSql {

    private static final String S = "${schema}.clockwork_schedules";
    /** The database's clock in whole epoch milliseconds, rounded down. */
    static final String NOW_MS = "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint";
    private static final String COLUMNS = "s.name, s.rule, s.misfire, s.spread_ms, s.payload, s.headers, s.paused,"
            + " s.next_fire, s.last_fire, s.outstanding, s.look_at, t.now";

    /** fireDue: locks up to :limit schedules due by the database's clock, skipping those another pass holds. */
    final Unit due;
    /** The ms from now to the earliest look time among the queue's schedules (null: none), for a sleeping poller. */
    final Unit untilNext;
    /** getSchedule: one schedule and the clock. */
    final Unit get;
    /** The same, locking the row until the transaction ends (administration: put, pause, resume). */
    final Unit lock;
    /** The database's clock. */
    final Unit now;
    /** listSchedules: every schedule of the queue, with the clock. */
    final Unit list;
    /** putSchedule, new: inserts unless the name exists; returns the count inserted. */
    final Unit insert;
    /** putSchedule, existing: rewrites definition, message and state. */
    final Unit update;
    /** fireDue: moves a schedule on after its occurrences are stored. */
    final Unit move;
    /** deleteSchedule. */
    final Unit delete;
    /** Whether a fixed-delay schedule's outstanding occurrence is unfinished: scheduled or in flight. */
    final Unit live;
    /** Wakes the queue's sleeping schedulers (at commit). */
    final Unit notify;

    /** @param schema the schema's name, checked by {@link SchemaManager#checkSchema} */
    ScheduleSql(String schema) {
        String q = "\"" + schema + "\"";
        String clock = "(SELECT " + NOW_MS + " AS now) t";
        due = Unit.of("fireDue", q, """
                SELECT %1$s FROM %2$s s, %3$s
                WHERE s.queue = :queue AND s.look_at <= t.now
                ORDER BY s.look_at
                LIMIT :limit
                FOR UPDATE OF s SKIP LOCKED
                """.formatted(COLUMNS, S, clock));
        untilNext = Unit.of("fireDue", q, """
                SELECT min(s.look_at) - t.now FROM %1$s s, %2$s
                WHERE s.queue = :queue AND s.look_at IS NOT NULL
                GROUP BY t.now
                """.formatted(S, clock));
        get = Unit.of("getSchedule", q, """
                SELECT %1$s FROM %2$s s, %3$s WHERE s.queue = :queue AND s.name = :name
                """.formatted(COLUMNS, S, clock));
        lock = Unit.of("putSchedule", q, """
                SELECT %1$s FROM %2$s s, %3$s WHERE s.queue = :queue AND s.name = :name FOR UPDATE OF s
                """.formatted(COLUMNS, S, clock));
        now = Unit.of("clock", q, "SELECT " + NOW_MS);
        list = Unit.of("listSchedules", q, """
                SELECT %1$s FROM %2$s s, %3$s WHERE s.queue = :queue
                """.formatted(COLUMNS, S, clock));
        insert = Unit.of("putSchedule", q, """
                INSERT INTO %1$s (queue, name, rule, misfire, spread_ms, payload, headers, paused, next_fire,
                                  last_fire, outstanding, look_at)
                VALUES (:queue, :name, :rule, :misfire, :spread, :payload, :headers::bytea, false, :next::bigint,
                        NULL, NULL, :next::bigint)
                ON CONFLICT (queue, name) DO NOTHING
                """.formatted(S));
        update = Unit.of("putSchedule", q, """
                UPDATE %1$s SET rule = :rule, misfire = :misfire, spread_ms = :spread, payload = :payload,
                  headers = :headers::bytea, paused = :paused, next_fire = :next::bigint, last_fire = :last::bigint,
                  outstanding = :outstanding::text, look_at = :look::bigint
                WHERE queue = :queue AND name = :name
                """.formatted(S));
        move = Unit.of("fireDue", q, """
                UPDATE %1$s SET next_fire = :next::bigint, last_fire = :last::bigint,
                  outstanding = :outstanding::text, look_at = :look::bigint
                WHERE queue = :queue AND name = :name
                """.formatted(S));
        delete = Unit.of("deleteSchedule", q, """
                DELETE FROM %1$s WHERE queue = :queue AND name = :name
                """.formatted(S));
        live = Unit.of("fireDue", q, """
                SELECT EXISTS (SELECT 1 FROM ${schema}.clockwork_messages
                               WHERE queue = :queue AND id = :id AND state < 2)
                """);
        notify = Unit.of("putSchedule", q, "SELECT pg_notify(:channel, '')");
    }
}

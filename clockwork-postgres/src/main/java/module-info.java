/**
 * Clockwork on PostgreSQL: {@code PostgresDelayedQueue}, the {@code DelayedQueue} contract on PostgreSQL 13+, through
 * any {@code javax.sql.DataSource}, with transactional enqueue on a caller's {@code java.sql.Connection}; and
 * {@code PostgresSchedules}, the {@code Schedules} contract beside such a queue.
 *
 * <p>Only {@code io.clockwork.postgres} is exported, and in it only the queue, its builder and its exception, and the
 * schedules and their builder are public; the SQL units, the schema manager, the listener and the poll loop are
 * package-private. The schema's SQL files are in the jar under {@code io/clockwork/postgres/schema}, for a DBA to
 * read and apply.
 */
module io.clockwork.postgres {
    requires transitive io.clockwork.core;
    requires transitive java.sql;
    requires org.postgresql.jdbc;

    exports io.clockwork.postgres;
}

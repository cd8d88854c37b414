package io.clockwork.postgres;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * Turns the driver's errors into {@link PostgresQueueException}s that say what failed and how to fix it, by SQLSTATE: a
 * pool that gave no connection in time (a transient connection error without SQLSTATE), no connection (class 08), a
 * read-only database (25006: a standby, or {@code default_transaction_read_only}), a missing privilege (42501: which
 * grants the queue needs), a statement timeout or cancel (57014), a missing schema or table (3F000, 42P01). Immutable
 * and thread-safe.
 */
final class Failures {

    private final String queue;
    private final String schema;

    Failures(String queue, String schema) {
        this.queue = queue;
        this.schema = schema;
    }

    /**
     * @param operation what was being done ("offer", "connect", ...)
     * @param e         the driver's error
     * @return the exception to throw
     */
    PostgresQueueException of(String operation, SQLException e) {
        return new PostgresQueueException("queue '" + queue + "': " + operation + " failed: " + why(e), e);
    }

    private String why(SQLException e) {
        String state = e.getSQLState() != null ? e.getSQLState() : "";
        String message = e.getMessage();
        if (e instanceof SQLTransientConnectionException && state.isEmpty()) {
            return "no connection from the pool in time (" + message + "): the pool is exhausted; size it for the"
                    + " application's own use plus, per queue client that polls with a wait, one connection for its"
                    + " listener, one per concurrent call and one per async thread";
        }
        if (state.startsWith("08")) {
            return "cannot reach the database (" + message + rootCause(e) + "); the queue reconnects by itself once"
                    + " it answers";
        }
        switch (state) {
            case "25006":
                return "the database is read-only (" + message + "): the DataSource points to a standby or replica,"
                        + " or default_transaction_read_only is on for this role or database; give the queue a"
                        + " DataSource of the primary, writable";
            case "42501":
                return message + ": the role needs USAGE on schema " + schema + ", SELECT, INSERT, UPDATE and"
                        + " DELETE on its tables and USAGE on its sequence (GRANT USAGE ON SCHEMA " + schema
                        + " TO <role>; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + schema
                        + " TO <role>; GRANT USAGE ON ALL SEQUENCES IN SCHEMA " + schema + " TO <role>)";
            case "57014":
                return "the statement was cancelled or ran past statement_timeout (" + message + ")";
            case "3F000":
            case "42P01":
                return message + ": the queue's schema " + schema + " is missing or incomplete; build the queue"
                        + " with autoCreateSchema(true) or apply the SQL files of io/clockwork/postgres/schema";
            default:
                return message;
        }
    }

    /** The driver's own reason under a pool's error (a pool reports a timeout; the driver says what failed). */
    private static String rootCause(SQLException e) {
        Throwable t = e.getCause();
        String driver = null;
        while (t != null) {
            if (t instanceof SQLException && t.getMessage() != null) {
                driver = t.getMessage();
            }
            t = t.getCause();
        }
        return driver != null && !driver.equals(e.getMessage()) ? ": " + driver : "";
    }

    /**
     * The error of a schema that could not be created or upgraded for want of a privilege.
     *
     * @param e the driver's error (SQLSTATE 42501)
     * @return the exception naming the grant to give
     */
    PostgresQueueException schemaPrivilege(SQLException e, boolean schemaExists) {
        String grant = schemaExists
                ? "GRANT CREATE ON SCHEMA " + schema + " TO <role>"
                : "GRANT CREATE ON DATABASE <database> TO <role> (or create schema " + schema + " as its owner)";
        return new PostgresQueueException("queue '" + queue + "': creating the schema failed: " + e.getMessage()
                + ": the role may not create the queue's tables; " + grant + ", or have a DBA apply the SQL files of"
                + " io/clockwork/postgres/schema and build the queue with autoCreateSchema(false)", e);
    }
}

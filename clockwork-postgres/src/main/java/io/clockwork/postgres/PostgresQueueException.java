package io.clockwork.postgres;

/**
 * Thrown when a {@code PostgresDelayedQueue} operation fails on the database side: no connection, a statement that
 * failed, a read-only database, a missing privilege or a schema that is missing or too old. The message names the
 * queue and the operation and says why in plain words, with what to do where the fix is known (a grant to give, a
 * SQL file to apply, the primary to connect to). The cause is the driver's error. Immutable.
 *
 * <p>When an operation fails this way its effect is unknown unless the message says the transaction rolled back:
 * delivery stays at least once either way (an unacknowledged delivery comes back after the visibility timeout).
 */
public class PostgresQueueException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, where, and why
     * @param cause   the underlying error
     */
    public PostgresQueueException(String message, Throwable cause) {
        super(message, cause);
    }
}

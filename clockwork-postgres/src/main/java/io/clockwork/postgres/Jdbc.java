package io.clockwork.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * How the backend holds a JDBC connection: borrowed from a pool in autocommit mode for one unit of work, or for one
 * transaction of several statements, and always given back. Stateless and thread-safe.
 */
final class Jdbc {

    private Jdbc() {
    }

    /** Work on a connection. */
    @FunctionalInterface
    interface SqlWork<T> {
        T apply(Connection c) throws SQLException;
    }

    /** Runs work on a connection of {@code dataSource} in autocommit mode; connect errors say so. */
    static <T> T withConnection(DataSource dataSource, Failures failures, String operation, SqlWork<T> work) {
        Connection c;
        try {
            c = dataSource.getConnection();
        } catch (SQLException e) {
            throw failures.of("connect (for " + operation + ")", e);
        }
        try (c) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            return work.apply(c);
        } catch (SQLException e) {
            throw failures.of(operation, e);
        }
    }

    /**
     * Runs work in one transaction on a connection in autocommit mode: commits what it did, or rolls it back if it
     * throws, and leaves the connection in autocommit mode again.
     */
    static <T> T inTransaction(Connection c, SqlWork<T> work) throws SQLException {
        c.setAutoCommit(false);
        try {
            T result = work.apply(c);
            c.commit();
            return result;
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
}

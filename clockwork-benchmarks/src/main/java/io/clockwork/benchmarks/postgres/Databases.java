package io.clockwork.benchmarks.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.fixture.PostgresServerProcess;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The databases of one PostgreSQL server that a {@link PostgresJobRun} creates (one per rival and phase, so each
 * rival's tables are its own), their connection pools, and what the harness asks the server: the size of a database's
 * tables, its top statements ({@code pg_stat_statements}, when the server loaded it), a backend's process id, the
 * version. Not thread-safe: the harness's main thread uses it.
 */
final class Databases {

    /** The database where the harness's own statements run and where {@code pg_stat_statements} is installed. */
    static final String ADMIN = "postgres";

    private final int port;

    /** @param port the server's port on 127.0.0.1, whose superuser {@link PostgresServerProcess#SUPERUSER} trusts */
    Databases(int port) {
        this.port = port;
    }

    String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + PostgresServerProcess.SUPERUSER;
    }

    /** Creates an empty database (dropping one of that name first). */
    void create(String database) {
        admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        admin("CREATE DATABASE " + database);
    }

    /** Drops a database and whatever is connected to it. */
    void drop(String database) {
        admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }

    /**
     * @param database a database of the server
     * @param size     the pool's connections (opened at once and kept)
     * @return a HikariCP pool on it
     */
    HikariDataSource pool(String database, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url(database));
        config.setMaximumPoolSize(size);
        config.setPoolName("bench-" + database);
        return new HikariDataSource(config);
    }

    /**
     * Runs {@code VACUUM ANALYZE} on a database, then sums {@code pg_total_relation_size} (table, indexes, TOAST) of
     * every table outside the system schemas.
     *
     * @return the bytes its tables take on disk
     */
    long tableBytes(String database) {
        try (Connection c = DriverManager.getConnection(url(database)); Statement s = c.createStatement()) {
            s.execute("VACUUM ANALYZE");
            try (ResultSet r = s.executeQuery("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)"
                    + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                    + " WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
                    + " AND n.nspname NOT LIKE 'pg_toast%'")) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot size " + database + ": " + e.getMessage(), e);
        }
    }

    /** @return the server's CPU meter (found through a backend, while it runs), or empty without /proc */
    Optional<PostgresCpu> cpu() {
        try (Connection c = DriverManager.getConnection(url(ADMIN)); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
            r.next();
            return PostgresCpu.ofBackend(r.getLong(1));
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** @return the server's version, e.g. {@code 15.14 (Debian 15.14-0+deb12u1)} */
    String version() {
        try (Connection c = DriverManager.getConnection(url(ADMIN)); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SHOW server_version")) {
            r.next();
            return r.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** @return the server settings a figure depends on, e.g. {@code fsync off, shared_buffers 128MB} */
    String settings() {
        List<String> shown = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url(ADMIN)); Statement s = c.createStatement()) {
            for (String name : List.of("fsync", "synchronous_commit", "full_page_writes", "shared_buffers")) {
                try (ResultSet r = s.executeQuery("SHOW " + name)) {
                    r.next();
                    shown.add(name + " " + r.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        return String.join(", ", shown);
    }

    /** @return whether {@code pg_stat_statements} is installed in {@link #ADMIN} and loaded by the server */
    boolean hasStatements() {
        try {
            return queryLong("SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'") > 0
                    && queryLong("SELECT count(*) FROM pg_stat_statements LIMIT 1") >= 0;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** Forgets the statistics of a database's statements (its schema's creation, say), in pg_stat_statements. */
    void resetStatements(String database) {
        try (Connection c = DriverManager.getConnection(url(ADMIN));
             PreparedStatement p = c.prepareStatement("SELECT pg_stat_statements_reset(0, d.oid, 0)"
                     + " FROM pg_database d WHERE d.datname = ?")) {
            p.setString(1, database);
            p.execute();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reset pg_stat_statements: " + e.getMessage(), e);
        }
    }

    /**
     * @param database a database
     * @param limit    how many statements
     * @return its statements with the most execution time, most first: {calls, total ms, query text}
     */
    List<String[]> topStatements(String database, int limit) {
        List<String[]> top = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url(ADMIN));
             PreparedStatement p = c.prepareStatement("SELECT s.calls, s.total_exec_time, s.query"
                     + " FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ?"
                     + " ORDER BY s.total_exec_time DESC LIMIT ?")) {
            p.setString(1, database);
            p.setInt(2, limit);
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) {
                    top.add(new String[] {Long.toString(r.getLong(1)), Double.toString(r.getDouble(2)),
                        r.getString(3)});
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read pg_stat_statements: " + e.getMessage(), e);
        }
        return top;
    }

    private long queryLong(String sql) {
        try (Connection c = DriverManager.getConnection(url(ADMIN)); Statement s = c.createStatement();
             ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private void admin(String sql) {
        try (Connection c = DriverManager.getConnection(url(ADMIN)); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}

package io.clockwork.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Creates and upgrades the queue's schema from the SQL files under {@code io/clockwork/postgres/schema}
 * ({@code V<n>__<what>.sql}, applied in order, each recording its version in {@code clockwork_schema_version}), or
 * checks that a DBA applied them. Stateless and thread-safe.
 *
 * <p>{@link #apply} holds a transaction-scoped advisory lock of the schema while it reads the version and applies the
 * missing files, all in one transaction: processes that start at once apply each file exactly once, and the others
 * find it applied. Nothing needs a superuser: the schema is created only if missing (which needs {@code CREATE} on
 * the database), the tables with {@code CREATE} on the schema.
 */
final class SchemaManager {

    /** The files, in version order: version n is the n-th. */
    static final List<String> FILES = List.of("V1__queue.sql", "V2__schedules.sql", "V3__flow.sql");
    /** The version this client needs. */
    static final int VERSION = FILES.size();
    /** The default schema. */
    static final String DEFAULT_SCHEMA = "clockwork";

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    /** The advisory lock's first key: "cw" in ASCII; the second is the schema's hash. */
    private static final int LOCK_CLASS = 0x6377;

    private SchemaManager() {
    }

    /** The role may not create the schema or its tables: the error, and whether the schema existed. */
    static final class CreateDenied extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient SQLException error;
        final boolean schemaExisted;

        CreateDenied(SQLException error, boolean schemaExisted) {
            super(error.getMessage(), error);
            this.error = error;
            this.schemaExisted = schemaExisted;
        }
    }

    /**
     * @param schema a schema name
     * @return it
     * @throws IllegalArgumentException unless a lowercase SQL identifier of at most 63 characters
     */
    static String checkSchema(String schema) {
        Objects.requireNonNull(schema, "schema");
        if (!IDENTIFIER.matcher(schema).matches()) {
            throw new IllegalArgumentException("schema must be a lowercase SQL identifier ([a-z_][a-z0-9_]*, at most"
                    + " 63 characters), was '" + schema + "'");
        }
        return schema;
    }

    /**
     * Applies the missing versions, or with {@code create} false checks that none is missing.
     *
     * @param c      a connection in autocommit mode, left so
     * @param schema the schema, checked
     * @param create whether to create and upgrade
     * @throws SQLException          if a statement fails
     * @throws CreateDenied           if the role may not create the schema or its tables
     * @throws IllegalStateException without {@code create}, if the schema is missing or older than {@link #VERSION}
     *                               (the message names the files to apply)
     */
    static void apply(Connection c, String schema, boolean create) throws SQLException {
        int found = version(c, schema);
        if (found >= VERSION) {
            return;
        }
        if (!create) {
            throw new IllegalStateException("schema '" + schema + "' is at version " + found + ", the queue needs "
                    + VERSION + ": apply " + String.join(", ", FILES.subList(found, VERSION)) + " (in the jar under"
                    + " io/clockwork/postgres/schema, with ${schema} replaced by " + schema + "), or build the queue"
                    + " with autoCreateSchema(true)");
        }
        c.setAutoCommit(false);
        try {
            try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(?, ?)")) {
                lock.setInt(1, LOCK_CLASS);
                lock.setInt(2, schema.hashCode());
                lock.execute();
            }
            found = version(c, schema);
            if (found < VERSION) {
                boolean exists = schemaExists(c, schema);
                try (Statement s = c.createStatement()) {
                    if (!exists) {
                        s.execute("CREATE SCHEMA \"" + schema + "\"");
                    }
                    for (String file : FILES.subList(found, VERSION)) {
                        s.execute(text(file).replace("${schema}", "\"" + schema + "\""));
                    }
                } catch (SQLException e) {
                    if ("42501".equals(e.getSQLState())) {
                        throw new CreateDenied(e, exists);
                    }
                    throw e;
                }
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /**
     * @param file a file of {@link #FILES}
     * @return its text, with the {@code ${schema}} placeholder
     */
    static String text(String file) {
        try (InputStream in = SchemaManager.class.getResourceAsStream("schema/" + file)) {
            if (in == null) {
                throw new IllegalStateException("schema file " + file + " missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean schemaExists(Connection c, String schema) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static int version(Connection c, String schema) throws SQLException {
        // A scan of the catalogs under the statement's snapshot, not to_regclass: that answers from the backend's
        // catalog cache, which an advisory lock does not refresh, so it would miss a table another process just
        // committed while this one waited for the lock.
        try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = 'clockwork_schema_version')")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return 0;
                }
            }
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT coalesce(max(version), 0) FROM \"" + schema + "\".clockwork_schema_version")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}

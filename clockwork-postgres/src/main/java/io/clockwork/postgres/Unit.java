package io.clockwork.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One SQL unit of the queue's state machine: its name (the operation's, as in docs/design.md) and its text, with {@code
 * :name} parameters that {@link #prepare} binds by name (a name may occur several times; {@code ::type} casts and
 * string literals are left alone). A unit may hold several statements separated by semicolons: pgjdbc sends them in one
 * round trip and, in autocommit mode, runs them as one transaction. Immutable and thread-safe.
 */
final class Unit {

    /**
     * The parameter that picks the counter rows' range ({@link QueueSql#SHARD}), bound by {@link #prepare} itself: 0
     * on a connection in autocommit mode (the queue's own units, each a short transaction), 64 on one in a transaction
     * (a caller's, which may stay open long after the unit ran).
     */
    static final String SHARD_BASE = "shard_base";
    private static final int TRANSACTION_SHARDS = 64;

    /** A string literal (kept as it is) or a parameter outside one. */
    private static final Pattern PARAMETER = Pattern.compile("'[^']*'|(?<!:):([a-z][a-z_]*)");

    private final String name;
    private final String source;
    private final String sql;
    private final List<String> parameters;

    private Unit(String name, String source, String sql, List<String> parameters) {
        this.name = name;
        this.source = source;
        this.sql = sql;
        this.parameters = parameters;
    }

    /**
     * @param name   the operation's name
     * @param schema the schema, quoted, in place of {@code ${schema}}
     * @param text   the SQL with {@code :name} parameters
     * @return the unit
     */
    static Unit of(String name, String schema, String text) {
        String withSchema = text.replace("${schema}", schema);
        Matcher m = PARAMETER.matcher(withSchema);
        List<String> names = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            if (m.group(1) == null) {
                m.appendReplacement(sb, Matcher.quoteReplacement(m.group()));
            } else {
                names.add(m.group(1));
                m.appendReplacement(sb, "?");
            }
        }
        m.appendTail(sb);
        return new Unit(name, withSchema, sb.toString(), List.copyOf(names));
    }

    /** @return the operation's name */
    String name() {
        return name;
    }

    /** @return the SQL with its schema and {@code :name} parameters, to build a unit of several from */
    String sourceText() {
        return source;
    }

    /** @return the SQL as sent, with {@code ?} placeholders */
    String sql() {
        return sql;
    }

    /**
     * Prepares the unit and binds its parameters: a {@code String}, {@code Long}, {@code Integer},
     * {@code Boolean}, {@code byte[]} or {@code java.sql.Array}; null binds an untyped NULL (the SQL casts it).
     * {@link #SHARD_BASE}, unless given, comes from the connection's autocommit mode.
     *
     * @param c      the connection
     * @param values every parameter by name
     * @return the statement, for the caller to execute and close
     * @throws SQLException          if preparing or binding fails
     * @throws IllegalStateException if a parameter has no value
     */
    PreparedStatement prepare(Connection c, Map<String, ?> values) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        try {
            for (int i = 0; i < parameters.size(); i++) {
                String p = parameters.get(i);
                if (p.equals(SHARD_BASE) && !values.containsKey(p)) {
                    ps.setInt(i + 1, c.getAutoCommit() ? 0 : TRANSACTION_SHARDS);
                    continue;
                }
                if (!values.containsKey(p)) {
                    throw new IllegalStateException("unit " + name + " has no value for :" + p);
                }
                Object v = values.get(p);
                if (v == null) {
                    ps.setNull(i + 1, Types.NULL);
                } else {
                    ps.setObject(i + 1, v);
                }
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    @Override
    public String toString() {
        return name;
    }
}

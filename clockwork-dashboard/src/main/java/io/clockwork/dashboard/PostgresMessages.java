package io.clockwork.dashboard;

import io.clockwork.postgres.PostgresQueueException;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * What the dashboard reads of a PostgreSQL schema's queues with plain SQL on the tables docs/postgres-queue.md
 * documents: the list of queues, pages of messages per state, a message by id, the oldest ready message, and the
 * deletion of a queue. Each call is one statement (one transaction for a deletion) on a connection of the data
 * source, in the database's clock. Thread-safe.
 *
 * <p>A message's state is its row's {@code state} (0 scheduled, 1 in flight, 2 dead); a scheduled one is ready when
 * its {@code due} has passed. Pages run in the order of the table's partial indexes, {@code (due, seq)}, and go on
 * from a cursor that holds the last row's due time (epoch microseconds) and sequence number, so a page costs an index
 * range scan however deep it is.
 */
final class PostgresMessages {

    private static final Pattern CURSOR = Pattern.compile("(-?\\d{1,19}):(\\d{1,19})");
    private static final String MICROS = "(extract(epoch FROM due) * 1000000)::int8";

    private final DataSource dataSource;
    private final String queues;
    private final String messages;
    private final String counters;
    private final String schedules;

    /** @param schema a checked schema name */
    PostgresMessages(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.queues = "\"" + schema + "\".clockwork_queues";
        this.messages = "\"" + schema + "\".clockwork_messages";
        this.counters = "\"" + schema + "\".clockwork_counters";
        this.schedules = "\"" + schema + "\".clockwork_schedules";
    }

    /** Work on a connection. */
    @FunctionalInterface
    private interface Work<T> {
        T apply(Connection c) throws SQLException;
    }

    private <T> T run(String what, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            return work.apply(c);
        } catch (SQLException e) {
            throw new PostgresQueueException(what + ": " + e.getMessage(), e);
        }
    }

    /** @return the queues' names, sorted; empty if the schema or its table does not exist yet */
    List<String> queueNames() {
        return run("list queues", c -> {
            List<String> names = new ArrayList<>();
            try (PreparedStatement st = c.prepareStatement("SELECT name FROM " + queues);
                 ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            } catch (SQLException e) {
                if ("42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState())) {
                    return List.of(); // undefined table or schema: no client has created a queue here
                }
                throw e;
            }
            names.sort(null);
            return List.copyOf(names);
        });
    }

    /** @return the filter of a state, on top of {@code queue = ?} */
    private static String filter(MessageState state) {
        return switch (state) {
            case READY -> "state = 0 AND due <= clock_timestamp()";
            case DELAYED -> "state = 0 AND due > clock_timestamp()";
            case IN_FLIGHT -> "state = 1";
            case DEAD -> "state = 2";
        };
    }

    MessagePage page(String queue, MessageState state, Optional<String> cursor, int size) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1, was " + size);
        }
        long[] after = cursor.map(PostgresMessages::parseCursor).orElse(null);
        return run("list " + state.label().toLowerCase(java.util.Locale.ROOT) + " messages of queue '" + queue + "'",
                c -> {
                    long total;
                    try (PreparedStatement st = c.prepareStatement("SELECT count(*) FROM " + messages
                            + " WHERE queue = ? AND " + filter(state))) {
                        st.setString(1, queue);
                        try (ResultSet rs = st.executeQuery()) {
                            rs.next();
                            total = rs.getLong(1);
                        }
                    }
                    String sql = "SELECT id, state, due, attempts, payload, headers, last_error, seq, " + MICROS
                            + " FROM " + messages + " WHERE queue = ? AND " + filter(state)
                            + (after != null ? " AND (due, seq) > ('epoch'::timestamptz + ? * interval '1 microsecond',"
                            + " ?)" : "") + " ORDER BY due, seq LIMIT ?";
                    List<MessageRow> rows = new ArrayList<>();
                    String next = null;
                    String last = null;
                    try (PreparedStatement st = c.prepareStatement(sql)) {
                        int i = 1;
                        st.setString(i++, queue);
                        if (after != null) {
                            st.setLong(i++, after[0]);
                            st.setLong(i++, after[1]);
                        }
                        st.setInt(i, size + 1);
                        try (ResultSet rs = st.executeQuery()) {
                            while (rs.next()) {
                                if (rows.size() == size) {
                                    next = last; // a row beyond the page: there is a next page
                                    break;
                                }
                                rows.add(row(rs, state));
                                last = rs.getLong(9) + ":" + rs.getLong(8);
                            }
                        }
                    }
                    return new MessagePage(rows, total, Optional.ofNullable(next), true);
                });
    }

    private static long[] parseCursor(String cursor) {
        Matcher m = CURSOR.matcher(cursor);
        if (!m.matches()) {
            throw new IllegalArgumentException("cursor must be one this page handed out (MICROS:SEQ), was '"
                    + (cursor.length() > 40 ? cursor.substring(0, 40) + "..." : cursor) + "'");
        }
        try {
            return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("cursor out of range: '" + cursor + "'");
        }
    }

    Optional<MessageRow> find(String queue, String id) {
        return run("find message '" + id + "' of queue '" + queue + "'", c -> {
            try (PreparedStatement st = c.prepareStatement("SELECT id, CASE WHEN state = 0 AND due > clock_timestamp()"
                    + " THEN 3 ELSE state END, due, attempts, payload, headers, last_error FROM " + messages
                    + " WHERE queue = ? AND id = ?")) {
                st.setString(1, queue);
                st.setString(2, id);
                try (ResultSet rs = st.executeQuery()) {
                    return rs.next() ? Optional.of(row(rs, null)) : Optional.empty();
                }
            }
        });
    }

    Optional<Duration> oldestReady(String queue) {
        return run("read the oldest ready message of queue '" + queue + "'", c -> {
            try (PreparedStatement st = c.prepareStatement("SELECT extract(epoch FROM clock_timestamp() - min(due))"
                    + " * 1000 FROM " + messages + " WHERE queue = ? AND state = 0 AND due <= clock_timestamp()")) {
                st.setString(1, queue);
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    double millis = rs.getDouble(1);
                    return rs.wasNull() ? Optional.empty()
                            : Optional.of(Duration.ofNanos((long) (Math.max(0, millis) * 1_000_000)));
                }
            }
        });
    }

    /**
     * Deletes a queue's messages, schedules (where the schema has them), counters and registry row in one
     * transaction.
     *
     * @return the rows deleted
     * @throws IllegalStateException if the registry has no such queue
     */
    long deleteQueue(String queue) {
        return run("delete queue '" + queue + "'", c -> {
            c.setAutoCommit(false);
            try {
                long deleted = 0;
                for (String sql : new String[] {"DELETE FROM " + queues + " WHERE name = ?",
                    "DELETE FROM " + messages + " WHERE queue = ?", "DELETE FROM " + counters + " WHERE queue = ?"}) {
                    try (PreparedStatement st = c.prepareStatement(sql)) {
                        st.setString(1, queue);
                        int n = st.executeUpdate();
                        if (deleted == 0 && n == 0) {
                            c.rollback();
                            throw new IllegalStateException("no queue '" + queue + "': no client has created it");
                        }
                        deleted += n;
                    }
                }
                if (hasTable(c, schedules)) {
                    try (PreparedStatement st = c.prepareStatement("DELETE FROM " + schedules + " WHERE queue = ?")) {
                        st.setString(1, queue);
                        deleted += st.executeUpdate();
                    }
                }
                c.commit();
                return deleted;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        });
    }

    private static boolean hasTable(Connection c, String table) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            st.setString(1, table);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** @param state the state of every row, or null to read it from column 2 (3: delayed) */
    private static MessageRow row(ResultSet rs, MessageState state) throws SQLException {
        MessageState s = state;
        if (s == null) {
            s = switch (rs.getInt(2)) {
                case 0 -> MessageState.READY;
                case 1 -> MessageState.IN_FLIGHT;
                case 2 -> MessageState.DEAD;
                default -> MessageState.DELAYED;
            };
        }
        Instant at = rs.getObject(3, OffsetDateTime.class).toInstant();
        return new MessageRow(rs.getString(1), s, Optional.of(at), rs.getInt(4), headers(rs.getBytes(6)),
                rs.getBytes(5), rs.getString(7));
    }

    /**
     * Reads the {@code headers} column: a count, then each name and value in Java's modified UTF-8, as
     * {@link DataInputStream#readUTF} reads them; SQL NULL for none.
     */
    static Map<String, String> headers(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return Map.of();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int n = in.readUnsignedShort();
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                headers.put(in.readUTF(), in.readUTF());
            }
            return headers;
        } catch (IOException e) {
            return Map.of("(unreadable headers)", bytes.length + " bytes");
        }
    }
}

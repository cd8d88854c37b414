package io.clockwork.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.dashboard.PostgresQueueSource;
import io.clockwork.dashboard.QueueSource;
import io.clockwork.postgres.PostgresDelayedQueue;
import io.clockwork.postgres.PostgresQueueException;
import io.clockwork.postgres.PostgresSchedules;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.ForwardingDelayedQueue;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.QueueStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PostgreSQL database given as a JDBC URL ({@code jdbc:postgresql://host[:port]/database[?parameters]}), a role
 * and its password, and the schema holding the queues' tables: the {@link Backend} of {@code --postgres}. Immutable.
 *
 * <p>Each command opens a HikariCP pool of its own for as long as it runs: one connection for the command's
 * statements, and room for one more, which a queue client takes for its {@code LISTEN} only if it waits for messages. The pool connects when it is created, so an unreachable database
 * fails the command at once, in {@link #CONNECT_TIMEOUT} at most, with the driver's reason. Queues are opened as
 * existing ones: the command checks {@code clockwork_queues} first and never creates a schema or a queue.
 *
 * <p>The password never appears in a message: it is scrubbed from what the driver reports, and the URL is shown with
 * its {@code password} parameter as {@code ***}.
 */
public final class PostgresTarget implements Backend {

    /** How long the first connect, and any wait for a pooled connection, may take. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** The schema of the queues unless {@code --schema} names another, as {@code PostgresDelayedQueue} has it. */
    public static final String DEFAULT_SCHEMA = "clockwork";
    /** Dead letters the CLI's clients keep: longer than any queue's own retention, so a command trims nothing. */
    private static final Duration KEEP_DEAD_LETTERS = Duration.ofDays(36_525);
    private static final Pattern URL = Pattern.compile("(?i)jdbc:postgresql://([^/?#]+)(/[^?#]*)?(\\?.*)?");
    private static final Pattern PASSWORD_PARAM = Pattern.compile("(?i)[?&]password=([^&]*)");
    private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final int MIN_SCRUBBED = 4;

    private final String url;
    private final String user;
    private final String password;
    private final String urlPassword;
    private final String schema;
    private final String where;

    private PostgresTarget(String url, String user, String password, String urlPassword, String schema,
                           String where) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.urlPassword = urlPassword;
        this.schema = schema;
        this.where = where;
    }

    /**
     * Checks a JDBC URL's form (not whether a database answers there).
     *
     * @param text     the URL as typed
     * @param user     the role, or null for the one the URL names
     * @param password its password, or null
     * @param schema   the schema, or null for {@value #DEFAULT_SCHEMA}
     * @return the target
     * @throws IllegalArgumentException if the URL is not a PostgreSQL JDBC URL with a host, or the schema is not a
     *                                  lowercase SQL identifier; the message shows no password
     */
    public static PostgresTarget parse(String text, String user, String password, String schema) {
        Objects.requireNonNull(text, "text");
        String t = text.strip();
        Matcher m = URL.matcher(t);
        if (!m.matches()) {
            String hint = t.toLowerCase(Locale.ROOT).startsWith("postgres") ? "; write it as a JDBC URL, "
                    + "jdbc:postgresql://host:port/database" : "";
            throw new IllegalArgumentException("'" + PostgresQueueSource.redact(t) + "' is not a PostgreSQL JDBC URL "
                    + "(expected jdbc:postgresql://host:port/database, e.g. jdbc:postgresql://127.0.0.1:5432/app)"
                    + hint);
        }
        String s = schema != null ? schema : DEFAULT_SCHEMA;
        if (!SCHEMA.matcher(s).matches()) {
            throw new IllegalArgumentException("--schema must be a lowercase SQL identifier ([a-z_][a-z0-9_]*, at most "
                    + "63 characters), was '" + s + "'");
        }
        String authority = m.group(1);
        String host = authority.substring(authority.lastIndexOf('@') + 1);
        String database = m.group(2) == null || m.group(2).length() <= 1 ? "" : m.group(2);
        Matcher p = m.group(3) == null ? null : PASSWORD_PARAM.matcher(m.group(3));
        String urlPassword = p != null && p.find() ? p.group(1) : null;
        return new PostgresTarget(t, user, password, urlPassword, s, "postgresql " + host + database + ", schema " + s);
    }

    /** @return e.g. {@code postgresql 127.0.0.1:5432/app, schema clockwork}: for messages, never a password */
    @Override
    public String where() {
        return where;
    }

    @Override
    public String redact(String text) {
        if (text == null) {
            return null;
        }
        String s = text;
        for (String secret : new String[] {password, urlPassword}) {
            if (secret != null && secret.length() >= MIN_SCRUBBED) {
                s = s.replace(secret, "***");
            }
        }
        return s;
    }

    @Override
    public boolean partitioned() {
        return false;
    }

    /**
     * Opens a pool on the database, connected.
     *
     * @param size the most connections
     * @throws CliException if the database cannot be reached or refuses the role
     */
    private HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("clockwork-cli");
        config.setJdbcUrl(url);
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(CONNECT_TIMEOUT.toMillis());
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new CliException("cannot reach PostgreSQL at " + where + ": "
                    + ClockworkCli.oneLine(redact(rootMessage(e))), e);
        }
    }

    /** A queue client and the pool it runs on, closed together. */
    private record Opened(PostgresDelayedQueue<byte[]> queue, HikariDataSource pool) {
        void close() {
            try {
                queue.close();
            } finally {
                pool.close();
            }
        }
    }

    /**
     * Opens a queue on a pool of its own: one checked in {@code clockwork_queues} first unless {@code create}.
     *
     * @throws CliException if the database cannot be reached, or has no such queue, or refuses the client
     */
    private Opened open(String name, int maxAttempts, boolean create) {
        HikariDataSource pool = pool(2);
        try {
            if (!create) {
                checkExists(pool, name);
            }
            PostgresDelayedQueue<byte[]> q = PostgresDelayedQueue.builder(pool, name, Codec.bytes())
                    .schema(schema).autoCreateSchema(false).maxAttempts(maxAttempts)
                    .visibilityTimeout(QueueOptions.DEFAULT_VISIBILITY_TIMEOUT)
                    .deadLetterRetention(KEEP_DEAD_LETTERS, Long.MAX_VALUE)
                    .asyncExecutor(Runnable::run) // a command makes no async call
                    .build();
            return new Opened(q, pool);
        } catch (PostgresQueueException e) {
            pool.close();
            throw new CliException(ClockworkCli.oneLine(redact(e.getMessage())), e);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    @Override
    public DelayedQueue<byte[]> openExisting(String name, int maxAttempts, int partitions) {
        Opened o = open(name, maxAttempts, false);
        return new ForwardingDelayedQueue<>(o.queue()) {
            @Override
            public void close() {
                o.close();
            }
        };
    }

    /** The queue is created if no client has ({@code create}), in a schema its applications have created. */
    @Override
    public OpenSchedules openSchedules(String name, boolean create) {
        Opened o = open(name, QueueOptions.DEFAULT_MAX_ATTEMPTS, create);
        return new OpenSchedules(PostgresSchedules.builder(o.queue()).build(), o::close);
    }

    /** @throws CliException naming the queue and schema if {@code clockwork_queues} has no such queue */
    private void checkExists(HikariDataSource pool, String name) {
        String unknown = "unknown queue '" + name + "' on " + where + ": no client has created a queue of that name";
        try (Connection c = pool.getConnection();
             PreparedStatement st = c.prepareStatement("SELECT 1 FROM \"" + schema
                     + "\".clockwork_queues WHERE name = ?")) {
            st.setString(1, name);
            try (ResultSet rs = st.executeQuery()) {
                if (!rs.next()) {
                    throw new CliException(unknown);
                }
            }
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState())) {
                throw new CliException(unknown + " (the schema has no queue table; check --schema)", e);
            }
            throw new CliException("cannot read the queues on " + where + ": "
                    + ClockworkCli.oneLine(redact(e.getMessage())), e);
        }
    }

    @Override
    public String delete(String name) {
        QueueStats s;
        try (DelayedQueue<byte[]> q = openExisting(name, QueueOptions.DEFAULT_MAX_ATTEMPTS, 0)) {
            s = q.stats();
        }
        try (HikariDataSource pool = pool(1);
             PostgresQueueSource source = PostgresQueueSource.of(pool, schema, QueueOptions.DEFAULT_MAX_ATTEMPTS,
                     where)) {
            long rows = source.delete(name);
            return String.format(Locale.ROOT, "deleted queue '%s' on %s: %,d row%s (%,d delayed, %,d ready, "
                    + "%,d in flight, %,d dead)", name, where, rows, rows == 1 ? "" : "s", s.delayed(), s.ready(),
                    s.inFlight(), s.dead());
        } catch (PostgresQueueException | IllegalStateException e) {
            throw new CliException("queue '" + name + "' on " + where + ": "
                    + ClockworkCli.oneLine(redact(e.getMessage())), e);
        }
    }

    @Override
    public QueueSource dashboardSource(int maxAttempts, boolean cluster) {
        try {
            return PostgresQueueSource.connect(url, user, password, schema, maxAttempts);
        } catch (PostgresQueueException e) {
            throw new CliException(ClockworkCli.oneLine(redact(e.getMessage())), e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /** @return the URL without its password */
    @Override
    public String toString() {
        return PostgresQueueSource.redact(url);
    }
}

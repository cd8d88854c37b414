package io.clockwork.dashboard;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.PostgresDelayedQueue;
import io.clockwork.postgres.PostgresQueueException;
import io.clockwork.postgres.PostgresSchedules;
import io.clockwork.queue.Codec;
import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.QueueStats;
import io.clockwork.schedule.ScheduleInfo;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The queues of one schema of a PostgreSQL database, listed from its {@code clockwork_queues} table at every call and
 * each opened once, on first use, as a {@link PostgresDelayedQueue} with raw byte values (so any producer's payload
 * can be shown), kept open until {@link #close()}. Thread-safe.
 *
 * <p>The dashboard never polls with a wait, so its queue clients hold no connection for a {@code LISTEN}: every
 * queue shares the pool's connections ({@link #BASE_POOL_SIZE} in a pool this source owns, {@link #connect}), each
 * only for the statement it runs. The clients never create the schema
 * ({@code autoCreateSchema(false)}), and keep dead letters as long as the queue's own clients do: their retention is
 * the largest there is, so reading a queue here never trims what its clients keep.
 *
 * <p>Messages are listed with plain SQL on {@code clockwork_messages} (docs/postgres-queue.md), by
 * {@link PostgresMessages}. Each queue's schedules are read and paused through a {@link PostgresSchedules} that is
 * never started and whose {@code fireDue} is never called: listing, pausing and resuming only read and write the
 * schedules' rows, so the dashboard produces no occurrence (the applications' schedulers do).
 */
public final class PostgresQueueSource implements QueueSource {

    /** Connections of an owned pool for listing, browsing and actions, beside one per open queue. */
    static final int BASE_POOL_SIZE = 4;
    /** How long a statement of an owned pool may wait for a connection, and a first connect may take. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /**
     * The dead-letter age the source's clients keep: a century, longer than any client's retention, and one that
     * PostgreSQL's timestamps can subtract from now.
     */
    static final Duration KEEP_DEAD_LETTERS = Duration.ofDays(36_525);
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)([?&;]password=)[^&;]*");
    private static final Pattern URL_CREDENTIALS = Pattern.compile("^([A-Za-z][A-Za-z0-9+.:-]*://)[^/?#@]*@");

    private final DataSource dataSource;
    private final HikariDataSource ownPool; // null: the application's
    private final String schema;
    private final int maxAttempts;
    private final String description;
    private final PostgresMessages messages;
    private final Map<String, PostgresView> open = new ConcurrentHashMap<>();

    private PostgresQueueSource(DataSource dataSource, HikariDataSource ownPool, String schema, int maxAttempts,
                                String description) {
        this.dataSource = dataSource;
        this.ownPool = ownPool;
        this.schema = schema;
        this.maxAttempts = maxAttempts;
        this.description = description;
        this.messages = new PostgresMessages(dataSource, schema);
    }

    /**
     * Connects to a database through a HikariCP pool of its own, closed by {@link #close()}.
     *
     * @param jdbcUrl     the database, e.g. {@code jdbc:postgresql://127.0.0.1:5432/app}
     * @param user        the role, or null for the one the URL names (or the driver's default)
     * @param password    its password, or null for none or the one the URL carries
     * @param schema      the schema holding the queues' tables, as their clients build them (e.g. {@code clockwork})
     * @param maxAttempts the queues' maxAttempts, as their clients build them: it decides what an expired delivery
     *                    becomes when the dashboard's stats call returns it to the schedule
     * @return the source
     * @throws IllegalArgumentException if the URL is not a PostgreSQL JDBC URL, or the schema or maxAttempts is bad
     * @throws PostgresQueueException   if the database cannot be reached; the message shows the URL without password
     */
    public static PostgresQueueSource connect(String jdbcUrl, String user, String password, String schema,
                                              int maxAttempts) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        checkSchema(schema);
        checkMaxAttempts(maxAttempts);
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("jdbcUrl must be a PostgreSQL JDBC URL "
                    + "(jdbc:postgresql://host:port/database), was '" + redact(jdbcUrl) + "'");
        }
        HikariConfig config = new HikariConfig();
        config.setPoolName("clockwork-dashboard");
        config.setJdbcUrl(jdbcUrl);
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(BASE_POOL_SIZE);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(CONNECT_TIMEOUT.toMillis());
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new PostgresQueueException("cannot connect to PostgreSQL at " + redact(jdbcUrl) + ": "
                    + scrub(rootMessage(e), password), null);
        }
        return new PostgresQueueSource(pool, pool, schema, maxAttempts, redact(jdbcUrl) + ", schema " + schema);
    }

    /**
     * @param jdbcUrl     as in {@link #connect(String, String, String, String, int)}, with the user and password in
     *                    it if the database needs them
     * @param schema      as there
     * @param maxAttempts as there
     * @return the source
     */
    public static PostgresQueueSource connect(String jdbcUrl, String schema, int maxAttempts) {
        return connect(jdbcUrl, null, null, schema, maxAttempts);
    }

    /**
     * The queues of a schema reached through the application's {@link DataSource}, which stays the application's:
     * {@link #close()} closes the queue clients this source opened, not the data source.
     *
     * @param dataSource  the database; it must lend one connection per queue shown, beside the dashboard's requests
     * @param schema      the schema holding the queues' tables
     * @param maxAttempts as in {@link #connect(String, String, String, String, int)}
     * @param where       how the pages name the database, e.g. {@code orders database}; never a password
     * @return the source
     */
    public static PostgresQueueSource of(DataSource dataSource, String schema, int maxAttempts, String where) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(where, "where");
        checkSchema(schema);
        checkMaxAttempts(maxAttempts);
        if (where.isBlank()) {
            throw new IllegalArgumentException("where must name the database, was blank");
        }
        return new PostgresQueueSource(dataSource, null, schema, maxAttempts, where + ", schema " + schema);
    }

    /**
     * Hides the password of a JDBC URL: the value of a {@code password} parameter, and any credentials before an
     * {@code @} in the authority, become {@code ***}.
     *
     * @param jdbcUrl a JDBC URL, or what was typed as one
     * @return it without its password
     */
    public static String redact(String jdbcUrl) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        String s = URL_PASSWORD.matcher(jdbcUrl).replaceAll("$1***");
        return URL_CREDENTIALS.matcher(s).replaceFirst("$1***@");
    }

    private static String scrub(String text, String password) {
        return password == null || password.length() < 4 ? text : text.replace(password, "***");
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    private static void checkSchema(String schema) {
        Objects.requireNonNull(schema, "schema");
        if (!IDENTIFIER.matcher(schema).matches()) {
            throw new IllegalArgumentException("schema must be a lowercase SQL identifier ([a-z_][a-z0-9_]*, at most "
                    + "63 characters), was '" + schema + "'");
        }
    }

    private static void checkMaxAttempts(int maxAttempts) {
        if (maxAttempts < 1 || maxAttempts > QueueOptions.MAX_MAX_ATTEMPTS) {
            throw new IllegalArgumentException("maxAttempts must be 1 to " + QueueOptions.MAX_MAX_ATTEMPTS + ", was "
                    + maxAttempts);
        }
    }

    /** @return the names in {@code clockwork_queues}, sorted; empty if the schema has no queue table yet */
    @Override
    public List<String> names() {
        return messages.queueNames();
    }

    @Override
    public Optional<QueueView> queue(String name) {
        Objects.requireNonNull(name, "name");
        PostgresView v = open.get(name);
        if (v != null) {
            return Optional.of(v);
        }
        if (!names().contains(name)) {
            return Optional.empty();
        }
        synchronized (open) {
            v = open.get(name);
            if (v == null) {
                PostgresDelayedQueue<byte[]> q = PostgresDelayedQueue.builder(dataSource, name, Codec.bytes())
                        .schema(schema).autoCreateSchema(false).maxAttempts(maxAttempts)
                        .deadLetterRetention(KEEP_DEAD_LETTERS, Long.MAX_VALUE)
                        .asyncExecutor(Runnable::run) // the dashboard makes no async call: no threads of its own
                        .build();
                v = new PostgresView(q, PostgresSchedules.builder(q).build(), description, messages);
                open.put(name, v);
            }
        }
        return Optional.of(v);
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public boolean deletesQueues() {
        return true;
    }

    /**
     * Deletes the queue's messages in every state, its schedules, its counters and its row in
     * {@code clockwork_queues}, in one transaction, after closing the source's client of it.
     *
     * @return how many rows were deleted
     * @throws IllegalStateException  if {@code clockwork_queues} has no such queue
     * @throws PostgresQueueException if the database fails
     */
    @Override
    public long delete(String name) {
        Objects.requireNonNull(name, "name");
        synchronized (open) {
            PostgresView v = open.remove(name);
            if (v != null) {
                v.close();
            }
            return messages.deleteQueue(name);
        }
    }

    @Override
    public void close() {
        synchronized (open) {
            open.values().forEach(PostgresView::close);
            open.clear();
        }
        if (ownPool != null) {
            ownPool.close();
        }
    }

    /** One open PostgreSQL queue. Thread-safe. */
    private static final class PostgresView extends QueueActions {

        private final PostgresDelayedQueue<byte[]> queue;
        private final PostgresSchedules<byte[]> schedules;
        private final String where;
        private final PostgresMessages messages;

        PostgresView(PostgresDelayedQueue<byte[]> queue, PostgresSchedules<byte[]> schedules, String where,
                     PostgresMessages messages) {
            super(queue);
            this.queue = queue;
            this.schedules = schedules;
            this.where = where;
            this.messages = messages;
        }

        void close() {
            schedules.close();
            queue.close();
        }

        @Override
        public String name() {
            return queue.name();
        }

        @Override
        public String backend() {
            return where;
        }

        @Override
        public QueueStats stats() {
            return queue.stats();
        }

        @Override
        public Optional<Duration> oldestReady() {
            return messages.oldestReady(queue.name());
        }

        @Override
        public Optional<QueueCounters> counters() {
            return queue.counters();
        }

        @Override
        public List<GroupBacklog> largestGroups(int limit) {
            return queue.largestGroups(limit);
        }

        @Override
        public MessagePage page(MessageState state, Optional<String> cursor, int size) {
            return messages.page(queue.name(), state, cursor, size);
        }

        @Override
        public Optional<MessageRow> find(String id) {
            return messages.find(queue.name(), id);
        }

        @Override
        public boolean browsable() {
            return true;
        }

        @Override
        public List<ScheduleInfo> schedules() {
            return schedules.list();
        }

        @Override
        public boolean pauseSchedule(String name) {
            return schedules.pause(name);
        }

        @Override
        public boolean resumeSchedule(String name) {
            return schedules.resume(name);
        }
    }
}

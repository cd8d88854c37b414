package io.clockwork.postgres;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.spi.QueueSupport;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Builds a {@link PostgresDelayedQueue}; {@code PostgresDelayedQueue.builder(...)} makes one. Not thread-safe. Each
 * option may be set once; bad values fail at once, naming the option and its range. Besides the options every
 * backend shares ({@code visibilityTimeout}, {@code maxAttempts}, {@code maxPayloadBytes},
 * {@code deadLetterRetention}, and the flow control ones: {@code rateLimit}, {@code groupRateLimit},
 * {@code maxInFlightPerGroup}, {@code groupWeight}): the schema, whether {@link #build()} creates it, and the async
 * calls' executor.
 *
 * @param <V> the value type
 */
public final class PostgresQueueBuilder<V> extends DelayedQueueBuilder<V, PostgresQueueBuilder<V>> {

    /** Threads of the executor a queue makes for its async calls when none is given. */
    public static final int DEFAULT_ASYNC_THREADS = 4;
    private static final long LISTEN_LIMIT_MILLIS = 10_000;

    private final DataSource dataSource;
    private String schema;
    private Boolean autoCreateSchema;
    private Executor asyncExecutor;

    PostgresQueueBuilder(DataSource dataSource, String name, Codec<V> codec) {
        this.dataSource = dataSource;
        name(name);
        codec(codec);
    }

    /**
     * @param schema the schema holding the queue's tables: a lowercase SQL identifier ([a-z_][a-z0-9_]*, at most 63
     *               characters); default {@code clockwork}. Queues of one schema share its tables.
     * @return this builder
     */
    public PostgresQueueBuilder<V> schema(String schema) {
        checkUnset(this.schema != null, "schema");
        this.schema = SchemaManager.checkSchema(schema);
        return this;
    }

    /**
     * @param create true (the default): {@link #build()} creates the schema and its tables, or upgrades them, from
     *               the SQL files in the jar ({@code io/clockwork/postgres/schema}), once even when several processes
     *               start at once; the role needs {@code CREATE} on the schema (on the database if the schema is
     *               missing). False: {@code build()} only checks that a DBA applied them, and fails naming the files
     *               to apply; the role then needs no {@code CREATE}.
     * @return this builder
     */
    public PostgresQueueBuilder<V> autoCreateSchema(boolean create) {
        checkUnset(this.autoCreateSchema != null, "autoCreateSchema");
        this.autoCreateSchema = create;
        return this;
    }

    /**
     * @param executor where async calls ({@code offerAsync}, {@code cancelAsync}, {@code ackAsync}) run their
     *                 blocking statement; default: {@value #DEFAULT_ASYNC_THREADS} daemon threads of the queue's own,
     *                 stopped by {@code close()}. A given executor is not shut down by the queue.
     * @return this builder
     */
    public PostgresQueueBuilder<V> asyncExecutor(Executor executor) {
        Objects.requireNonNull(executor, "asyncExecutor");
        checkUnset(this.asyncExecutor != null, "asyncExecutor");
        this.asyncExecutor = executor;
        return this;
    }

    /**
     * Checks the database (reachable, writable, the schema applied or creatable), registers the queue and starts its
     * listener.
     *
     * @return the queue
     * @throws PostgresQueueException        if the database cannot be reached, is read-only, or the role lacks a
     *                                       privilege (the message names the grant), or the schema is missing and
     *                                       {@code autoCreateSchema(false)} (the message names the SQL files)
     */
    public PostgresDelayedQueue<V> build() {
        String s = schema != null ? schema : SchemaManager.DEFAULT_SCHEMA;
        boolean create = autoCreateSchema == null || autoCreateSchema;
        QueueOptions<V> o = options(null, null);
        QueueSupport<V> support = new QueueSupport<>(o);
        Failures failures = new Failures(support.name(), s);
        String channel = Listener.channel(s, support.name());
        QueueSql queueSql = new QueueSql(s);
        Store store = new Store(queueSql, support.name(), channel, o.maxAttempts(), o.deadLetterMaxAge(),
                o.deadLetterMaxCount());
        RateSql rateSql = new RateSql(s);
        RateGate rate = o.rateLimit().map(l -> new RateGate(rateSql, support.name(), l)).orElse(null);
        GroupTake groups = new GroupTake(new GroupSql(s, queueSql), store, o);
        Jdbc.withConnection(dataSource, failures, "build", c -> {
            try {
                SchemaManager.apply(c, s, create);
            } catch (SchemaManager.CreateDenied e) {
                throw failures.schemaPrivilege(e.error, e.schemaExisted);
            } catch (IllegalStateException e) {
                throw new PostgresQueueException("queue '" + support.name() + "': " + e.getMessage(), null);
            }
            store.open(c);
            if (rate != null) {
                rate.open(c);
            }
            groups.refresh(c);
            return null;
        });
        ExecutorService own = null;
        Executor executor = asyncExecutor;
        if (executor == null) {
            AtomicInteger n = new AtomicInteger();
            own = Executors.newFixedThreadPool(DEFAULT_ASYNC_THREADS, r -> {
                Thread t = new Thread(r, "clockwork-postgres-async-" + support.name() + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            executor = own;
        }
        Listener listener = new Listener(dataSource, channel, support.name());
        try {
            listener.awaitListening(LISTEN_LIMIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new PostgresDelayedQueue<>(support, dataSource, s, store, listener, failures, own, executor, rateSql,
                rate, groups);
    }
}

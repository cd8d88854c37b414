package io.clockwork.postgres;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.time.Ticker;

import java.time.Duration;
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
 * {@code maxInFlightPerGroup}, {@code groupWeight}): the schema, whether {@link #build()} creates it, the async
 * calls' executor, and the timing of a consumer's waits ({@code recheckInterval}, {@code ticker}, named as on the
 * Redis backend's builder).
 *
 * @param <V> the value type
 */
public final class PostgresQueueBuilder<V> extends DelayedQueueBuilder<V, PostgresQueueBuilder<V>> {

    /** Threads of the executor a queue makes for its async calls when none is given. */
    public static final int DEFAULT_ASYNC_THREADS = 4;
    /** Default longest sleep of an idle consumer between two takes without a notification. */
    public static final Duration DEFAULT_RECHECK_INTERVAL = Duration.ofSeconds(1);
    /**
     * Longest {@link #recheckInterval}: the horizon of the offers' notifications. A unit that makes a message the
     * earliest of its queue notifies only if it is due within this long, as a consumer takes again at least this
     * often anyway.
     */
    public static final Duration MAX_RECHECK_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MIN_RECHECK_INTERVAL = Duration.ofMillis(1);

    private final DataSource dataSource;
    private String schema;
    private Boolean autoCreateSchema;
    private Executor asyncExecutor;
    private Duration recheckInterval;
    private Ticker ticker;

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
     * Sets how long an idle consumer sleeps at most before it takes again without a notification: the bound on how
     * late a delivery is when a notification does not reach it (a pooler in transaction mode, such as PgBouncer's,
     * where {@code LISTEN} does not work; a listener connection that is reconnecting). A consumer with nothing due
     * sleeps until the next due time or lease end it read, a notification, or this interval, whichever comes first;
     * each wake-up is one take (one round trip). Longer than a second is refused: a unit notifies only for a message
     * due within the next second, counting on consumers to take again at least that often.
     *
     * @param interval the longest sleep, in [1 ms, 1 s]; default {@link #DEFAULT_RECHECK_INTERVAL}
     * @return this builder
     */
    public PostgresQueueBuilder<V> recheckInterval(Duration interval) {
        Objects.requireNonNull(interval, "recheckInterval");
        checkUnset(this.recheckInterval != null, "recheckInterval");
        if (interval.compareTo(MIN_RECHECK_INTERVAL) < 0 || interval.compareTo(MAX_RECHECK_INTERVAL) > 0) {
            throw new IllegalArgumentException("recheckInterval must be in [" + MIN_RECHECK_INTERVAL + ", "
                    + MAX_RECHECK_INTERVAL + "], was " + interval);
        }
        this.recheckInterval = interval;
        return this;
    }

    /**
     * @param ticker the clock of this client's own waits: how long {@code poll(wait)} blocks; default
     *               {@link Ticker#system()}. A ticker that jumps ({@code ManualTicker}) wakes waiting consumers, which
     *               read it again. It never sets a due time or a lease end: those come from the database's clock, so
     *               clients whose clocks disagree still agree on when a message is due.
     * @return this builder
     */
    public PostgresQueueBuilder<V> ticker(Ticker ticker) {
        Objects.requireNonNull(ticker, "ticker");
        checkUnset(this.ticker != null, "ticker");
        this.ticker = ticker;
        return this;
    }

    /**
     * Checks the database (reachable, writable, the schema applied or creatable) and registers the queue. The
     * queue's listener connection is opened later, by the first poll given a positive wait.
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
        PollLoop.Timing timing = new PollLoop.Timing(ticker != null ? ticker : Ticker.system(),
                (recheckInterval != null ? recheckInterval : DEFAULT_RECHECK_INTERVAL).toNanos());
        return new PostgresDelayedQueue<>(support, dataSource, s, store, listener, failures, own, executor, rateSql,
                rate, groups, timing);
    }
}

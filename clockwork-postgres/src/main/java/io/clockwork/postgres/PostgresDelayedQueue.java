package io.clockwork.postgres;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import io.clockwork.queue.spi.Delay;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.time.Ticker;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The {@link DelayedQueue} contract on PostgreSQL 13 or newer, through a {@link DataSource} the application supplies
 * (a pool such as HikariCP). Thread-safe: any number of producers and consumers, in any number of processes, may
 * share a queue by its name and schema.
 *
 * <p><b>One row per message</b> in {@code clockwork_messages}, scheduled, in flight or dead; every operation of the
 * state machine is one SQL unit ({@code QueueSql}) run in one round trip, and every due time and lease end comes
 * from the database's clock ({@code clock_timestamp()}), never from a client's. Consumers take due messages with
 * {@code FOR UPDATE SKIP LOCKED}, so they never wait on each other; a consumer that finds nothing due sleeps until
 * the next due time it read in the same round trip, or until a {@code NOTIFY} on the queue's channel, which an offer
 * of a message due before every scheduled one sends in its own transaction (a rolled-back offer wakes nobody). A
 * client holds one connection of the pool for its {@code LISTEN} from its first poll given a positive wait until
 * {@link #close()}; a client that only offers holds none. One-message offers that keep a taken id are a group commit:
 * offers under ids this client makes run {@link #FRESH_OFFER_STATEMENTS} statement at a time, those under callers' ids
 * {@link #OFFER_STATEMENTS} at once, and offers made meanwhile go together in the next statement of their kind.
 *
 * <p><b>Transactional enqueue.</b> {@link #offer(Connection, Message)}, {@link #offerAll(Connection, List)},
 * {@link #cancel(Connection, String)} and {@link #reschedule(Connection, String, Duration)} run on the caller's
 * connection and never commit, roll back or close it: the message exists, and consumers are woken, only if and when
 * the caller's transaction commits.
 *
 * <p><b>Async calls</b> ({@code offerAsync}, {@code cancelAsync}, {@code ackAsync}) check their arguments and encode
 * on the calling thread, then run the blocking call on the queue's executor (by default 4 daemon threads of its own;
 * {@link PostgresQueueBuilder#asyncExecutor}), each using a pooled connection.
 *
 * <p><b>Priorities</b> ({@link Message#priority(int)}) are kept in a column: among due messages the highest priority
 * goes first, then the earliest due time, then offer order. <b>Flow control</b> is kept in the database for every
 * client: a rate limit ({@link PostgresQueueBuilder#rateLimit}) as a sliding log per queue; groups of messages
 * ({@link Message#group}) go round robin (weighted by {@code groupWeight}), within {@code maxInFlightPerGroup} and
 * {@code groupRateLimit}. {@code QueueStats.lost()} is always 0 (PostgreSQL never drops part of a message).
 *
 * <p>docs/postgres-queue.md describes the tables, the units, waiting, schema management and the privileges needed.
 *
 * @param <V> the value type
 */
public final class PostgresDelayedQueue<V> implements DelayedQueue<V> {

    /**
     * Most statements of one-message offers under callers' ids a client runs at once (one may wait on a row lock: its
     * id inserted by a transaction still open); offers made meanwhile go together in the next one.
     */
    static final int OFFER_STATEMENTS = 2;
    /**
     * The same for ids this client makes, which no other offer takes: one, so 4 producing threads cost the server about
     * half the CPU per offer of two statements at once, at the same offers/s (docs/bench-postgres.md).
     */
    static final int FRESH_OFFER_STATEMENTS = 1;
    private static final int OFFER_GROUP_MAX = 1000;

    private final QueueSupport<V> support;
    private final DataSource dataSource;
    private final String schema;
    private final Store store;
    private final Listener listener;
    private final Failures failures;
    private final ExecutorService ownExecutor;
    private final Executor asyncExecutor;
    private final Ids ids = new Ids();
    private final Offers<V> offers;
    /** One-message offers under ids this client made, stored together when they come at once ({@link GroupCommit}). */
    private final GroupCommit<Offers.Encoded, Offered> freshCommits;
    /** One-message offers under callers' ids, under KEEP, stored together when they come at once. */
    private final GroupCommit<Offers.Encoded, Offered> namedCommits;
    private final PollLoop<V> polls;
    /** The queue's rate limit; null without one. */
    private final RateGate rate;
    private final GroupTake groups;
    private final RateSql rateSql;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Wakes waiting consumers when the ticker jumps, so that they read it again. */
    private final Ticker.Watch watch;

    PostgresDelayedQueue(QueueSupport<V> support, DataSource dataSource, String schema, Store store,
                         Listener listener, Failures failures, ExecutorService ownExecutor,
                         Executor asyncExecutor, RateSql rateSql, RateGate rate, GroupTake groups,
                         PollLoop.Timing timing) {
        this.groups = groups;
        this.support = support;
        this.dataSource = dataSource;
        this.schema = schema;
        this.store = store;
        this.listener = listener;
        this.failures = failures;
        this.ownExecutor = ownExecutor;
        this.asyncExecutor = asyncExecutor;
        this.offers = new Offers<>(support, store, ids, groups);
        Function<List<Offers.Encoded>, List<Offered>> storeOffers = batch -> run("offer",
                c -> batch.size() == 1 ? List.of(offers.offerOn(c, batch.get(0))) : offers.offerAllOn(c, batch));
        this.freshCommits = new GroupCommit<>(FRESH_OFFER_STATEMENTS, OFFER_GROUP_MAX, storeOffers);
        this.namedCommits = new GroupCommit<>(OFFER_STATEMENTS, OFFER_GROUP_MAX, storeOffers);
        this.polls = new PollLoop<>(this, support, store, listener,
                Math.max(1, support.options().visibilityTimeout().toMillis()), rate, groups, timing);
        this.watch = timing.ticker().watch(listener::wake);
        this.rate = rate;
        this.rateSql = rateSql;
    }

    /**
     * Starts a builder of a queue on a database.
     *
     * @param dataSource where the queue's connections come from; it must reach the primary (writable)
     * @param name       the queue's name: not blank, at most 200 characters; clients with the same name and schema
     *                   share the queue
     * @param codec      turns values into bytes
     * @param <V>        the value type
     * @return the builder
     */
    public static <V> PostgresQueueBuilder<V> builder(DataSource dataSource, String name, Codec<V> codec) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(codec, "codec");
        return new PostgresQueueBuilder<>(dataSource, name, codec);
    }

    // ---- connections ----

    /** Runs work on a connection of the queue's pool in autocommit mode, after checking the queue is open. */
    <T> T run(String operation, Jdbc.SqlWork<T> work) {
        checkOpen();
        polls.changed(operation);
        return Jdbc.withConnection(dataSource, failures, operation, work);
    }

    private <T> T transaction(String operation, Jdbc.SqlWork<T> work) {
        return run(operation, c -> Jdbc.inTransaction(c, work));
    }

    private <T> T onCallers(Connection connection, String operation, Jdbc.SqlWork<T> work) {
        Objects.requireNonNull(connection, "connection");
        checkOpen();
        polls.changed(operation);
        try {
            return work.apply(connection);
        } catch (SQLException e) {
            throw failures.of(operation + " (in the caller's transaction)", e);
        }
    }

    /** @return whether {@link #close()} was called */
    boolean isClosed() {
        return closed.get();
    }

    /** @throws IllegalStateException if this client is closed (also for the schedules beside it) */
    void checkOpen() {
        if (closed.get()) {
            throw support.closedError();
        }
    }

    /** @return the codec, limits and name, for the schedules beside the queue */
    QueueSupport<V> support() {
        return support;
    }

    /** @return where the queue's connections come from, for the schedules beside it */
    DataSource dataSource() {
        return dataSource;
    }

    // ---- offers ----

    @Override
    public String offer(V value, Duration delay) {
        Objects.requireNonNull(value, "value");
        Delay d = support.delay(delay);
        checkOpen();
        return commit(offers.encode(ids.next(), false, value, d.millis())).id();
    }

    @Override
    public boolean offer(String id, V value, Duration delay) {
        support.checkId(id);
        Objects.requireNonNull(value, "value");
        Delay d = support.delay(delay);
        checkOpen();
        return commit(offers.encode(id, true, value, d.millis())).outcome() == Offered.Outcome.ADDED;
    }

    @Override
    public Offered offer(Message<? extends V> message) {
        Objects.requireNonNull(message, "message");
        checkOpen();
        Offers.Encoded e = offers.encode(message);
        return e.ownId() && e.conflict() != Message.Conflict.KEEP ? run("offer", c -> offers.offerOn(c, e))
                : commit(e);
    }

    /** Stores a one-message offer under KEEP through the group commit of its kind of id. */
    private Offered commit(Offers.Encoded e) {
        return (e.ownId() ? namedCommits : freshCommits).submit(e);
    }

    @Override
    public List<Offered> offerAll(List<? extends Message<? extends V>> messages) {
        List<Offers.Encoded> batch = offers.encodeAll(messages);
        checkOpen();
        if (batch.size() > 1 && batch.stream().anyMatch(e -> e.ownId() && e.conflict() != Message.Conflict.KEEP)) {
            return transaction("offerAll", c -> offers.offerAllOn(c, batch));
        }
        return run("offerAll", c -> offers.offerAllOn(c, batch));
    }

    @Override
    public List<String> offerAll(List<? extends V> values, Duration delay) {
        Objects.requireNonNull(values, "values");
        Delay d = support.delay(delay);
        checkOpen();
        List<Offers.Encoded> batch = offers.encodeValues(values, d.millis());
        run("offerAll", c -> offers.offerAllOn(c, batch));
        return batch.stream().map(Offers.Encoded::id).toList();
    }

    @Override
    public List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        Objects.requireNonNull(messages, "messages");
        QueueSupport.checkBatch("messages", messages.size());
        Delay d = support.delay(delay);
        checkOpen();
        List<Offers.Encoded> batch = new ArrayList<>(messages.size());
        for (Map.Entry<String, ? extends V> e : messages.entrySet()) {
            support.checkId(e.getKey());
            V v = Objects.requireNonNull(e.getValue(), () -> "messages[" + e.getKey() + "]");
            batch.add(new Offers.Encoded(e.getKey(), true, support.encode(v), null, d.millis(), 0, null,
                    Message.Conflict.KEEP));
        }
        return run("offerAll", c -> offers.offerAllOn(c, batch)).stream()
                .filter(o -> o.outcome() == Offered.Outcome.ADDED).map(Offered::id).toList();
    }

    // ---- transactional enqueue ----

    /**
     * Offers a message in the caller's transaction, as {@link #offer(Message)} does: the statement runs on
     * {@code connection}, which this call never commits, rolls back or closes. The message exists, and a consumer
     * waiting for it is woken, only once the caller commits; a rollback leaves nothing. The connection must reach
     * the same database as the queue's {@link DataSource}.
     *
     * @param connection the caller's connection, typically with autocommit off inside a transaction
     * @param message    the message
     * @return its id and what the offer did (as seen inside the transaction)
     * @throws PostgresQueueException if the statement fails; the caller's transaction is then aborted and must be
     *                                rolled back
     */
    public Offered offer(Connection connection, Message<? extends V> message) {
        Objects.requireNonNull(message, "message");
        Offers.Encoded e = offers.encode(message);
        return onCallers(connection, "offer", c -> offers.offerOn(c, e));
    }

    /**
     * Offers a batch in the caller's transaction, as {@link #offerAll(List)} does and as
     * {@link #offer(Connection, Message)} describes. Atomic with the caller's transaction (with autocommit on, a
     * batch that keeps every known id is one statement; one that replaces or extends is one statement per message).
     *
     * @param connection the caller's connection
     * @param messages   the messages, at most {@link #MAX_BATCH}
     * @return per message, its id and what the offer did
     */
    public List<Offered> offerAll(Connection connection, List<? extends Message<? extends V>> messages) {
        List<Offers.Encoded> batch = offers.encodeAll(messages);
        return onCallers(connection, "offerAll", c -> offers.offerAllOn(c, batch));
    }

    /**
     * Cancels a message in the caller's transaction, as {@link #cancel(String)} does: it is gone once the caller
     * commits, and still there if the caller rolls back.
     *
     * @param connection the caller's connection
     * @param id         the message id
     * @return whether this call removed it (as seen inside the transaction)
     */
    public boolean cancel(Connection connection, String id) {
        support.checkId(id);
        return onCallers(connection, "cancel", c -> store.cancel(c, id));
    }

    /**
     * Reschedules a message in the caller's transaction, as {@link #reschedule(String, Duration)} does; the new due
     * time counts from when this statement runs.
     *
     * @param connection the caller's connection
     * @param id         the message id
     * @param delay      the new delay
     * @return whether it moved (as seen inside the transaction)
     */
    public boolean reschedule(Connection connection, String id, Duration delay) {
        support.checkId(id);
        Delay d = support.delay(delay);
        return onCallers(connection, "reschedule", c -> store.reschedule(c, id, d.millis()));
    }

    // ---- by id ----

    @Override
    public boolean cancel(String id) {
        support.checkId(id);
        return run("cancel", c -> store.cancel(c, id));
    }

    @Override
    public boolean reschedule(String id, Duration delay) {
        support.checkId(id);
        Delay d = support.delay(delay);
        return run("reschedule", c -> store.reschedule(c, id, d.millis()));
    }

    @Override
    public void pause() {
        run("pause", c -> {
            store.pause(c, true);
            return null;
        });
    }

    @Override
    public void resume() {
        run("resume", c -> {
            store.pause(c, false);
            return null;
        });
    }

    @Override
    public boolean isPaused() {
        return run("isPaused", store::isPaused);
    }

    // ---- polls ----

    @Override
    public Delivery<V> poll(Duration wait) throws InterruptedException {
        List<Delivery<V>> got = polls.take(1, wait);
        return got.isEmpty() ? null : got.get(0);
    }

    @Override
    public List<Delivery<V>> poll(int maxMessages, Duration wait) throws InterruptedException {
        QueueSupport.checkMaxMessages(maxMessages);
        return polls.take(maxMessages, wait);
    }

    // ---- a delivery's operations ----

    boolean ack(PostgresDelivery<V> d) {
        return run("ack", c -> store.ack(c, d.id(), d.receipt()));
    }

    CompletionStage<Boolean> ackAsync(PostgresDelivery<V> d) {
        checkOpen();
        return CompletableFuture.supplyAsync(() -> ack(d), asyncExecutor);
    }

    boolean nack(PostgresDelivery<V> d, Duration retryDelay, String reason) {
        Delay delay = support.delay(retryDelay);
        return run("nack", c -> store.nack(c, d.id(), d.receipt(), delay.millis(), reason));
    }

    boolean extend(PostgresDelivery<V> d, Duration visibility) {
        long millis = Math.max(1, visibility.toMillis() + (visibility.toNanosPart() % 1_000_000 > 0 ? 1 : 0));
        return run("extend", c -> store.extend(c, d.id(), d.receipt(), millis));
    }

    boolean release(PostgresDelivery<V> d) {
        return run("release", c -> store.release(c, d.id(), d.receipt()));
    }

    boolean deadLetter(PostgresDelivery<V> d, String reason) {
        return run("kill", c -> store.kill(c, d.id(), d.receipt(), reason));
    }

    @Override
    public List<Boolean> ackAll(List<? extends Delivery<V>> deliveries) {
        Objects.requireNonNull(deliveries, "deliveries");
        QueueSupport.checkBatch("deliveries", deliveries.size());
        List<String> idList = new ArrayList<>(deliveries.size());
        List<Long> seqs = new ArrayList<>(deliveries.size());
        for (int i = 0; i < deliveries.size(); i++) {
            int index = i;
            Delivery<V> d = Objects.requireNonNull(deliveries.get(i), () -> "deliveries[" + index + "]");
            if (!(d instanceof PostgresDelivery<V> pd) || pd.queue() != this) {
                throw new IllegalArgumentException("deliveries[" + i + "] is not a delivery of queue '" + name()
                        + "'");
            }
            idList.add(pd.id());
            seqs.add(pd.receipt());
        }
        checkOpen();
        if (deliveries.isEmpty()) {
            return List.of();
        }
        Set<String> acked = run("ackAll", c -> store.ackAll(c, idList, seqs));
        List<Boolean> out = new ArrayList<>(idList.size());
        for (int i = 0; i < idList.size(); i++) {
            out.add(acked.remove(idList.get(i) + "/" + seqs.get(i))); // a delivery listed twice counts once
        }
        return out;
    }

    @Override
    public AckAndPoll<V> ackAndPoll(Delivery<V> done) {
        Objects.requireNonNull(done, "done");
        if (!(done instanceof PostgresDelivery<V> pd) || pd.queue() != this) {
            throw new IllegalArgumentException("done is not a delivery of queue '" + name() + "'");
        }
        return polls.ackAndPoll(pd);
    }

    // ---- async ----

    private <T> CompletionStage<T> async(Supplier<T> call) {
        checkOpen();
        return CompletableFuture.supplyAsync(call, asyncExecutor);
    }

    @Override
    public CompletionStage<String> offerAsync(V value, Duration delay) {
        Objects.requireNonNull(value, "value");
        Delay d = support.delay(delay);
        checkOpen();
        Offers.Encoded e = offers.encode(ids.next(), false, value, d.millis());
        return async(() -> commit(e).id());
    }

    @Override
    public CompletionStage<Boolean> offerAsync(String id, V value, Duration delay) {
        support.checkId(id);
        Objects.requireNonNull(value, "value");
        Delay d = support.delay(delay);
        checkOpen();
        Offers.Encoded e = offers.encode(id, true, value, d.millis());
        return async(() -> commit(e).outcome() == Offered.Outcome.ADDED);
    }

    @Override
    public CompletionStage<List<String>> offerAllAsync(List<? extends V> values, Duration delay) {
        Objects.requireNonNull(values, "values");
        Delay d = support.delay(delay);
        checkOpen();
        List<Offers.Encoded> batch = offers.encodeValues(values, d.millis());
        return async(() -> {
            run("offerAll", c -> offers.offerAllOn(c, batch));
            return batch.stream().map(Offers.Encoded::id).toList();
        });
    }

    @Override
    public CompletionStage<Offered> offerAsync(Message<? extends V> message) {
        Objects.requireNonNull(message, "message");
        checkOpen();
        Offers.Encoded e = offers.encode(message);
        return async(() -> e.ownId() && e.conflict() != Message.Conflict.KEEP ? run("offer", c -> offers.offerOn(c, e))
                : commit(e));
    }

    @Override
    public CompletionStage<List<Offered>> offerAllAsync(List<? extends Message<? extends V>> messages) {
        List<Offers.Encoded> batch = offers.encodeAll(messages);
        checkOpen();
        return async(() -> transaction("offerAll", c -> offers.offerAllOn(c, batch)));
    }

    @Override
    public CompletionStage<Boolean> cancelAsync(String id) {
        support.checkId(id);
        return async(() -> cancel(id));
    }

    // ---- stats and dead letters ----

    @Override
    public QueueStats stats() {
        return run("stats", store::stats);
    }

    @Override
    public Optional<QueueCounters> counters() {
        return Optional.of(run("counters", c -> {
            QueueCounters counts = store.counters(c);
            return counts.plus(new QueueCounters(0, 0, 0, 0, 0, RateGate.held(c, rateSql, name())));
        }));
    }

    /** {@inheritDoc} One pass over the queue's grouped messages. */
    @Override
    public List<GroupBacklog> largestGroups(int limit) {
        QueueSupport.checkGroupsListed(limit);
        return run("largestGroups", c -> groups.largest(c, limit));
    }

    @Override
    public List<DeadLetter> deadLetters(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        return run("deadLetters", c -> store.deadLetters(c, limit));
    }

    @Override
    public boolean requeueDead(String id) {
        support.checkId(id);
        return run("requeueDead", c -> store.requeueDead(c, id));
    }

    @Override
    public long purgeDead() {
        return run("purgeDead", store::purgeDead);
    }

    @Override
    public String name() {
        return support.name();
    }

    /** @return how many notifications this client's listener received on the queue's channel */
    long notificationsReceived() {
        return listener.notifications();
    }

    /** @return whether this client's listener connection is up and listening */
    boolean isListening() {
        return listener.isListening();
    }

    /** @return the queue's notification channel */
    String channel() {
        return Listener.channel(schema, name());
    }

    /** @return the schema holding the queue's tables */
    public String schema() {
        return schema;
    }

    @Override
    public Duration visibilityTimeout() {
        return support.options().visibilityTimeout();
    }

    @Override
    public int maxAttempts() {
        return support.options().maxAttempts();
    }

    /**
     * Closes this client: blocked polls return at once, later calls throw {@link IllegalStateException}, the
     * listener's connection (if a poll opened it) goes back to the pool and the queue's own async threads stop after
     * their calls. The messages stay in the database. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        watch.close();
        listener.close();
        if (ownExecutor != null) {
            ownExecutor.shutdown();
        }
    }

    @Override
    public String toString() {
        return "PostgresDelayedQueue[" + schema + "." + name() + "]";
    }
}

package io.clockwork.redis;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import io.clockwork.queue.RateLimit;
import io.clockwork.queue.spi.Delay;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.time.Ticker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A {@link DelayedQueue} kept in Redis (standalone or Cluster, 6.2+), shared by every client that opens a queue of
 * the same name. Thread-safe: any number of threads may offer and poll through one instance.
 *
 * <h2>Design</h2>
 * Redisson's {@code RDelayedQueue} keeps due times in a sorted set and relies on a client-side transfer task, driven
 * by the client's clock and a pub/sub subscription, to move due items into a list, paying an O(n) {@code LREM} per
 * item, and loses an item whose consumer dies. Here:
 * <ul>
 *   <li><b>State is a function of scores and the server's clock.</b> Each partition keeps sorted sets of scheduled
 *   messages by due time in server milliseconds ({@code TIME} inside the scripts), of in-flight ones by visibility
 *   deadline and of dead letters, and a hash of each message's state and payload (see {@link KeyLayout}). "Ready" is
 *   the schedule's prefix whose score is at most now, so nothing moves when a message falls due, except in a
 *   partition ordered by priority ({@link Priorities}), whose polls move what fell due into a set by priority.</li>
 *   <li><b>FIFO within a due time</b>: members are {@code <16-hex-digit sequence><id>}; every scheduling takes a new
 *   sequence, which is also its delivery's receipt, so a late ack of a redelivered message changes nothing.</li>
 *   <li><b>One Lua script per operation</b>, O(log n) in the backlog, never a scan, atomic ({@link QueueScripts}).</li>
 *   <li><b>Wake-ups without a transfer task</b>: an empty poll returns how long until the partition's next event and
 *   waits on a signal list ({@link Signals}) for at most that long; a script that makes something due earlier pushes
 *   one token.</li>
 *   <li><b>Partitions</b> with distinct hash tags spread over a Cluster's masters; an id always maps to one
 *   ({@link Partitions}), and every client of a queue uses the same count.</li>
 *   <li><b>Group commit</b> ({@link Batcher}): concurrent offers, acks and polls of one client to one partition share
 *   one script call, each caller getting its own reply.</li>
 *   <li><b>One rate limit per queue</b>: a sliding log of grants in partition 0's slot, on its server's clock, stored
 *   with the queue so every client obeys the same one ({@link #rateLimit()}).</li>
 *   <li><b>Never early</b>: a positive delay counts from the server's clock rounded up to the next millisecond,
 *   polls compare with it rounded down.</li>
 * </ul>
 * <p>This class is the façade: it checks arguments ({@code QueueSupport}), routes ids to partitions
 * ({@link Partitions}), calls the scripts ({@link QueueScripts}, typed replies), pushes wake-ups ({@link Signals}) and
 * hands polls to {@link PollLoop}, offers to {@link Offers} and {@link OfferBatches}, acks to {@link Acks}, the pause
 * to {@link Pauses} and what reads every partition to {@link AllPartitions}; {@link RedisQueueBuilder} connects and
 * checks the server. The data model and every script: {@code docs/redis-queue.md}.
 * References: Redisson {@code RedissonDelayedQueue}; Amazon SQS visibility timeouts; Redis Cluster hash tags.
 *
 * @param <V> the type of the message values
 */
public final class RedisDelayedQueue<V> implements DelayedQueue<V> {

    private final QueueSupport<V> support;
    private final Connections connections;
    private final ScriptRunner runner;
    private final Partitions partitions;
    private final QueueScripts scripts;
    private final Signals signals;
    private final PollLoop<V> pollLoop;
    private final IdGenerator idGenerator = new IdGenerator();
    private final Offers<V> offers;
    private final OfferBatches<V> batches;
    private final Priorities priorities;
    private final Groups groups;
    private final Pauses pauses;
    private final AllPartitions all;
    private final Acks<V> acks;
    private volatile boolean closed;

    RedisDelayedQueue(QueueSupport<V> support, Connections connections, ScriptRunner runner, int partitionCount,
                      Ticker ticker, Duration recheckInterval, Duration compactAfter, boolean rateLimited) {
        this.support = support;
        this.connections = connections;
        this.runner = runner;
        this.partitions = new Partitions(new KeyLayout(support.name(), partitionCount, connections.cluster()),
                ticker);
        this.scripts = new QueueScripts(runner, connections, partitions, support.options(), compactAfter);
        this.all = new AllPartitions(scripts, partitions, support.name());
        this.signals = new Signals(support.name(), connections, runner, partitions.signalKey(), ticker);
        this.priorities = new Priorities(scripts, partitions.count());
        this.groups = new Groups(scripts, partitions.selector(), partitions.count());
        this.pauses = new Pauses(partitions, scripts, signals);
        this.offers = new Offers<>(support, partitions, scripts, signals, idGenerator, priorities, groups);
        this.batches = new OfferBatches<>(support, partitions, scripts, signals, idGenerator, priorities, groups);
        this.pollLoop = new PollLoop<>(this, support, scripts, partitions, signals, ticker, recheckInterval,
                connections.where(), rateLimited);
        this.acks = new Acks<>(this, scripts, pollLoop, support.name(), rateLimited);
        scripts.preload();
        groups.store(support.options());
    }

    /**
     * Starts a builder for a queue with a client of its own, closed with the queue.
     *
     * @param redisUri the server, e.g. {@code redis://127.0.0.1:6379} (Lettuce URI syntax)
     * @param name     the queue's name: every client using this name shares the queue
     * @param codec    turns values into bytes
     * @param <V>      the value type
     * @return the builder
     */
    public static <V> RedisQueueBuilder<V> builder(String redisUri, String name, Codec<V> codec) {
        RedisURI uri = Connections.parse(redisUri);
        return new RedisQueueBuilder<>(timeout -> Connections.owned(uri, timeout), Connections.describe(uri), name,
                codec);
    }

    /**
     * Starts a builder for a queue on a caller's client, so that many queues share its resources; the queue does
     * not close the client.
     *
     * @param client a standalone client whose default URI names the server
     * @param name   the queue's name
     * @param codec  turns values into bytes
     * @param <V>    the value type
     * @return the builder
     */
    public static <V> RedisQueueBuilder<V> builder(RedisClient client, String name, Codec<V> codec) {
        Objects.requireNonNull(client, "client");
        return new RedisQueueBuilder<>(timeout -> Connections.shared(client), "redis (shared RedisClient)", name,
                codec);
    }

    /**
     * Starts a builder for a queue on a caller's Redis Cluster client; the queue does not close the client. Use
     * {@link RedisQueueBuilder#partitions(int)} to spread the queue over the masters.
     *
     * @param client a cluster client
     * @param name   the queue's name
     * @param codec  turns values into bytes
     * @param <V>    the value type
     * @return the builder
     */
    public static <V> RedisQueueBuilder<V> builder(RedisClusterClient client, String name, Codec<V> codec) {
        Objects.requireNonNull(client, "client");
        return new RedisQueueBuilder<>(timeout -> Connections.shared(client),
                "redis cluster (shared RedisClusterClient)", name, codec);
    }

    @Override
    public String offer(V value, Duration delay) {
        checkOpen();
        return offers.offer(value, delay);
    }

    @Override
    public boolean offer(String id, V value, Duration delay) {
        checkOpen();
        return offers.offer(id, value, delay);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis the offer joins its partition's group commit like a blocking one and the stage completes on the
     * connection's I/O thread when the script answers; a failed attempt is retried as the blocking call is (within
     * {@code retryOnConnectionLoss}, the id deduplicating a retry), on a retry thread.
     */
    @Override
    public CompletionStage<String> offerAsync(V value, Duration delay) {
        checkOpen();
        return offers.offerAsync(value, delay);
    }

    @Override
    public CompletionStage<Boolean> offerAsync(String id, V value, Duration delay) {
        checkOpen();
        return offers.offerAsync(id, value, delay);
    }

    @Override
    public CompletionStage<List<String>> offerAllAsync(List<? extends V> values, Duration delay) {
        checkOpen();
        return batches.offerAllAsync(values, delay);
    }

    @Override
    public CompletionStage<Boolean> cancelAsync(String id) {
        checkOpen();
        support.checkId(id);
        return scripts.cancelAsync(partitions.of(id), id);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis the message joins its partition's group commit like any offer; its headers travel in its
     * {@code meta} value, and the conflict check and its outcome are one step of the same {@code offer.lua} call,
     * so no other client sees a message half replaced. A retry after a lost reply (within
     * {@code retryOnConnectionLoss}) runs the offer again: an id the first attempt added is then reported
     * {@link Offered.Outcome#KEPT} under KEEP (or replaced again, due from the retry, under REPLACE).
     */
    @Override
    public Offered offer(Message<? extends V> message) {
        checkOpen();
        return offers.offer(message);
    }

    @Override
    public CompletionStage<Offered> offerAsync(Message<? extends V> message) {
        checkOpen();
        return offers.offerAsync(message);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis each partition's share of the batch is one {@code offer.lua} call, sent at once with the others,
     * carrying each message's policy (and its delay, unless all are equal); each partition's share is atomic.
     */
    @Override
    public List<Offered> offerAll(List<? extends Message<? extends V>> messages) {
        checkOpen();
        return batches.offerMessages(messages);
    }

    @Override
    public CompletionStage<List<Offered>> offerAllAsync(List<? extends Message<? extends V>> messages) {
        checkOpen();
        return batches.offerMessagesAsync(messages);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis the batch is split by partition (ids are random, so a partitioned queue spreads it over all
     * partitions) and each partition's share is one {@code offer.lua} call, all sent at once and awaited together;
     * each partition's share is atomic. A lost reply is retried within {@code retryOnConnectionLoss} under the same
     * ids, so nothing is added twice.
     */
    @Override
    public List<String> offerAll(List<? extends V> values, Duration delay) {
        checkOpen();
        return batches.offerAll(values, delay);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis each partition's share of the batch is one {@code offer.lua} call, sent at once with the others;
     * each partition's share is atomic, and a retry after a lost reply is deduplicated by the ids.
     */
    @Override
    public List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        checkOpen();
        return batches.offerAll(messages, delay);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis the deliveries are grouped by partition, one {@code ack.lua} call per partition, all sent at once.
     */
    @Override
    public List<Boolean> ackAll(List<? extends Delivery<V>> deliveries) {
        checkOpen();
        return acks.ackAll(deliveries);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis it is one {@code ack_poll.lua} call on {@code done}'s partition, shared by concurrent callers of
     * this client (a group commit, as for offers and acks).
     */
    @Override
    public AckAndPoll<V> ackAndPoll(Delivery<V> done) {
        checkOpen();
        return acks.ackAndPoll(done);
    }

    @Override
    public boolean cancel(String id) {
        checkOpen();
        support.checkId(id);
        return scripts.cancel(partitions.of(id), id);
    }

    @Override
    public boolean reschedule(String id, Duration delay) {
        checkOpen();
        support.checkId(id);
        Delay d = support.delay(delay);
        return signalIfAsked(scripts.reschedule(partitions.of(id), id, d));
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis each partition stores its own pause flag (key {@code paused}, in the partition's slot), set here one
     * partition after another: if this call fails part-way, some partitions are paused and {@link #isPaused()} says
     * so; calling it again completes the pause.
     */
    @Override
    public void pause() {
        checkOpen();
        pauses.pause();
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis each partition's flag is deleted in turn and a waiting poller woken, as for {@link #pause()}.
     */
    @Override
    public void resume() {
        checkOpen();
        pauses.resume();
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis: whether any partition is paused (all are, unless a {@link #pause()} or {@link #resume()} failed
     * part-way).
     */
    @Override
    public boolean isPaused() {
        checkOpen();
        return pauses.paused();
    }

    @Override
    public Delivery<V> poll(Duration wait) throws InterruptedException {
        Objects.requireNonNull(wait, "wait");
        checkOpen();
        List<Delivery<V>> got = pollLoop.poll(wait, 0);
        return got.isEmpty() ? null : got.get(0);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis one pass visits the partitions in turn, one {@code poll.lua} call each taking up to what is still
     * missing, until the batch is full; if a pass took nothing it waits for a wake-up like {@link #poll(Duration)}.
     * Unlike single polls, batch polls do not share script calls with other threads (they need no group commit:
     * one call already carries up to {@code maxMessages} messages).
     */
    @Override
    public List<Delivery<V>> poll(int maxMessages, Duration wait) throws InterruptedException {
        QueueSupport.checkMaxMessages(maxMessages);
        Objects.requireNonNull(wait, "wait");
        checkOpen();
        return pollLoop.poll(wait, maxMessages);
    }

    boolean ack(RedisDelivery<V> d) {
        checkOpen();
        return acks.ack(d);
    }

    CompletionStage<Boolean> ackAsync(RedisDelivery<V> d) {
        checkOpen();
        return acks.ackAsync(d);
    }

    /** @param error the last error to record (bounded), or null to keep the one recorded */
    boolean nack(int partition, String id, long receipt, Duration retryDelay, String error) {
        checkOpen();
        Delay d = support.delay(retryDelay);
        return signalIfAsked(scripts.nack(partition, id, receipt, d, error));
    }

    boolean extend(int partition, String id, long receipt, Duration visibility) {
        QueueSupport.checkVisibility(visibility);
        checkOpen();
        return scripts.extend(partition, id, receipt, visibility.toMillis());
    }

    boolean release(int partition, String id, long receipt) {
        checkOpen();
        return signalIfAsked(scripts.release(partition, id, receipt));
    }

    /** @param reason the reason, bounded */
    boolean deadLetter(int partition, String id, long receipt, String reason) {
        checkOpen();
        return scripts.kill("deadLetter", partition, id, receipt, reason);
    }

    /**
     * Tells whether any client ever offered to this queue (under this name and partition count) on this Redis. A
     * queue's sequence counters are created by its first offer and stay when it empties, so an emptied queue exists
     * and a mistyped name does not; operators' tools use this to reject unknown queues. O(partitions).
     *
     * @return true if some partition has held a message
     * @throws IllegalStateException if the queue is closed
     */
    public boolean exists() {
        checkOpen();
        return all.exists();
    }

    @Override
    public QueueStats stats() {
        checkOpen();
        return all.stats();
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis each partition keeps its counters in a hash ({@code cw:{name:p}:counters}: offered, delivered,
     * acked, retried, dead, and limited for polls a rate limit held back), which the scripts increment with one
     * {@code HINCRBY} per field they touch; this reads them with one {@code HMGET} per partition and sums them.
     * Partitions are read one after another, not atomically together.
     */
    @Override
    public Optional<QueueCounters> counters() {
        checkOpen();
        return all.counters();
    }

    /**
     * Reads the rate limit stored with the queue now (field {@code rate} of its config hash), the one every client
     * that was built on a limited queue obeys: the last one a client was built with. O(1).
     *
     * @return the queue's rate limit, empty if it has none
     * @throws RedisQueueException if Redis fails
     */
    public Optional<RateLimit> rateLimit() {
        checkOpen();
        return StoredRateLimit.readForCaller(runner, connections, support.name());
    }

    /** {@inheritDoc} <p>On Redis: {@link Groups#largest}, one call per partition. */
    @Override
    public List<GroupBacklog> largestGroups(int limit) {
        QueueSupport.checkGroupsListed(limit);
        checkOpen();
        return groups.largest(limit);
    }

    @Override
    public List<DeadLetter> deadLetters(int limit) {
        checkOpen();
        return all.deadLetters(limit);
    }

    @Override
    public boolean requeueDead(String id) {
        checkOpen();
        support.checkId(id);
        return signalIfAsked(scripts.requeueDead(partitions.of(id), id));
    }

    @Override
    public long purgeDead() {
        checkOpen();
        return all.purgeDead();
    }

    /** @return the queue's checks and codec calls, for {@link RedisSchedules} */
    QueueSupport<V> support() {
        return support;
    }

    /** @return the queue's partitions, for {@link RedisSchedules} and {@link RedisQueueBrowser} */
    Partitions routing() {
        return partitions;
    }

    /** @return ARGV[1] of the queue's partition scripts, for {@link RedisSchedules} */
    byte[] settingsArg() {
        return scripts.settingsArg();
    }

    /** @return the queue's script runner, for {@link RedisSchedules} and {@link RedisQueueBrowser}'s scripts */
    ScriptRunner runner() {
        checkOpen();
        return scripts.runner();
    }

    /** @return the partitions' priority marks, for {@link RedisSchedules} */
    Priorities priorities() {
        return priorities;
    }

    /** @return the partitions' group marks, for {@link RedisSchedules} */
    Groups groups() {
        return groups;
    }

    /** @return the queue's wake-up signals, for {@link RedisSchedules} */
    Signals signals() {
        return signals;
    }

    @Override
    public String name() {
        return support.name();
    }

    @Override
    public Duration visibilityTimeout() {
        return support.options().visibilityTimeout();
    }

    @Override
    public int maxAttempts() {
        return support.options().maxAttempts();
    }

    /** @return the partition count in use: the one stored with the queue (see {@link RedisQueueBuilder#partitions}) */
    public int partitions() {
        return partitions.count();
    }

    /**
     * Deletes every key of this queue on Redis: all partitions' messages (delayed, ready, in flight and dead), its
     * counters, its wake-up signal and its stored partition count; its name leaves the registry of queues
     * ({@link RedisQueueRegistry}). Other clients of the queue then find it empty,
     * and the next client built creates it again. This client stays open. O(partitions) commands; each key is
     * deleted in O(its size), so a large queue blocks Redis for as long as {@code DEL} takes.
     *
     * @return how many of the queue's own keys existed and were deleted
     * @throws RedisQueueException if Redis fails
     */
    public long delete() {
        checkOpen();
        long deleted = all.delete();
        StoredPartitions.unregister(runner, connections, support.name());
        return deleted;
    }

    /** @return how many times this queue sent {@code SCRIPT LOAD} (once per script, again after NOSCRIPT) */
    long scriptLoads() {
        return scripts.loads();
    }

    /** @return whether the operations run as functions ({@code FCALL}); false: as scripts ({@code EVALSHA}) */
    boolean runsFunctions() {
        return scripts.functions();
    }

    /** @return how many dedicated blocking connections are open */
    int blockingConnections() {
        return signals.openConnections();
    }

    /** @return wake-up signals this client sent with {@code signal.lua}, and requests folded into those */
    long[] signalCounts() {
        return signals.counts();
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        signals.close();
        connections.close();
    }

    @Override
    public String toString() {
        return "RedisDelayedQueue[" + support.name() + " on " + connections.where() + ", " + partitions.count()
                + " partition(s)]";
    }

    private void checkOpen() {
        if (closed) {
            throw support.closedError();
        }
    }

    /** Pushes a wake-up signal if the script asked the client to (its partition cannot reach the signal key). */
    private boolean signalIfAsked(ScriptReplies.Flagged r) {
        if (r.mustSignal()) {
            signals.push();
        }
        return r.done();
    }
}

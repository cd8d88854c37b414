package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.QueueStats;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.RateLimit;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Builds a {@link RedisDelayedQueue}; {@code RedisDelayedQueue.builder(...)} makes one. Not thread-safe. Each option may be set once; bad values fail at once,
 * naming the option and its range.
 *
 * @param <V> the value type
 */
public final class RedisQueueBuilder<V> extends DelayedQueueBuilder<V, RedisQueueBuilder<V>> {

    /** Most partitions a queue may have. */
    public static final int MAX_PARTITIONS = 1024;
    /** Default time one Redis command may take. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(5);
    /** Default longest sleep of an idle poller between checks, bounding the cost of a lost wake-up. */
    public static final Duration DEFAULT_RECHECK_INTERVAL = Duration.ofSeconds(1);
    /**
     * Default longest time a connect may take, TCP, TLS and the Redis handshake together: Lettuce's own default
     * for the TCP connect alone, here bounding the whole. A reachable Redis completes all of it in a few round
     * trips, so a longer wait only delays the error; a shorter one could fail a server that stalls for a moment
     * (the fork of a large dataset, an overloaded host).
     */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration MAX_TIMEOUT = Duration.ofHours(1);
    /** Default {@link #compactAfter(Duration)}. */
    public static final Duration DEFAULT_COMPACT_AFTER = Duration.ofSeconds(10);

    private final Function<Duration, Connections> connect;
    private final String where;
    private int partitions;
    private Duration connectTimeout;
    private Duration commandTimeout;
    private Duration retryFor;
    private Duration recheckInterval;
    private Ticker ticker;
    private boolean allowEvictingServer;
    private boolean openExisting;
    private Duration compactAfter;

    RedisQueueBuilder(Function<Duration, Connections> connect, String where, String name,
                    Codec<V> codec) {
        this.connect = connect;
        this.where = where;
        name(name);
        codec(codec);
    }

    /**
     * Sets the partition count the client expects. The count is stored with the queue by the first client that
     * creates it; a client built without this option uses the stored count (1 for a new queue), and one built
     * with another count than the stored one fails at {@link #build()} naming both, so clients can never
     * disagree (they would file messages where others never look). Changing the count of a live queue is a
     * migration (docs/redis-queue.md, "Changing the partition count").
     *
     * @param partitions how many partitions (distinct hash tags) to split the queue into, in [1, 1024];
     *                   default: the stored count, or 1 for a new queue
     * @return this builder
     */
    public RedisQueueBuilder<V> partitions(int partitions) {
        checkUnset(this.partitions != 0, "partitions");
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be in [1, " + MAX_PARTITIONS + "], was "
                    + partitions);
        }
        this.partitions = partitions;
        return this;
    }

    /**
     * Bounds each connect of a queue built from a URI as a whole: the TCP connect, the TLS handshake
     * ({@code rediss://}) and the Redis handshake ({@code HELLO}, {@code AUTH}, {@code SELECT}); the first connect
     * at {@link #build()}, those of the dedicated connections blocked pollers use, and every reconnect. When it
     * fires, the error names the server and what did not answer: no TCP connection, no TLS reply, or no reply to
     * the handshake (a server that is not Redis). It replaces a {@code timeout} given in the URI. A queue built
     * on a caller's {@code RedisClient} or {@code RedisClusterClient} ignores it: that client's options rule
     * (its {@code RedisURI} timeout bounds the handshake, {@code SocketOptions.connectTimeout} the TCP connect).
     *
     * @param timeout the longest a connect may take, in [1 ms, 1 h]; default {@link #DEFAULT_CONNECT_TIMEOUT}
     * @return this builder
     */
    public RedisQueueBuilder<V> connectTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "connectTimeout");
        checkUnset(this.connectTimeout != null, "connectTimeout");
        this.connectTimeout = checkRange("connectTimeout", timeout, Duration.ofMillis(1));
        return this;
    }

    /**
     * @param timeout how long one Redis command may wait for its reply before the operation fails (or is
     *                retried), in [1 ms, 1 h]; default 5 s
     * @return this builder
     */
    public RedisQueueBuilder<V> commandTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "commandTimeout");
        checkUnset(this.commandTimeout != null, "commandTimeout");
        this.commandTimeout = checkRange("commandTimeout", timeout, Duration.ofMillis(1));
        return this;
    }

    /**
     * @param retryFor how long an operation keeps retrying while Redis is unreachable, not answering or still
     *                 loading after a restart, before it throws {@link RedisQueueException}, in [0, 1 h];
     *                 default zero: fail at once with a clear error (the queue still reconnects by itself)
     * @return this builder
     */
    public RedisQueueBuilder<V> retryOnConnectionLoss(Duration retryFor) {
        Objects.requireNonNull(retryFor, "retryOnConnectionLoss");
        checkUnset(this.retryFor != null, "retryOnConnectionLoss");
        this.retryFor = checkRange("retryOnConnectionLoss", retryFor, Duration.ZERO);
        return this;
    }

    /**
     * @param interval the longest an idle poller sleeps before checking Redis again even without a wake-up
     *                 signal, in [1 ms, 1 h]; default 1 s. It bounds how late a delivery can be if a signal is
     *                 lost (a producer dying between its offer and its signal in a Cluster).
     * @return this builder
     */
    public RedisQueueBuilder<V> recheckInterval(Duration interval) {
        Objects.requireNonNull(interval, "recheckInterval");
        checkUnset(this.recheckInterval != null, "recheckInterval");
        this.recheckInterval = checkRange("recheckInterval", interval, Duration.ofMillis(1));
        return this;
    }

    /**
     * @param ticker the clock of this client's own waits: how long {@code poll(wait)} blocks and how long
     *               failed commands are retried; default {@link Ticker#system()}. It never sets a due time or a
     *               visibility deadline: those come from the Redis server's clock ({@code TIME} in the
     *               scripts), so clients whose clocks disagree still agree on when a message is due.
     * @return this builder
     */
    public RedisQueueBuilder<V> ticker(Ticker ticker) {
        Objects.requireNonNull(ticker, "ticker");
        checkUnset(this.ticker != null, "ticker");
        this.ticker = ticker;
        return this;
    }

    /**
     * Accepts a server whose {@code maxmemory-policy} is not {@code noeviction}. By default {@link #build()}
     * refuses such a server (on every master of a Cluster), because under memory pressure Redis then deletes
     * whole keys: a queue silently loses its schedule (every message in it), the states and payloads of its
     * messages, its dead letters, its stored partition count or its counter of lost messages. With this option
     * the queue runs anyway and loses what Redis evicts: a message whose state is partly gone is dropped when a
     * script meets it and counted in {@link QueueStats#lost()} and in a log line, so the rest keeps flowing; but
     * what was evicted is gone. Use it only where losing messages is acceptable (a cache-like queue) or where
     * {@code maxmemory} can never be reached.
     *
     * @return this builder
     */
    public RedisQueueBuilder<V> allowEvictingServer() {
        checkUnset(allowEvictingServer, "allowEvictingServer");
        allowEvictingServer = true;
        return this;
    }

    /**
     * Sets how far ahead an offered message must be due to be kept in its partition's compact store: due-time
     * chunks of up to 128 messages in Redis lists, found by id through an index of small hashes, instead of a
     * sorted-set member and a hash field of its own. With 100-byte payloads a pending message then takes about
     * half the memory (docs/redis-queue.md, "Memory"). A chunk moves whole into the per-message layout when its
     * second starts, before any of its messages is due, so order and delivery times are the same either way.
     * Looking up a compact message by id (cancel, reschedule, an offer that replaces or extends it, the dedup check
     * of an id the client did not generate) scans its chunk: O(128) instead of O(log n). Retries, reschedules due
     * sooner than this, requeued dead letters, schedules' occurrences, the Redisson face's elements and ids longer
     * than 60 bytes use the per-message layout. Clients of one queue may use different values.
     *
     * @param after the shortest delay kept compactly, not negative; {@link Duration#ZERO} keeps every delayed
     *              message compactly, a duration longer than {@link io.clockwork.queue.DelayedQueue#MAX_DELAY}
     *              keeps none; default {@link #DEFAULT_COMPACT_AFTER}
     * @return this builder
     */
    public RedisQueueBuilder<V> compactAfter(Duration after) {
        Objects.requireNonNull(after, "compactAfter");
        checkUnset(this.compactAfter != null, "compactAfter");
        if (after.isNegative()) {
            throw new IllegalArgumentException("compactAfter must not be negative, was " + after);
        }
        this.compactAfter = after;
        return this;
    }

    /**
     * Makes {@link #build()} fail with {@link QueueNotFoundException}, writing nothing, if no client ever
     * created the queue on this server; for operators' tools, where a mistyped name must not create a queue.
     *
     * @return this builder
     */
    public RedisQueueBuilder<V> openExisting() {
        checkUnset(openExisting, "openExisting");
        openExisting = true;
        return this;
    }

    /**
     * Connects, checks the server and the queue's stored partition count, and returns the queue.
     *
     * <p>A {@code rateLimit(permits, interval)} is stored with the queue (its config hash), replacing a different one
     * with a warning naming both, and kept on the server for every client of the queue at once: one sliding log in
     * partition 0's slot, on the server's clock, whatever the partition count; a client built without one follows the
     * stored limit (docs/redis-queue.md, "Rate limit"). The interval counts in whole milliseconds, rounded up.
     *
     * @return the queue
     * @throws RedisQueueException    if Redis cannot be reached, or its {@code maxmemory-policy} may evict keys
     *                                (see {@link #allowEvictingServer()})
     * @throws IllegalStateException  if {@link #partitions(int)} differs from the count stored with the queue
     * @throws QueueNotFoundException with {@link #openExisting()}, if the queue does not exist
     * @throws UnsupportedOperationException if a group rate limit, {@code maxInFlightPerGroup} or a group weight is
     *                                set: message groups are not kept on Redis
     */
    public RedisDelayedQueue<V> build() {
        connectTimeout = connectTimeout != null ? connectTimeout : DEFAULT_CONNECT_TIMEOUT;
        commandTimeout = commandTimeout != null ? commandTimeout : DEFAULT_COMMAND_TIMEOUT;
        retryFor = retryFor != null ? retryFor : Duration.ZERO;
        recheckInterval = recheckInterval != null ? recheckInterval : DEFAULT_RECHECK_INTERVAL;
        ticker = ticker != null ? ticker : Ticker.system();
        compactAfter = compactAfter != null ? compactAfter : DEFAULT_COMPACT_AFTER;
        QueueOptions<V> o = options(null, null);
        QueueSupport<V> s = new QueueSupport<>(o);
        Connections c;
        try {
            c = connect.apply(connectTimeout);
        } catch (Connections.ConnectFailure e) {
            // Why in plain words (FailureCause); Lettuce's error stays the cause.
            throw new RedisQueueException("queue '" + s.name() + "' on " + where + ": cannot connect: "
                    + e.getMessage(), e.getCause());
        } catch (RuntimeException e) {
            throw new RedisQueueException("queue '" + s.name() + "' on " + where + ": cannot connect: "
                    + e.getMessage(), e);
        }
        try {
            ScriptRunner scripts = new ScriptRunner(c, s.name(), commandTimeout, retryFor, ticker);
            if (!allowEvictingServer) {
                EvictionCheck.requireNoEviction(c, scripts, s.name());
            }
            int stored = StoredPartitions.resolve(scripts, c, s.name(), partitions, openExisting);
            Optional<RateLimit> limit = StoredRateLimit.resolve(scripts, c, s.name(), o.rateLimit());
            return new RedisDelayedQueue<>(s, c, scripts, stored, ticker, recheckInterval, compactAfter,
                    limit.isPresent());
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private static Duration checkRange(String option, Duration value, Duration min) {
        if (value.compareTo(min) < 0 || value.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException(option + " must be in [" + min + ", " + MAX_TIMEOUT + "], was "
                    + value);
        }
        return value;
    }
}

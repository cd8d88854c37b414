package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.CodecException;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.QueueSettings;
import io.clockwork.queue.QueueStats;
import io.clockwork.time.Ticker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * A {@link DelayedQueue} kept in Redis (standalone or Cluster, 6.2+), shared by every client that opens a queue of
 * the same name. Thread-safe: any number of threads may offer and poll through one instance.
 *
 * <h2>Design</h2>
 * Redisson's {@code RDelayedQueue} keeps due times in a sorted set and relies on a client-side transfer task, driven
 * by the client's clock and a pub/sub subscription, to move due items into a list, paying an O(n) {@code LREM} per
 * item, and loses an item whose consumer dies. Here:
 * <ul>
 *   <li><b>State is a function of scores and the server's clock.</b> Each partition keeps one sorted set of
 *   scheduled messages scored by due time in server milliseconds ({@code TIME} inside the scripts), one of
 *   in-flight messages scored by visibility deadline, one of dead letters, a hash of each message's state and
 *   payload in one value, and one of death reasons (see {@link KeyLayout}). "Ready" is simply the prefix of the schedule whose score is at
 *   most now, so nothing needs to be moved when a message falls due: no transfer task, and a consumer arriving
 *   after a long absence sees everything due at once. Expired deliveries are moved back on the consumer's path,
 *   a bounded number per call.</li>
 *   <li><b>FIFO within a due time</b>: members are {@code <16-hex-digit sequence><id>}, and a sorted set orders equal
 *   scores bytewise, so equal due times come out in sequence (offer) order. Every scheduling (offer, retry,
 *   reschedule, requeue) takes a new sequence number and a scheduled message is delivered at most once, so that
 *   number is also the receipt of its delivery, and a late ack of a redelivered message changes nothing.</li>
 *   <li><b>One Lua script per operation</b> ({@code offer.lua}, {@code poll.lua}, ...), each a handful of
 *   {@code ZADD}/{@code ZREM}/{@code ZRANGEBYSCORE ... LIMIT 0 1}/{@code HGET}/{@code HSET}: O(log n) in the
 *   backlog, never a scan, and atomic (see {@link Script}, {@link ScriptRunner}).</li>
 *   <li><b>Wake-ups without a transfer task</b>: an empty poll returns how long until the partition's next event; the
 *   consumer then waits on a signal list (see {@link SignalWaiter}) for at most that long, the caller's wait, or the
 *   re-check interval. A script that makes a message due earlier than what pollers may be waiting for pushes one
 *   token; a poll that leaves more ready messages passes the token on. A lost token only delays a delivery until the
 *   next re-check.</li>
 *   <li><b>Partitions</b>: {@code partitions(n)} splits the queue into n partitions with distinct hash tags, so a
 *   Cluster spreads them over its masters. An id always maps to the same partition ({@link PartitionSelector}), so
 *   deduplication, cancel and ack stay single-slot; consumers start each poll at the next partition in turn. FIFO
 *   within a due time holds per partition. Every client of a queue must use the same partition count. A poll
 *   skips a partition that answered "nothing due" for min(its next event, 20 ms), unless this client offers there
 *   or a wake-up signal arrives, so idle partitions cost no round trips.</li>
 *   <li><b>Group commit</b> ({@link Batcher}): concurrent offers, acks and polls of one client to one partition
 *   share one script call, each caller getting its own reply (its own dedup flag, ack code, or message); a caller
 *   alone is sent at once, batches form only while a call is in flight. A batched poll takes as many messages as
 *   callers are waiting, so nothing is prefetched into a client buffer.</li>
 *   <li><b>Never early</b>: a positive delay counts from the server's clock rounded up to the next millisecond,
 *   polls compare with it rounded down.</li>
 * </ul>
 * References: Redisson {@code RedissonDelayedQueue} (what to avoid); Amazon SQS visibility timeouts and dead-letter
 * queues (the delivery model); Redis docs on {@code EVALSHA}, script effects replication and Cluster hash tags.
 *
 * @param <V> the type of the message values
 */
public final class RedisDelayedQueue<V> implements DelayedQueue<V> {

    private static final System.Logger LOG = System.getLogger(RedisDelayedQueue.class.getName());
    /** Most expired deliveries one script call returns to the schedule. */
    private static final int SWEEP_LIMIT = 100;
    /** How long a poll skips a partition (or the wake-up signal) that just failed before trying it again. */
    private static final long PROBE_INTERVAL_MS = 100;
    private static final long PROBE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(PROBE_INTERVAL_MS);
    /** Most dead letters one purge call deletes. */
    private static final int PURGE_BATCH = 1000;
    /** Most offers or acks one group-commit script call carries. */
    private static final int MAX_BATCH = 64;
    /** Longest a poll skips a partition that just answered "nothing due" (partitioned queues only). */
    private static final long EMPTY_HINT_MAX_MS = 20;
    private static final byte[] ONE = arg(1);
    /** offer.lua's fresh flags: every id needs the dedup check / none does (see offer.lua). Also "no shared delay". */
    private static final byte[] CHECK_ALL = new byte[0];
    private static final byte[] FRESH_ALL = {'*'};
    private static final int SIGNAL_IDLE = 0;
    private static final int SIGNAL_IN_FLIGHT = 1;
    private static final int SIGNAL_AGAIN = 2;
    /** After this long in flight, a signal call no longer holds back new ones (its reply may be stuck). */
    private static final long SIGNAL_STALE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final QueueSettings<V> settings;
    private final Connections connections;
    private final KeyLayout keys;
    private final PartitionSelector selector;
    private final IdGenerator idGenerator = new IdGenerator();
    private final ScriptRunner scripts;
    private final SignalWaiter waiter;
    private final long recheckMillis;
    private final byte[] maxAttemptsArg;
    private final byte[] visibilityArg;
    private final Ticker ticker;
    /** Per partition (when more than one): the ticker reading before which a failing partition is skipped. */
    private final AtomicLongArray partitionDownUntil;
    /**
     * Per partition (when more than one): the ticker reading before which a poll skips it, because it answered
     * "nothing due before then" a moment ago. Cleared by this client's own offers there and by a wake-up signal.
     */
    private final AtomicLongArray partitionEmptyUntil;
    /** Per partition: group commits of concurrent offers, acks and polls (see {@link Batcher}). */
    private final Batcher<Call>[] offers;
    private final Batcher<Call>[] acks;
    private final Batcher<Call>[] polls;
    /** Coalescing of client-side wake-up signals (see {@link #signal()}): idle, a call in flight, one more due. */
    private final AtomicInteger signalState = new AtomicInteger();
    private volatile long signalSentAt;
    private final LongAdder signalsSent = new LongAdder();
    private final LongAdder signalsCoalesced = new LongAdder();
    /** The ticker reading before which pollers sleep on the client instead of waiting for the signal. */
    private volatile long waiterDownUntil;
    private volatile boolean closed;

    private RedisDelayedQueue(Builder<V> b, Connections connections, ScriptRunner scripts, int partitions) {
        this.settings = b.frozen();
        this.connections = connections;
        this.keys = new KeyLayout(settings.name(), partitions, connections.cluster());
        this.selector = new PartitionSelector(partitions);
        this.ticker = b.ticker;
        this.partitionDownUntil = partitions > 1 ? new AtomicLongArray(partitions) : null;
        this.partitionEmptyUntil = partitions > 1 ? new AtomicLongArray(partitions) : null;
        this.offers = batchers(partitions, MAX_BATCH, Script.OFFER, this::splitOffers);
        this.acks = batchers(partitions, MAX_BATCH, Script.ACK, RedisDelayedQueue::splitAcks);
        this.polls = batchers(partitions, Integer.MAX_VALUE, Script.POLL, RedisDelayedQueue::splitPolls);
        this.waiterDownUntil = ticker.read();
        this.scripts = scripts;
        this.waiter = new SignalWaiter(connections, keys.signalKey(), this::signal);
        this.recheckMillis = b.recheckInterval.toMillis();
        this.maxAttemptsArg = arg(settings.maxAttempts());
        this.visibilityArg = arg(settings.visibilityTimeout().toMillis());
        scripts.preload();
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
    public static <V> Builder<V> builder(String redisUri, String name, Codec<V> codec) {
        Objects.requireNonNull(redisUri, "redisUri");
        RedisURI uri;
        try {
            uri = RedisURI.create(redisUri);
        } catch (RuntimeException e) {
            // Neither the URI nor Lettuce's message (which may quote it) is shown as given: it may hold a password.
            throw new IllegalArgumentException("redisUri is not a Redis URI: '" + Connections.redact(redisUri)
                    + "' (" + Connections.redact(String.valueOf(e.getMessage())) + ")");
        }
        return new Builder<>(timeout -> Connections.owned(uri, timeout), Connections.describe(uri), name, codec);
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
    public static <V> Builder<V> builder(RedisClient client, String name, Codec<V> codec) {
        Objects.requireNonNull(client, "client");
        return new Builder<>(timeout -> Connections.shared(client), "redis (shared RedisClient)", name, codec);
    }

    /**
     * Starts a builder for a queue on a caller's Redis Cluster client; the queue does not close the client. Use
     * {@link Builder#partitions(int)} to spread the queue over the masters.
     *
     * @param client a cluster client
     * @param name   the queue's name
     * @param codec  turns values into bytes
     * @param <V>    the value type
     * @return the builder
     */
    public static <V> Builder<V> builder(RedisClusterClient client, String name, Codec<V> codec) {
        Objects.requireNonNull(client, "client");
        return new Builder<>(timeout -> Connections.shared(client), "redis cluster (shared RedisClusterClient)",
                name, codec);
    }

    @Override
    public String offer(V value, Duration delay) {
        checkOpen();
        byte[] payload = settings.encode(value);
        long delayMs = delayMillis(delay);
        String id = idGenerator.next();
        // Fresh: the first attempt skips the dedup read (the id is unique); a retry after a lost reply checks it, so
        // a generated id is added exactly once.
        add(id, payload, delayMs, true);
        return id;
    }

    @Override
    public boolean offer(String id, V value, Duration delay) {
        checkOpen();
        settings.checkId(id);
        byte[] payload = settings.encode(value);
        return add(id, payload, delayMillis(delay), false);
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
        Objects.requireNonNull(values, "values");
        Object[] given = values.toArray();
        QueueSettings.checkBatch("values", given.length);
        long delayMs = delayMillis(delay);
        byte[][] payloads = encodeAll(given, "values");
        String[] ids = new String[given.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = idGenerator.next();
        }
        addAll(ids, payloads, delayMs, true);
        return List.of(ids);
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
        Objects.requireNonNull(messages, "messages");
        QueueSettings.checkBatch("messages", messages.size());
        String[] ids = new String[messages.size()];
        Object[] given = new Object[ids.length];
        int i = 0;
        for (Map.Entry<String, ? extends V> e : messages.entrySet()) {
            if (i == ids.length) {
                throw new ConcurrentModificationException("messages grew while being read");
            }
            ids[i] = settings.checkId(e.getKey());
            given[i++] = Objects.requireNonNull(e.getValue(), () -> "messages[" + e.getKey() + "]");
        }
        long delayMs = delayMillis(delay);
        byte[][] payloads = encodeAll(given, "messages");
        boolean[] added = addAll(ids, payloads, delayMs, false);
        List<String> result = new ArrayList<>(ids.length);
        for (int j = 0; j < ids.length; j++) {
            if (added[j]) {
                result.add(ids[j]);
            }
        }
        return result;
    }

    @SuppressWarnings("unchecked")
    private byte[][] encodeAll(Object[] values, String argument) {
        byte[][] payloads = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            int index = i;
            Objects.requireNonNull(values[i], () -> argument + "[" + index + "]");
            payloads[i] = settings.encode((V) values[i]);
        }
        return payloads;
    }

    /**
     * Splits a batch of (id, payload) by partition and runs one script call per partition, all sent before any
     * reply is awaited. Each call's arguments are {@code head}, then the arguments {@code perMessage} builds for each
     * of its messages; a retry (after a transient failure) sends {@code retryHead} instead of {@code head}. The
     * script's reply is one code per message, in order, optionally followed by a "must signal" flag.
     *
     * @return each message's reply code, in order
     * @throws RedisQueueException if a partition failed (after the others were awaited, so their work is done)
     */
    private long[] perPartition(String operation, Script script, int n, IntFunction<String> idOf, byte[][] head,
                                byte[][] retryHead, IntFunction<byte[][]> perMessage, boolean signalFlag) {
        int parts = keys.partitions();
        int[] partOf = new int[n];
        int[] count = new int[parts];
        for (int i = 0; i < n; i++) {
            partOf[i] = parts == 1 ? 0 : selector.partitionOf(idOf.apply(i));
            count[partOf[i]]++;
        }
        byte[][][] args = new byte[parts][][];
        int[][] members = new int[parts][];
        int[] filled = new int[parts];
        for (int i = 0; i < n; i++) {
            int p = partOf[i];
            byte[][] a = perMessage.apply(i);
            if (args[p] == null) {
                args[p] = new byte[head.length + a.length * count[p]][];
                System.arraycopy(head, 0, args[p], 0, head.length);
                members[p] = new int[count[p]];
            }
            System.arraycopy(a, 0, args[p], head.length + a.length * filled[p], a.length);
            members[p][filled[p]++] = i;
        }
        List<CompletableFuture<List<Object>>> sent = new ArrayList<>(parts);
        for (int p = 0; p < parts; p++) {
            CompletableFuture<List<Object>> f = null;
            if (args[p] != null) {
                try {
                    f = connections.commands().<List<Object>>evalsha(script.sha(), script.output(), keys.keys(p),
                            args[p]).toCompletableFuture();
                } catch (RuntimeException e) {
                    f = CompletableFuture.failedFuture(e);
                }
            }
            sent.add(f);
        }
        long[] codes = new long[n];
        RedisQueueException failure = null;
        for (int p = 0; p < parts; p++) {
            CompletableFuture<List<Object>> f = sent.get(p);
            if (f == null) {
                continue;
            }
            ScriptRunner.Reply<List<Object>> reply;
            byte[][] retryArgs = args[p];
            if (retryHead != head) {
                retryArgs = args[p].clone();
                System.arraycopy(retryHead, 0, retryArgs, 0, retryHead.length);
            }
            try {
                reply = scripts.runAfter(operation, scripts.retryNanos(), () -> scripts.await(f), script,
                        keys.keys(p), retryArgs);
            } catch (RedisQueueException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
                continue;
            }
            List<Object> r = reply.value();
            for (int j = 0; j < members[p].length; j++) {
                long code = (Long) r.get(j);
                // An ack whose retry finds its message gone was done by its own first attempt (see ack()).
                codes[members[p][j]] = code == 2L && reply.uncertain() ? 1L : code;
            }
            if (signalFlag && (Long) r.get(members[p].length) == 1L) {
                signal();
            }
            if (script == Script.OFFER && partitionEmptyUntil != null) {
                partitionEmptyUntil.set(p, 0);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return codes;
    }

    /**
     * @param fresh whether the ids were just made by {@link #idGenerator}: their first attempt skips the dedup read
     */
    private boolean[] addAll(String[] ids, byte[][] payloads, long delayMs, boolean fresh) {
        byte[] delayArg = arg(delayMs);
        byte[][] check = {maxAttemptsArg, delayArg, CHECK_ALL};
        byte[][] head = fresh ? new byte[][] {maxAttemptsArg, delayArg, FRESH_ALL} : check;
        long[] codes = perPartition("offerAll", Script.OFFER, ids.length, i -> ids[i], head, check,
                i -> new byte[][] {arg(ids[i]), payloads[i]}, true);
        boolean[] added = new boolean[ids.length];
        for (int i = 0; i < ids.length; i++) {
            added[i] = codes[i] == 1L;
        }
        return added;
    }

    /**
     * {@inheritDoc}
     *
     * <p>On Redis the deliveries are grouped by partition, one {@code ack.lua} call per partition, all sent at once.
     */
    @Override
    public List<Boolean> ackAll(List<? extends Delivery<V>> deliveries) {
        checkOpen();
        Objects.requireNonNull(deliveries, "deliveries");
        Object[] given = deliveries.toArray();
        QueueSettings.checkBatch("deliveries", given.length);
        RedisDelivery<?>[] ds = new RedisDelivery<?>[given.length];
        for (int i = 0; i < given.length; i++) {
            int index = i;
            Objects.requireNonNull(given[i], () -> "deliveries[" + index + "]");
            if (!(given[i] instanceof RedisDelivery<?> d) || d.queue() != this) {
                throw new IllegalArgumentException("deliveries[" + i + "] is not a delivery of queue '"
                        + settings.name() + "' (this client): " + given[i]);
            }
            ds[i] = d;
        }
        if (ds.length == 0) {
            return List.of();
        }
        byte[][] head = {maxAttemptsArg};
        long[] codes = perPartition("ackAll", Script.ACK, ds.length, i -> ds[i].id(), head, head,
                i -> ackArgs(ds[i].id(), ds[i].receipt()), false);
        Boolean[] result = new Boolean[ds.length];
        for (int i = 0; i < ds.length; i++) {
            result[i] = codes[i] == 1L;
        }
        return List.of(result);
    }

    private boolean add(String id, byte[] payload, long delayMs, boolean fresh) {
        int p = selector.partitionOf(id);
        Call call = new Call(arg(delayMs), fresh, arg(id), payload);
        List<Object> r = batched("offer", scripts.retryNanos(), offers[p], call, Script.OFFER, p);
        if (partitionEmptyUntil != null) {
            partitionEmptyUntil.set(p, 0);
        }
        return flagsAndSignal(r);
    }

    /**
     * One call of a group commit: its own per-message arguments, completed with its own reply. An offer also has
     * its delay (sent once for the whole call when every offer of it has the same) and whether its id is fresh.
     */
    private static final class Call extends CompletableFuture<List<Object>> {
        final byte[][] args;
        final byte[] delay;
        final boolean fresh;

        Call(byte[]... args) {
            this(null, false, args);
        }

        Call(byte[] delay, boolean fresh, byte[]... args) {
            this.args = args;
            this.delay = delay;
            this.fresh = fresh;
        }
    }

    /**
     * The arguments of offer.lua for a group commit of offers (see its header): maxAttempts, the shared delay or
     * {@code ''}, the fresh flags, then (id, payload) per offer, plus its delay if the delays differ.
     */
    private byte[][] offerArgs(List<Call> batch) {
        byte[] common = batch.get(0).delay;
        int fresh = 0;
        for (Call c : batch) {
            if (common != null && !Arrays.equals(c.delay, common)) {
                common = null;
            }
            fresh += c.fresh ? 1 : 0;
        }
        byte[] flags;
        if (fresh == batch.size()) {
            flags = FRESH_ALL;
        } else if (fresh == 0) {
            flags = CHECK_ALL;
        } else {
            flags = new byte[batch.size()];
            for (int i = 0; i < flags.length; i++) {
                flags[i] = (byte) (batch.get(i).fresh ? '1' : '0');
            }
        }
        int width = common != null ? 2 : 3;
        byte[][] args = new byte[3 + width * batch.size()][];
        args[0] = maxAttemptsArg;
        args[1] = common != null ? common : CHECK_ALL;
        args[2] = flags;
        int at = 3;
        for (Call c : batch) {
            args[at++] = c.args[0];
            args[at++] = c.args[1];
            if (common == null) {
                args[at++] = c.delay;
            }
        }
        return args;
    }

    /** ack.lua's arguments for one delivery: id, and its in-flight member (which proves it holds the message). */
    static byte[][] ackArgs(String id, long receipt) {
        return new byte[][] {arg(id), member(receipt, id)};
    }

    /**
     * A message as poll.lua hands it over: its META value {@code D <attempts> <seq in hex>:<payload>} (see
     * include/meta.lua), read into the delivery's attempt (attempts + 1: attempts counts the deliveries before this
     * scheduling), receipt (the sequence) and payload.
     */
    record Taken(int attempt, long receipt, byte[] payload) {
        static Taken parse(byte[] v) {
            int i = 2;
            int attempts = 0;
            for (; i < v.length && v[i] != ' '; i++) {
                attempts = Math.addExact(Math.multiplyExact(attempts, 10), digit(v, i, 10));
            }
            long seq = 0;
            for (i++; i < v.length && v[i] != ':'; i++) {
                seq = (seq << 4) | digit(v, i, 16);
            }
            if (v.length < 4 || v[1] != ' ' || i >= v.length) {
                throw new IllegalStateException("not a META value: " + new String(v, 0, Math.min(v.length, 40),
                        StandardCharsets.UTF_8));
            }
            return new Taken(attempts + 1, seq, Arrays.copyOfRange(v, i + 1, v.length));
        }

        /** @return the number written in hex in {@code v[from, to)}, e.g. a member's sequence prefix */
        static long hex(byte[] v, int from, int to) {
            long n = 0;
            for (int i = from; i < to; i++) {
                n = (n << 4) | digit(v, i, 16);
            }
            return n;
        }

        private static int digit(byte[] v, int i, int radix) {
            int d = Character.digit(v[i], radix);
            if (d < 0) {
                throw new IllegalStateException("not a META value: " + new String(v, 0, Math.min(v.length, 40),
                        StandardCharsets.UTF_8));
            }
            return d;
        }
    }

    /** @return {@code <seq as 16 lowercase hex digits><id>}, the member of a message in the sorted sets */
    static byte[] member(long seq, String id) {
        String hex = Long.toHexString(seq);
        StringBuilder sb = new StringBuilder(16 + id.length());
        for (int i = hex.length(); i < 16; i++) {
            sb.append('0');
        }
        return arg(sb.append(hex).append(id).toString());
    }

    /** Splits a batched script's reply into each call's own reply, shaped as the reply of that call alone. */
    private interface Split {
        void complete(List<Call> batch, List<Object> reply);
    }

    @SuppressWarnings("unchecked")
    private Batcher<Call>[] batchers(int partitions, int max, Script script, Split split) {
        Batcher<Call>[] result = new Batcher[partitions];
        for (int p = 0; p < partitions; p++) {
            byte[][] k = keys.keys(p);
            boolean poll = script == Script.POLL;
            result[p] = new Batcher<>(max, batch -> {
                byte[][] args;
                if (poll) {
                    args = new byte[][] {maxAttemptsArg, arg(SWEEP_LIMIT), visibilityArg, arg(batch.size())};
                } else if (script == Script.OFFER) {
                    args = offerArgs(batch);
                } else {
                    List<byte[]> a = new ArrayList<>(1 + 3 * batch.size());
                    a.add(maxAttemptsArg);
                    for (Call c : batch) {
                        a.addAll(Arrays.asList(c.args));
                    }
                    args = a.toArray(new byte[0][]);
                }
                RedisFuture<List<Object>> f = connections.commands().evalsha(script.sha(), script.output(), k,
                        args);
                return f.thenAccept(reply -> split.complete(batch, reply));
            });
        }
        return result;
    }

    /** Offer reply: {added per call..., must signal}; each call gets {added, must signal (the first call only)}. */
    private void splitOffers(List<Call> batch, List<Object> reply) {
        Object signal = reply.get(reply.size() - 1);
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).complete(Arrays.asList(reply.get(i), i == 0 ? signal : 0L));
        }
    }

    /** Ack reply: {code per call...}; each call gets {code}. */
    private static void splitAcks(List<Call> batch, List<Object> reply) {
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).complete(Arrays.asList(reply.get(i)));
        }
    }

    /**
     * Poll reply: {k, next event, must signal, lost, k x (id, META value)}: the first k calls get one message each,
     * in order, the others {0, next event, 0, lost}; each shaped as the reply of a poll of one message, the first
     * call carrying the signal flag and the count of lost messages.
     */
    private static void splitPolls(List<Call> batch, List<Object> reply) {
        long k = (Long) reply.get(0);
        for (int i = 0; i < batch.size(); i++) {
            Object lost = i == 0 ? reply.get(3) : 0L;
            if (i < k) {
                int at = 4 + 2 * i;
                batch.get(i).complete(Arrays.asList(1L, -1L, i == 0 ? reply.get(2) : 0L, lost, reply.get(at),
                        reply.get(at + 1)));
            } else {
                batch.get(i).complete(Arrays.asList(0L, reply.get(1), 0L, lost));
            }
        }
    }

    /**
     * Runs one call through its partition's group commit; after a transient failure it is retried alone (an id
     * deduplicates an offer's retry; a receipt makes an ack's retry harmless; a poll's lost delivery comes back after
     * the visibility timeout).
     */
    private List<Object> batched(String operation, long retryNanos, Batcher<Call> batcher, Call call, Script script,
                                 int p) {
        return batchedTracked(operation, retryNanos, batcher, call, script, p).value();
    }

    private ScriptRunner.Reply<List<Object>> batchedTracked(String operation, long retryNanos, Batcher<Call> batcher,
                                                           Call call, Script script, int p) {
        // The call alone, for a retry: an offer then checks its id even if fresh (its first attempt may have run).
        byte[][] head = script == Script.OFFER ? new byte[][] {maxAttemptsArg, call.delay, CHECK_ALL}
                : new byte[][] {maxAttemptsArg};
        byte[][] alone = new byte[head.length + call.args.length][];
        System.arraycopy(head, 0, alone, 0, head.length);
        System.arraycopy(call.args, 0, alone, head.length, call.args.length);
        if (script == Script.POLL) {
            alone = new byte[][] {maxAttemptsArg, arg(SWEEP_LIMIT), visibilityArg, ONE};
        }
        return scripts.runAfter(operation, retryNanos, () -> {
            batcher.submit(call);
            return scripts.await(call);
        }, script, keys.keys(p), alone);
    }

    @Override
    public boolean cancel(String id) {
        checkOpen();
        settings.checkId(id);
        Long r = scripts.run("cancel", Script.CANCEL, keys.keys(selector.partitionOf(id)), maxAttemptsArg, arg(id));
        return r == 1L;
    }

    @Override
    public boolean reschedule(String id, Duration delay) {
        checkOpen();
        settings.checkId(id);
        long delayMs = delayMillis(delay);
        List<Object> r = scripts.run("reschedule", Script.RESCHEDULE, keys.keys(selector.partitionOf(id)),
                maxAttemptsArg, arg(id), arg(delayMs));
        return flagsAndSignal(r);
    }

    @Override
    public Delivery<V> poll(Duration wait) throws InterruptedException {
        Objects.requireNonNull(wait, "wait");
        checkOpen();
        List<Delivery<V>> got = pollLoop(wait, 0);
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
        QueueSettings.checkMaxMessages(maxMessages);
        Objects.requireNonNull(wait, "wait");
        checkOpen();
        return pollLoop(wait, maxMessages);
    }

    /**
     * Polls the partitions until something is taken or {@code wait} passed.
     *
     * @param max 0: one message through the group commit ({@link #poll(Duration)}); else up to max, directly
     */
    private List<Delivery<V>> pollLoop(Duration wait, int max) throws InterruptedException {
        List<Delivery<V>> out = new ArrayList<>(max == 0 ? 1 : Math.min(max, 64));
        // The caller's wait is measured on the ticker; due times never are (they come from the server's TIME).
        long deadline = ticker.read() + saturatedNanos(wait);
        long unreachableSince = 0;
        boolean unreachable = false;
        while (true) {
            long nextEventMs = -1;
            boolean answered = false;
            RedisQueueException failure = null;
            int start = selector.nextStart();
            for (int i = 0; i < keys.partitions(); i++) {
                if (closed) {
                    return out;
                }
                int p = (start + i) % keys.partitions();
                if (partitionDownUntil != null && partitionDownUntil.get(p) - ticker.read() > 0) {
                    continue; // failed a moment ago: probed again after PROBE_INTERVAL, the others go on
                }
                if (partitionEmptyUntil != null) {
                    long left = partitionEmptyUntil.get(p) - ticker.read();
                    if (left > 0) {
                        // Nothing due there a moment ago: costs no round trip until then (or a wake-up). It answered,
                        // so another master being down does not make this poll fail.
                        answered = true;
                        long ms = ceilMillis(left);
                        if (nextEventMs < 0 || ms < nextEventMs) {
                            nextEventMs = ms;
                        }
                        continue;
                    }
                }
                long next;
                try {
                    if (max == 0) {
                        Object r = pollPartition(p);
                        if (r instanceof Delivery<?>) {
                            @SuppressWarnings("unchecked")
                            Delivery<V> d = (Delivery<V>) r;
                            out.add(d);
                            return out;
                        }
                        next = (Long) r;
                    } else {
                        next = pollPartition(p, max - out.size(), out);
                    }
                } catch (RedisQueueException e) {
                    if (closed || !out.isEmpty()) {
                        // Closed meanwhile (its connection went away under this call), or what this batch already
                        // holds is in flight for the caller: hand it over rather than leave it to time out.
                        return out;
                    }
                    if (partitionDownUntil == null || !ScriptRunner.isTransient(e)) {
                        throw e;
                    }
                    // One master of a Cluster down must not stop the partitions on the others.
                    partitionDownUntil.set(p, ticker.read() + PROBE_INTERVAL_NANOS);
                    failure = e;
                    continue;
                } catch (RuntimeException e) {
                    if (closed) {
                        return out;
                    }
                    throw e;
                }
                answered = true;
                if (partitionDownUntil != null) {
                    partitionDownUntil.set(p, 0);
                }
                if (max > 0 && out.size() == max) {
                    return out;
                }
                if (next >= 0 && (nextEventMs < 0 || next < nextEventMs)) {
                    nextEventMs = next;
                }
                if (partitionEmptyUntil != null && next != 0) {
                    long hint = next < 0 ? EMPTY_HINT_MAX_MS : Math.min(next, EMPTY_HINT_MAX_MS);
                    partitionEmptyUntil.set(p, ticker.read() + TimeUnit.MILLISECONDS.toNanos(hint));
                }
            }
            if (!out.isEmpty()) {
                return out; // a batch poll took fewer than it may: it never waits to fill the batch
            }
            long now = ticker.read();
            if (answered) {
                unreachable = false;
            } else if (failure != null || unreachable) {
                // No partition answered: fail once that has lasted longer than retryOnConnectionLoss allows.
                if (!unreachable) {
                    unreachable = true;
                    unreachableSince = now;
                }
                if (failure != null && now - unreachableSince >= scripts.retryNanos()) {
                    throw failure;
                }
            }
            long remainingNanos = deadline - now;
            if (closed || remainingNanos <= 0) {
                return out;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("poll of queue '" + settings.name() + "' interrupted");
            }
            long waitMs = Math.min(ceilMillis(remainingNanos), recheckMillis);
            if (nextEventMs >= 0) {
                waitMs = Math.min(waitMs, nextEventMs);
            }
            if (partitionDownUntil != null) {
                for (int p = 0; p < keys.partitions(); p++) {
                    long until = partitionDownUntil.get(p);
                    if (until != 0) {
                        waitMs = Math.min(waitMs, ceilMillis(Math.max(0, until - now)));
                    }
                }
            }
            waitMs = Math.max(1, waitMs);
            if (waiterDownUntil - now > 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(waitMs, PROBE_INTERVAL_MS)));
                continue;
            }
            try {
                if (waiter.await(waitMs) && partitionEmptyUntil != null) {
                    // Someone made a message due: every partition may hold it.
                    for (int p = 0; p < keys.partitions(); p++) {
                        partitionEmptyUntil.set(p, 0);
                    }
                }
            } catch (RuntimeException e) {
                if (closed) {
                    return out;
                }
                // The signal's server is unreachable (restarting, or its Cluster master is down): wait on the
                // client instead for a while; the next pass over the partitions fails or retries as configured.
                waiterDownUntil = ticker.read() + PROBE_INTERVAL_NANOS;
                LOG.log(System.Logger.Level.DEBUG, () -> "queue '" + settings.name() + "': cannot wait for the "
                        + "wake-up signal (" + e + "); re-checking every " + PROBE_INTERVAL_MS + " ms meanwhile");
            }
        }
    }

    /** @return a delivery, or the milliseconds until the partition's next event (-1: none) */
    private Object pollPartition(int p) {
        while (true) {
            // Partitioned: one attempt, then the poll moves on (a down partition is retried on the next pass).
            // Concurrent pollers of this partition share one script call (a group commit), one message each.
            List<Object> r = batched("poll", partitionDownUntil == null ? scripts.retryNanos() : 0, polls[p],
                    new Call(), Script.POLL, p);
            reportLost(r);
            if ((Long) r.get(0) == 0L) {
                return r.get(1);
            }
            if ((Long) r.get(2) == 1L) {
                signal();
            }
            RedisDelivery<V> d = take(p, (byte[]) r.get(4), (byte[]) r.get(5));
            if (d != null) {
                return d;
            }
        }
    }

    /**
     * Turns a message poll.lua put in flight into a delivery, or buries it with kill.lua: a member whose META value
     * carries another sequence is stale (its id was offered again after Redis evicted its state; kill.lua counts it
     * lost), and a payload the codec cannot decode is that message's problem, not the queue's (it dies with the
     * codec's error as its reason).
     *
     * @param member the in-flight member {@code <seq as 16 hex digits><id>}
     * @param meta   its META value
     * @return the delivery, or null if the message was buried
     */
    private RedisDelivery<V> take(int p, byte[] member, byte[] meta) {
        String id = new String(member, 16, member.length - 16, StandardCharsets.UTF_8);
        Taken t = Taken.parse(meta);
        long receipt = Taken.hex(member, 0, 16); // the member's own sequence: what kill.lua must find in flight
        String reason;
        if (t.receipt() != receipt) {
            reason = "stale";
            LOG.log(System.Logger.Level.WARNING, () -> "queue '" + settings.name() + "' on " + connections.where()
                    + ": message '" + id + "' was offered again after Redis evicted its state; its old entry was "
                    + "dropped (counted in stats().lost()); set maxmemory-policy noeviction to keep every message");
        } else {
            try {
                return new RedisDelivery<>(this, p, id, settings.decode(t.payload()), t.attempt(), receipt);
            } catch (CodecException e) {
                reason = e.getMessage();
            }
        }
        scripts.run("poll", Script.KILL, keys.keys(p), maxAttemptsArg, arg(id), arg(receipt), arg(reason));
        return null;
    }

    /**
     * Takes up to {@code n} messages from partition p in one script call (no group commit), adding them to out.
     *
     * @return the milliseconds until the partition's next event (-1: none) if it had fewer than n due; 0 if it may
     *         have more (all n were taken)
     */
    private long pollPartition(int p, int n, List<Delivery<V>> out) {
        byte[][] args = {maxAttemptsArg, arg(SWEEP_LIMIT), visibilityArg, arg(n)};
        // Partitioned: one attempt, then the poll moves on (a down partition is retried on the next pass).
        List<Object> r = partitionDownUntil == null ? scripts.run("poll", Script.POLL, keys.keys(p), args)
                : scripts.runOnce("poll", Script.POLL, keys.keys(p), args);
        reportLost(r);
        long k = (Long) r.get(0);
        if ((Long) r.get(2) == 1L) {
            signal();
        }
        for (int i = 0; i < k; i++) {
            int at = 4 + 2 * i;
            RedisDelivery<V> d = take(p, (byte[]) r.get(at), (byte[]) r.get(at + 1));
            if (d != null) {
                out.add(d);
            }
        }
        return k < n ? (Long) r.get(1) : 0L;
    }

    boolean ack(int partition, String id, long receipt) {
        checkOpen();
        ScriptRunner.Reply<List<Object>> reply = batchedTracked("ack", scripts.retryNanos(), acks[partition],
                new Call(ackArgs(id, receipt)), Script.ACK, partition);
        ScriptRunner.Reply<Long> r = new ScriptRunner.Reply<>((Long) reply.value().get(0), reply.uncertain());
        // A retried ack that finds the message gone was almost surely done by its own first attempt, whose reply
        // was lost (a timeout, a paused or killed server): reporting false would claim the message is still
        // someone else's to process. (Had the visibility timeout passed and another consumer acked a redelivery
        // meanwhile, the message is gone all the same.)
        return r.value() == 1L || (r.value() == 2L && r.uncertain());
    }

    boolean nack(int partition, String id, long receipt, Duration retryDelay) {
        checkOpen();
        long delayMs = delayMillis(retryDelay);
        List<Object> r = scripts.run("nack", Script.NACK, keys.keys(partition), maxAttemptsArg, arg(id),
                arg(receipt), arg(delayMs));
        return flagsAndSignal(r);
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
        for (int p = 0; p < keys.partitions(); p++) {
            Long r = scripts.run("exists", Script.EXISTS, keys.keys(p), maxAttemptsArg);
            if (r != null && r > 0) {
                return true;
            }
        }
        return false;
    }

    @Override
    public QueueStats stats() {
        checkOpen();
        long delayed = 0;
        long ready = 0;
        long inFlight = 0;
        long dead = 0;
        long lost = 0;
        long nextDue = -1;
        for (int p = 0; p < keys.partitions(); p++) {
            List<Object> r = scripts.run("stats", Script.STATS, keys.keys(p), maxAttemptsArg, arg(SWEEP_LIMIT));
            delayed += (Long) r.get(0);
            ready += (Long) r.get(1);
            inFlight += (Long) r.get(2);
            dead += (Long) r.get(3);
            lost += (Long) r.get(5);
            long next = (Long) r.get(4);
            if (next >= 0 && (nextDue < 0 || next < nextDue)) {
                nextDue = next;
            }
        }
        return new QueueStats(delayed, ready, inFlight, dead, lost,
                nextDue < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(nextDue)));
    }

    @Override
    public List<DeadLetter> deadLetters(int limit) {
        checkOpen();
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        record Dated(DeadLetter letter, long diedAt, int partition) {
        }
        List<Dated> all = new ArrayList<>();
        for (int p = 0; p < keys.partitions(); p++) {
            List<Object> r = scripts.run("deadLetters", Script.DEAD_LIST, keys.keys(p), maxAttemptsArg,
                    arg(SWEEP_LIMIT), arg(limit));
            for (int i = 0; i < r.size(); i += 5) {
                Object payload = r.get(i + 1);
                all.add(new Dated(new DeadLetter(string(r.get(i)), payload instanceof byte[] b ? b : new byte[0],
                        Math.toIntExact((Long) r.get(i + 2)), string(r.get(i + 3))), (Long) r.get(i + 4), p));
            }
        }
        // Stable sort: within a partition the script's order (death time, then sequence) is kept.
        all.sort(Comparator.comparingLong(Dated::diedAt));
        return all.stream().limit(limit).map(Dated::letter).toList();
    }

    @Override
    public boolean requeueDead(String id) {
        checkOpen();
        settings.checkId(id);
        List<Object> r = scripts.run("requeueDead", Script.DEAD_REQUEUE, keys.keys(selector.partitionOf(id)),
                maxAttemptsArg, arg(id));
        return flagsAndSignal(r);
    }

    @Override
    public long purgeDead() {
        checkOpen();
        long total = 0;
        for (int p = 0; p < keys.partitions(); p++) {
            long n;
            do {
                n = scripts.<Long>run("purgeDead", Script.DEAD_PURGE, keys.keys(p), maxAttemptsArg, arg(PURGE_BATCH));
                total += n;
            } while (n == PURGE_BATCH);
        }
        return total;
    }

    @Override
    public String name() {
        return settings.name();
    }

    /** @return the partition count in use: the one stored with the queue (see {@link Builder#partitions(int)}) */
    public int partitions() {
        return keys.partitions();
    }

    /**
     * Deletes every key of this queue on Redis: all partitions' messages (delayed, ready, in flight and dead), its
     * counters, its wake-up signal and its stored partition count. Other clients of the queue then find it empty,
     * and the next client built creates it again. This client stays open. O(partitions) commands; each key is
     * deleted in O(its size), so a large queue blocks Redis for as long as {@code DEL} takes.
     *
     * @return how many keys existed and were deleted
     * @throws RedisQueueException if Redis fails
     */
    public long delete() {
        checkOpen();
        long deleted = 0;
        for (int p = 0; p < keys.partitions(); p++) {
            try {
                deleted += scripts.<Long>await(connections.commands().del(KeyLayout.allKeys(settings.name(), p)));
            } catch (RuntimeException e) {
                throw new RedisQueueException("queue '" + settings.name() + "' on " + connections.where()
                        + ": delete of partition " + p + " failed: " + e.getMessage(), e);
            }
        }
        return deleted;
    }

    /** @return how many times this queue sent {@code SCRIPT LOAD} (once per script, again after NOSCRIPT) */
    long scriptLoads() {
        return scripts.loads();
    }

    /** @return how many dedicated blocking connections are open */
    int blockingConnections() {
        return waiter.openConnections();
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
        waiter.close();
        connections.close();
    }

    @Override
    public String toString() {
        return "RedisDelayedQueue[" + settings.name() + " on " + connections.where() + ", " + keys.partitions()
                + " partition(s)]";
    }

    private void checkOpen() {
        if (closed) {
            throw settings.closedError();
        }
    }

    /** Reads a script's {added/moved/held, must signal} reply and pushes the signal if the script could not. */
    private boolean flagsAndSignal(List<Object> r) {
        if ((Long) r.get(1) == 1L) {
            signal();
        }
        return (Long) r.get(0) == 1L;
    }

    /**
     * Wakes one blocked poller, from a partition whose scripts cannot reach the signal key (Cluster only).
     * Coalesced per client: while one {@code signal.lua} call is in flight, further requests send one more call
     * once it completes, not one each. Every request is thus followed by a token pushed after the request was made
     * (a poller that takes the in-flight call's token polls again after the state that caused the request, or gets
     * the next token), so no wake-up is lost; a call in flight longer than {@link #SIGNAL_STALE_NANOS} no longer
     * holds back new ones.
     */
    private void signal() {
        while (!closed) {
            int state = signalState.get();
            if (state == SIGNAL_IDLE || ticker.read() - signalSentAt > SIGNAL_STALE_NANOS) {
                if (signalState.compareAndSet(state, SIGNAL_IN_FLIGHT)) {
                    sendSignal();
                    return;
                }
            } else if (state == SIGNAL_IN_FLIGHT) {
                if (signalState.compareAndSet(SIGNAL_IN_FLIGHT, SIGNAL_AGAIN)) {
                    signalsCoalesced.increment();
                    return;
                }
            } else {
                signalsCoalesced.increment();
                return; // SIGNAL_AGAIN: a call after the in-flight one is already promised
            }
        }
    }

    private void sendSignal() {
        signalSentAt = ticker.read();
        signalsSent.increment();
        CompletionStage<Object> sent;
        try {
            sent = scripts.fireAndForget(Script.SIGNAL, new byte[][] {keys.signalKey()});
        } catch (RuntimeException e) {
            signalState.set(SIGNAL_IDLE);
            LOG.log(System.Logger.Level.DEBUG, () -> "queue '" + settings.name() + "': signal failed: " + e);
            return;
        }
        sent.whenComplete((r, e) -> {
            if (!signalState.compareAndSet(SIGNAL_IN_FLIGHT, SIGNAL_IDLE) && !closed) {
                signalState.set(SIGNAL_IN_FLIGHT); // SIGNAL_AGAIN: requested while this one was in flight
                sendSignal();
            }
        });
    }

    /**
     * Logs the messages a poll reply says were lost: found with part of their state evicted by Redis, dropped and
     * counted (see {@link Builder#allowEvictingServer()}). Rare, so each occurrence is a warning.
     */
    private void reportLost(List<Object> pollReply) {
        long lost = (Long) pollReply.get(3);
        if (lost > 0) {
            LOG.log(System.Logger.Level.WARNING, () -> "queue '" + settings.name() + "' on " + connections.where()
                    + ": " + lost + " message(s) found with part of their state evicted by Redis were dropped "
                    + "(counted in stats().lost()); set maxmemory-policy noeviction to keep every message");
        }
    }

    /** @return wake-up signals this client sent with {@code signal.lua}, and requests folded into those */
    long[] signalCounts() {
        return new long[] {signalsSent.sum(), signalsCoalesced.sum()};
    }

    /** Checks a delay with the shared rules and rounds it up to whole milliseconds, so nothing is early. */
    private long delayMillis(Duration delay) {
        // The shared check and message; its nanosecond result saturates beyond ~292 years, so count from delay.
        if (settings.delayNanos(delay) == 0) {
            return 0;
        }
        return delay.toMillis() + (delay.toNanosPart() % 1_000_000 > 0 ? 1 : 0);
    }

    private static long ceilMillis(long nanos) {
        return nanos / 1_000_000 + (nanos % 1_000_000 > 0 ? 1 : 0);
    }

    private static long saturatedNanos(Duration d) {
        if (d.isNegative()) {
            return 0;
        }
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    private static byte[] arg(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] arg(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(Object bulk) {
        return bulk instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(bulk);
    }

    /**
     * Builds a {@link RedisDelayedQueue}. Not thread-safe. Each option may be set once; bad values fail at once,
     * naming the option and its range.
     *
     * @param <V> the value type
     */
    public static final class Builder<V> extends DelayedQueueBuilder<V, Builder<V>> {

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

        private final java.util.function.Function<Duration, Connections> connect;
        private final String where;
        private int partitions;
        private Duration connectTimeout;
        private Duration commandTimeout;
        private Duration retryFor;
        private Duration recheckInterval;
        private Ticker ticker;
        private boolean allowEvictingServer;
        private boolean openExisting;

        private Builder(java.util.function.Function<Duration, Connections> connect, String where, String name,
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
        public Builder<V> partitions(int partitions) {
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
        public Builder<V> connectTimeout(Duration timeout) {
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
        public Builder<V> commandTimeout(Duration timeout) {
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
        public Builder<V> retryOnConnectionLoss(Duration retryFor) {
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
        public Builder<V> recheckInterval(Duration interval) {
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
        public Builder<V> ticker(Ticker ticker) {
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
        public Builder<V> allowEvictingServer() {
            checkUnset(allowEvictingServer, "allowEvictingServer");
            allowEvictingServer = true;
            return this;
        }

        /**
         * Makes {@link #build()} fail with {@link QueueNotFoundException}, writing nothing, if no client ever
         * created the queue on this server; for operators' tools, where a mistyped name must not create a queue.
         *
         * @return this builder
         */
        public Builder<V> openExisting() {
            checkUnset(openExisting, "openExisting");
            openExisting = true;
            return this;
        }

        /**
         * Connects, checks the server and the queue's stored partition count, and returns the queue.
         *
         * @return the queue
         * @throws RedisQueueException    if Redis cannot be reached, or its {@code maxmemory-policy} may evict keys
         *                                (see {@link #allowEvictingServer()})
         * @throws IllegalStateException  if {@link #partitions(int)} differs from the count stored with the queue
         * @throws QueueNotFoundException with {@link #openExisting()}, if the queue does not exist
         */
        public RedisDelayedQueue<V> build() {
            connectTimeout = connectTimeout != null ? connectTimeout : DEFAULT_CONNECT_TIMEOUT;
            commandTimeout = commandTimeout != null ? commandTimeout : DEFAULT_COMMAND_TIMEOUT;
            retryFor = retryFor != null ? retryFor : Duration.ZERO;
            recheckInterval = recheckInterval != null ? recheckInterval : DEFAULT_RECHECK_INTERVAL;
            ticker = ticker != null ? ticker : Ticker.system();
            QueueSettings<V> s = frozen();
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
                return new RedisDelayedQueue<>(this, c, scripts, stored);
            } catch (RuntimeException e) {
                c.close();
                throw e;
            }
        }

        private QueueSettings<V> frozen() {
            return settings(null, null);
        }

        private static Duration checkRange(String option, Duration value, Duration min) {
            if (value.compareTo(min) < 0 || value.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException(option + " must be in [" + min + ", " + MAX_TIMEOUT + "], was "
                        + value);
            }
            return value;
        }
    }
}

package io.clockwork.inprocess;

import io.clockwork.queue.Codec;
import io.clockwork.queue.CodecException;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import io.clockwork.time.Nanos;
import io.clockwork.queue.spi.QueueSupport;

import io.clockwork.time.Ticker;
import io.clockwork.engine.MpscInbox;
import io.clockwork.engine.TimingWheel;
import io.clockwork.engine.NodeTable;
import io.clockwork.engine.WheelEntry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongPredicate;

/**
 * The embedded {@link DelayedQueue}: messages wait in this JVM's heap, timed by the timing-wheel engine. Thread-safe.
 *
 * <h2>Design</h2>
 * One lock guards the structures; every operation is O(1) or O(log n), never a scan of the backlog.
 * <ul>
 *   <li><b>Producers do not wait for the lock.</b> An offer (of values, or of {@link Message}s without an id or
 *       with {@link Message.Conflict#KEEP}: a replace or an extend of an existing id is settled under the lock)
 *       registers its messages under their ids (the identity table below is concurrent) with a due time from its own
 *       ticker reading, and a {@link #cancel} ends the message's life with one CAS on its claim word and frees its id,
 *       all without the lock. Only the filing into the wheel (or the unlinking) needs the lock, and that is only tried:
 *       if the lock is free the producer does it there, briefly; if it is held (a consumer working through an expiry
 *       storm, say) the producer hands the message over through a lock-free inbox ({@link MpscInbox}, one stripe, so
 *       messages are filed in the order their offers took effect, and a batch in one step), or the cancelled one
 *       through a queue of its own. Whoever holds the lock next files what the inbox holds and unlinks what was
 *       cancelled, before anything else, so every operation under the lock (but a producer's filing of its own message)
 *       sees every offer and cancel that returned before it began; a consumer does it again after its promotion, so
 *       that what producers handed over meanwhile falls to the consumer. A producer that finds the lock free takes in
 *       at most {@value #PRODUCER_HAND_OVER_LIMIT} of them and files its own message behind the rest, so its call stays
 *       short however long a consumer held the lock (a storm's slice, or a time slice the OS took from it). The claim
 *       word settles the races with the lock holder: acking, killing and cancelling a message each CAS it from live, so
 *       exactly one of them wins; a poll does not deliver a message that is no longer live. A producer wakes a sleeping
 *       poll only if its message falls due before the earliest time a sleeper has published it will wake (a Dekker
 *       pair: the producer publishes its message, then reads the sleepers; a sleeper publishes itself, then looks at
 *       the inbox), so the common offer pays no lock at all.</li>
 *   <li><b>When</b> is the engine's job: the message itself is a {@link WheelEntry}, filed while delayed in the
 *       engine's {@link TimingWheel} of due times and while in flight in a second wheel of visibility deadlines
 *       (1 ms tick each). Every operation first advances both to the ticker's reading, which promotes due messages
 *       to ready and returns timed-out deliveries, in a bounded slice (moving a million messages down the wheel,
 *       or to ready, is spread over the operations that follow, consumers taking larger slices than producers, and
 *       a poll that finds nothing ready while a slice is left lets the lock go between slices; {@link #stats()}
 *       promotes all), so the queue needs no thread: a blocked {@link #poll} sleeps
 *       until the wheels' next event, a new offer that falls due earlier, or a jump of the ticker
 *       ({@link Ticker#watch}). The due-time wheel is the only index of delayed messages: it answers
 *       {@link QueueStats#nextDueIn()} exactly from its earliest bucket ({@link TimingWheel#earliest()}).</li>
 *   <li><b>Order</b> of ready messages is by due time to the tick (1 ms, as Redis's scores are to the millisecond)
 *       and, within a tick, by sequence number, which is offer order: a {@link ReadyOrder}, where messages that
 *       become ready in that order (nearly all: the wheel hands them over tick by tick, in filing order) cost O(1)
 *       and no allocation.</li>
 *   <li><b>Identity</b>: a hash table from id to message ({@link NodeTable}: the message is its own node, so an
 *       id costs no map entry beside it) serves cancel, reschedule, dedup and the dead-letter operations. A
 *       {@link Delivery} carries a token that the message forgets when it is acked, nacked, cancelled, rescheduled,
 *       killed or delivered again, so stale receipts fail instead of touching someone else's delivery.</li>
 * </ul>
 * Without a codec values are kept by reference (no copy, no size limit, and dead letters carry an empty payload;
 * see {@link Builder}); with one they are encoded on offer, with Redis's size limit, and decoded on poll outside the
 * lock, and a value that cannot be decoded goes to the dead letters with the codec's error as its reason, as on
 * Redis. After {@link #close()}, every operation but {@link #name()} and {@code close()} throws, a
 * {@link Delivery}'s {@code ack} and {@code nack} included.
 *
 * @param <V> the type of the message values
 */
public final class InMemoryDelayedQueue<V> implements DelayedQueue<V> {

    /** The wheel's tick: deliveries are at most this late (plus the caller's scheduling latency). */
    static final long TICK_NANOS = 1_000_000L;
    private static final int WHEEL_SIZE = 64;
    /**
     * Messages each wheel hands over per operation at most: when a million fall due at once, each operation under
     * the lock promotes a slice of them, so no producer or consumer waits for the whole storm.
     */
    static final int ADVANCE_LIMIT = 1024;
    /**
     * The slice an offer or a cancel takes instead: a storm's promotion falls mostly on the consumers that want its
     * messages, and a producer's operation stays short (it waits at most for one consumer's slice).
     */
    static final int PRODUCER_ADVANCE_LIMIT = 64;
    /**
     * The hand-overs (offers and cancels each) a producer that finds the lock free files or unlinks at most: after a
     * consumer held the lock for a while (a storm's slice, or a time slice the OS or the host took from it), the
     * inbox holds everything producers handed over meanwhile, and the producer that gets the lock next files a slice
     * of it, not all, and leaves the rest to the consumers, which take every hand-over.
     */
    static final int PRODUCER_HAND_OVER_LIMIT = 256;
    private static final AtomicLong QUEUE_NUMBER = new AtomicLong();
    private static final byte[] NO_PAYLOAD = new byte[0];
    /** Delivery order: by due tick (rounded as the wheel rounds: a tick's messages leave together), then sequence. */
    private static final Comparator<Item> BY_DUE_TICK_THEN_SEQUENCE =
            Comparator.<Item>comparingLong(m -> tickOf(m.due)).thenComparingLong(m -> m.sequence);

    private final QueueSupport<V> settings;
    private final Codec<V> codec;
    private final Ticker ticker;
    private final long visibilityNanos;
    private final GeneratedIds generatedIds = new GeneratedIds();

    private final ReentrantLock lock = new ReentrantLock();
    /** Messages offered without the lock, in the order their offers took effect; filed by the next lock holder. */
    private final MpscInbox<Item> offers = new MpscInbox<>(1);
    /** Messages cancelled without the lock (their claim already ended); unlinked by the next lock holder. */
    private final ConcurrentLinkedQueue<Item> cancels = new ConcurrentLinkedQueue<>();
    /** Polls asleep on {@link #changed}, as producers without the lock see them. */
    private final Sleepers sleepers = new Sleepers();
    /** Signalled when a message may have become ready, the next event moved earlier, time moved, or on close. */
    private final Condition changed = lock.newCondition();
    private final Ticker.Watch watch;

    // All below guarded by lock.
    /** Delayed messages by due time. */
    private final TimingWheel<Item> dueTimes;
    /** In-flight messages by visibility deadline. */
    private final TimingWheel<Item> visibility;
    private final Consumer<Item> onDeadline = this::onDeadline;
    private final Consumer<Item> fileOffered = this::fileOffered;
    /**
     * Offers taken from the inbox but not yet filed (a producer's drain files {@link #PRODUCER_HAND_OVER_LIMIT} at
     * most), in the order their offers took effect: filed before anything the inbox still holds. Guarded by the lock.
     */
    private final ArrayDeque<Item> takenOffers = new ArrayDeque<>();
    private final Consumer<Item> keepOffered = takenOffers::add;
    /** The ticker reading of the current {@link #advance}, for {@link #fileOffered}. */
    private long settleNow;
    private final ItemsById byId = new ItemsById();
    private final ReadyOrder<Item> ready = new ReadyOrder<>(BY_DUE_TICK_THEN_SEQUENCE);
    /** Insertion order is death order, so iteration lists the oldest first. */
    private final LinkedHashSet<Item> dead = new LinkedHashSet<>();
    private long delayed;
    private long inFlight;
    private long sequence;
    private long tokens;
    /** Dead letters removed by the retention. */
    private long trimmed;
    /** Cumulative event counts, see {@link QueueCounters}. */
    private long offeredCount;
    private long deliveredCount;
    private long ackedCount;
    private long retriedCount;
    private long deadCount;
    private volatile boolean closed;

    private InMemoryDelayedQueue(QueueSupport<V> settings, Ticker ticker) {
        this.settings = settings;
        this.codec = settings.options().codec();
        this.ticker = ticker;
        this.visibilityNanos = settings.options().visibilityTimeout().toNanos();
        long origin = ticker.read();
        this.dueTimes = new TimingWheel<>(TICK_NANOS, WHEEL_SIZE, origin);
        this.visibility = new TimingWheel<>(TICK_NANOS, WHEEL_SIZE, origin);
        this.watch = ticker.watch(this::wakeAll);
    }

    /**
     * Starts a builder.
     *
     * @param <V> the value type
     * @return a builder with the defaults of {@link DelayedQueueBuilder}, no codec and the system ticker
     */
    public static <V> Builder<V> builder() {
        return new Builder<>();
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process this does not wait for the queue's lock: see "Producers do not wait for the lock" above.
     */
    @Override
    public String offer(V value, Duration delay) {
        Objects.requireNonNull(value, "value");
        long delayNanos = settings.delay(delay).nanos();
        Object payload = encode(value);
        checkOpen();
        long now = ticker.read();
        Item m = register(null, payload, Map.of(), due(now, delayNanos));
        settle(m, now);
        return m.id;
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process this does not wait for the queue's lock: see "Producers do not wait for the lock" above.
     */
    @Override
    public boolean offer(String id, V value, Duration delay) {
        settings.checkId(id);
        Objects.requireNonNull(value, "value");
        long delayNanos = settings.delay(delay).nanos();
        Object payload = encode(value);
        checkOpen();
        long now = ticker.read();
        Item m = register(id, payload, Map.of(), due(now, delayNanos));
        if (m == null) {
            return false;
        }
        settle(m, now);
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process the batch is atomic: every message is added under one lock acquisition, or, if the lock is held,
     * handed over in one step (see "Producers do not wait for the lock" above), so no poll sees part of it.
     */
    @Override
    public List<String> offerAll(List<? extends V> values, Duration delay) {
        Objects.requireNonNull(values, "values");
        Object[] given = values.toArray();
        QueueSupport.checkBatch("values", given.length);
        long delayNanos = settings.delay(delay).nanos();
        Object[] payloads = encodeAll(given, "values");
        List<String> ids = new ArrayList<>(given.length);
        checkOpen();
        long now = ticker.read();
        long due = due(now, delayNanos);
        Item[] items = new Item[payloads.length];
        for (int i = 0; i < items.length; i++) {
            items[i] = register(null, payloads[i], Map.of(), due);
            ids.add(items[i].id);
        }
        settle(items, items.length, due, now);
        return ids;
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process the batch is atomic: every message is added under one lock acquisition, or, if the lock is held,
     * handed over in one step (see "Producers do not wait for the lock" above).
     */
    @Override
    public List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        Objects.requireNonNull(messages, "messages");
        QueueSupport.checkBatch("messages", messages.size());
        long delayNanos = settings.delay(delay).nanos();
        String[] ids = new String[messages.size()];
        Object[] given = new Object[messages.size()];
        int i = 0;
        for (Map.Entry<String, ? extends V> e : messages.entrySet()) {
            if (i == ids.length) {
                throw new java.util.ConcurrentModificationException("messages grew while being read");
            }
            ids[i] = settings.checkId(e.getKey());
            given[i++] = Objects.requireNonNull(e.getValue(), () -> "messages[" + e.getKey() + "]");
        }
        Object[] payloads = encodeAll(given, "messages");
        List<String> added = new ArrayList<>(ids.length);
        checkOpen();
        long now = ticker.read();
        long due = due(now, delayNanos);
        Item[] items = new Item[ids.length];
        int count = 0;
        for (int j = 0; j < ids.length; j++) {
            Item m = register(ids[j], payloads[j], Map.of(), due);
            if (m != null) {
                items[count++] = m;
                added.add(ids[j]);
            }
        }
        if (count > 0) {
            settle(items, count, due, now);
        }
        return added;
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process this does not wait for the queue's lock unless it may replace or extend a message already there
     * (an id with {@link Message.Conflict#REPLACE} or {@link Message.Conflict#EXTEND}): see "Producers do not wait for
     * the lock" above.
     */
    @Override
    public Offered offer(Message<? extends V> message) {
        Objects.requireNonNull(message, "message");
        long delayNanos = settings.delay(message.delay()).nanos();
        Object payload = encode(message.value());
        if (!mayConflict(message)) {
            checkOpen();
            long now = ticker.read();
            Item m = register(message.id().orElse(null), payload, message.headers(), due(now, delayNanos));
            if (m == null) {
                return new Offered(message.id().orElseThrow(), Offered.Outcome.KEPT);
            }
            settle(m, now);
            return new Offered(m.id, Offered.Outcome.ADDED);
        }
        lock.lock(); // a replace or an extend of a message that may be there is settled under the lock
        try {
            checkOpen();
            return offerLocked(message, payload, delayNanos);
        } finally {
            lock.unlock();
        }
    }

    /** @return whether the message may change one already in the queue (a replace or extend of a caller's id) */
    private static boolean mayConflict(Message<?> message) {
        return message.id().isPresent() && message.onConflict() != Message.Conflict.KEEP;
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process the batch is atomic: every message is offered under one lock acquisition, or, if the lock is held
     * and no message can change one already in the queue (each has no id or {@link Message.Conflict#KEEP}), handed
     * over in one step.
     */
    @Override
    public List<Offered> offerAll(List<? extends Message<? extends V>> messages) {
        Objects.requireNonNull(messages, "messages");
        Object[] given = messages.toArray();
        QueueSupport.checkBatch("messages", given.length);
        Object[] payloads = new Object[given.length];
        long[] delays = new long[given.length];
        for (int i = 0; i < given.length; i++) {
            int index = i;
            Message<?> m = (Message<?>) Objects.requireNonNull(given[i], () -> "messages[" + index + "]");
            delays[i] = settings.delay(m.delay()).nanos();
            @SuppressWarnings("unchecked")
            V value = (V) m.value();
            payloads[i] = encode(value);
        }
        List<Offered> result = new ArrayList<>(given.length);
        boolean conflicts = false;
        for (Object m : given) {
            conflicts |= mayConflict((Message<?>) m);
        }
        if (!conflicts) {
            checkOpen();
            settleAll(given, payloads, delays, result);
            return result;
        }
        lock.lock(); // a replace or an extend in the batch: the whole batch is settled under the lock
        try {
            checkOpen();
            for (int i = 0; i < given.length; i++) {
                result.add(offerLocked((Message<?>) given[i], payloads[i], delays[i]));
            }
            return result;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Offers a batch of messages that cannot change one already in the queue (no id, or {@link Message.Conflict#KEEP}):
     * registers each (a taken id is kept, as under the lock) and settles those added in one step.
     */
    private void settleAll(Object[] given, Object[] payloads, long[] delays, List<Offered> result) {
        long now = ticker.read();
        Item[] items = new Item[given.length];
        int count = 0;
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < given.length; i++) {
            Message<?> message = (Message<?>) given[i];
            Item m = register(message.id().orElse(null), payloads[i], message.headers(), due(now, delays[i]));
            if (m == null) {
                result.add(new Offered(message.id().orElseThrow(), Offered.Outcome.KEPT));
            } else {
                items[count++] = m;
                earliest = Math.min(earliest, m.due);
                result.add(new Offered(m.id, Offered.Outcome.ADDED));
            }
        }
        if (count > 0) {
            settle(items, count, earliest, now);
        }
    }

    /** Offers one checked and encoded message; the lock is held and the queue open. */
    private Offered offerLocked(Message<?> message, Object payload, long delayNanos) {
        Map<String, String> headers = message.headers();
        String id = message.id().orElse(null);
        Message.Conflict policy = message.onConflict();
        Item m;
        long now;
        while (true) {
            Item added = add(id, payload, headers, delayNanos);
            if (added != null) {
                return new Offered(added.id, Offered.Outcome.ADDED);
            }
            now = ticker.read(); // no advance from here on: it would unlink what a cancel without the lock ends
            m = byId.find(id);
            if (m == null) {
                continue; // cancelled without the lock since the add: the id is free now
            }
            int claim = (int) CLAIM.getVolatile(m);
            if (claim == BURIED) {
                return new Offered(id, policy == Message.Conflict.KEEP ? Offered.Outcome.KEPT : Offered.Outcome.DEAD);
            }
            if (claim == LIVE) {
                break;
            }
            byId.remove(m); // acked or cancelled, its id not yet freed
        }
        if (policy == Message.Conflict.KEEP) {
            return new Offered(id, Offered.Outcome.KEPT);
        }
        if (m.state == State.IN_FLIGHT) {
            return new Offered(id, Offered.Outcome.IN_FLIGHT);
        }
        detach(m);
        m.token = 0; // as for reschedule: an earlier, timed-out delivery no longer holds it
        offeredCount++;
        if (policy == Message.Conflict.REPLACE) {
            m.payload = payload;
            m.headers = headers;
        }
        schedule(m, delayNanos, now);
        return new Offered(id, policy == Message.Conflict.REPLACE ? Offered.Outcome.REPLACED
                : Offered.Outcome.EXTENDED);
    }

    /**
     * Registers a new message under its id, so that it is known to every id operation from now on; it is filed
     * separately. Any thread.
     *
     * @param id  the caller's id, or null for a generated one
     * @param due its due time in wheel time
     * @return the message, or null if the id is taken
     */
    private Item register(String id, Object payload, Map<String, String> headers, long due) {
        boolean generated = id == null;
        while (true) {
            // A caller's own id may look like a generated one; skip those instead of failing the offer.
            Item m = new Item(generated ? generatedIds.next() : id, payload, headers);
            m.due = due;
            Item holder = byId.putIfAbsent(m);
            if (holder == null) {
                return m;
            }
            if ((int) CLAIM.getVolatile(holder) == LEAVING) {
                byId.remove(holder); // acked or cancelled, its id not yet freed: free it and try again
            } else if (!generated) {
                return null;
            }
        }
    }

    /**
     * Files a message this thread has just registered: under the lock if it is free (after what the inbox holds, so
     * filing order stays the order offers took effect), else through the inbox. The lock is held only for the filing:
     * the id, the message and its place in the id table were made before, so a busy producer leaves the lock to the
     * consumers for longer. Any thread, without the lock.
     *
     * @param now the ticker reading the message's due time was computed from, which the wheels are advanced to (a
     *            reading another thread has already passed advances nothing; the wheels never go back)
     */
    private void settle(Item m, long now) {
        if (!lock.tryLock()) {
            handOver(m);
            return;
        }
        try {
            advance(PRODUCER_ADVANCE_LIMIT, now, PRODUCER_HAND_OVER_LIMIT);
            if (takenOffers.isEmpty()) {
                fileRegistered(m, now);
            } else {
                takenOffers.add(m); // behind the offers that took effect before it
                fileAllIfSleepersMayOversleep(m.due, now);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * As {@link #settle(Item, long)} for the first {@code count} of {@code items}, at once; {@code due}: the earliest.
     */
    private void settle(Item[] items, int count, long due, long now) {
        if (!lock.tryLock()) {
            handOver(items, count, due);
            return;
        }
        try {
            advance(PRODUCER_ADVANCE_LIMIT, now, PRODUCER_HAND_OVER_LIMIT);
            for (int i = 0; i < count; i++) {
                if (takenOffers.isEmpty()) {
                    fileRegistered(items[i], now);
                } else {
                    takenOffers.add(items[i]);
                }
            }
            if (!takenOffers.isEmpty()) {
                fileAllIfSleepersMayOversleep(due, now);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Files everything handed over if a sleeping poll might otherwise sleep past {@code due}: a producer that leaves
     * its message among {@link #takenOffers} has not filed it, so filing does not signal the sleepers it concerns.
     * The lock is held.
     */
    private void fileAllIfSleepersMayOversleep(long due, long now) {
        if (sleepers.mayOversleep(due)) {
            takeHandOvers(now, Integer.MAX_VALUE);
        }
    }

    /**
     * Hands a message registered without the lock to the next lock holder, and wakes a sleeping poll if none is
     * sure to wake before the message falls due. Any thread, without the lock.
     */
    private void handOver(Item m) {
        offers.offer(m); // a CAS: a full fence, before the read of the sleepers (see Sleepers)
        wakeIfDueBeforeSleepers(m.due);
    }

    /** As {@link #handOver(Item)} for the first {@code count} of {@code items} at once; {@code due}: the earliest. */
    private void handOver(Item[] items, int count, long due) {
        offers.offerAll(items, count); // a CAS, as above
        wakeIfDueBeforeSleepers(due);
    }

    /** The producer's half of the wake-up pair: called after its message is in the inbox. */
    private void wakeIfDueBeforeSleepers(long due) {
        if (sleepers.mayOversleep(due)) {
            lock.lock();
            try {
                if (!closed) {
                    advance(PRODUCER_ADVANCE_LIMIT); // files it, signalling the sleepers it concerns
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** @return the due time, in wheel time, of a message offered at ticker reading {@code now}; any thread */
    private long due(long now, long delayNanos) {
        return saturatedAdd(dueTimes.elapsed(now), delayNanos);
    }

    @SuppressWarnings("unchecked")
    private Object[] encodeAll(Object[] values, String argument) {
        Object[] payloads = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            int index = i;
            Objects.requireNonNull(values[i], () -> argument + "[" + index + "]");
            payloads[i] = encode((V) values[i]);
        }
        return payloads;
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process this does not wait for the queue's lock: see "Producers do not wait for the lock" above.
     */
    @Override
    public boolean cancel(String id) {
        settings.checkId(id);
        checkOpen();
        while (true) {
            Item m = findLive(id);
            if (m == null) {
                return false;
            }
            if (end(m, LEAVING)) {
                byId.remove(m);
                unlinkCancelled(m);
                return true;
            }
            // it ended meanwhile (acked, dead or cancelled by someone else): look again
        }
    }

    /**
     * Unlinks a message this thread has just cancelled (its claim ended, its id freed): under the lock if it is free,
     * else through the cancels queue, which the next lock holder drains. Any thread, without the lock.
     */
    private void unlinkCancelled(Item m) {
        if (!lock.tryLock()) {
            cancels.add(m);
            return;
        }
        try {
            advance(PRODUCER_ADVANCE_LIMIT, ticker.read(), PRODUCER_HAND_OVER_LIMIT);
            unlinkGone(m);
        } finally {
            lock.unlock();
        }
    }

    /** Unlinks a cancelled message from wherever it is filed; the lock is held. */
    private void unlinkGone(Item m) {
        if (m.state != State.NEW && m.state != State.GONE) { // NEW: the inbox drain drops it; GONE: already out
            detach(m);
            m.state = State.GONE;
            m.token = 0;
        }
    }

    /**
     * The live message of an id; any thread. A message whose life ended but whose id is not yet freed (an ack or
     * cancel on its way) has its id freed here, so that no caller sees that moment.
     *
     * @return the delayed, ready or in-flight message of this id (or one being offered), null if none
     */
    private Item findLive(String id) {
        while (true) {
            Item m = byId.find(id);
            if (m == null) {
                return null;
            }
            int claim = (int) CLAIM.getVolatile(m);
            if (claim == LIVE) {
                return m;
            }
            if (claim == BURIED) {
                return null;
            }
            byId.remove(m);
        }
    }

    /**
     * Whether a message with this id is live: delayed, ready or in flight (not dead, acked, cancelled or unknown).
     * A fixed-delay schedule ({@link io.clockwork.schedule.InMemorySchedules}) asks it to learn that its previous
     * occurrence finished.
     *
     * @param id the message id
     * @return true if the message is delayed, ready or in flight
     * @throws IllegalArgumentException if the id could never be offered (as for {@link #cancel})
     */
    public boolean holds(String id) {
        settings.checkId(id);
        lock.lock();
        try {
            checkOpen();
            advance();
            return findLive(id) != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean reschedule(String id, Duration delay) {
        settings.checkId(id);
        long delayNanos = settings.delay(delay).nanos();
        lock.lock();
        try {
            checkOpen();
            long now = advance();
            Item m = findLive(id);
            if (m == null || m.state == State.IN_FLIGHT) {
                return false;
            }
            detach(m);
            m.token = 0; // a late ack of an earlier, timed-out delivery must not remove the rescheduled message
            schedule(m, delayNanos, now);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process one message costs one lock acquisition and, without a codec, one allocation: the receipt.
     */
    @Override
    public Delivery<V> poll(Duration wait) throws InterruptedException {
        Objects.requireNonNull(wait, "wait");
        long waitNanos = wait.isNegative() ? 0L : Nanos.saturated(wait);
        long start = ticker.read();
        boolean firstPass = true;
        while (true) {
            Item m;
            long token;
            int attempt;
            Object payload;
            Map<String, String> headers;
            lock.lockInterruptibly();
            try {
                if (closed) {
                    if (firstPass) {
                        throw settings.closedError();
                    }
                    return null;
                }
                m = awaitReady(start, waitNanos, firstPass);
                firstPass = false;
                if (m == null) {
                    return null;
                }
                token = m.token;
                attempt = m.attempts;
                payload = m.payload;
                headers = m.headers;
            } finally {
                lock.unlock();
            }
            Receipt r = receipt(m, token, payload, attempt, headers);
            if (r != null) {
                return r;
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process the messages are taken under one lock acquisition; values are decoded outside it.
     */
    @Override
    @SuppressWarnings("unchecked")
    public List<Delivery<V>> poll(int maxMessages, Duration wait) throws InterruptedException {
        QueueSupport.checkMaxMessages(maxMessages);
        Objects.requireNonNull(wait, "wait");
        long waitNanos = wait.isNegative() ? 0L : Nanos.saturated(wait);
        long start = ticker.read();
        boolean firstPass = true;
        while (true) {
            List<Item> taken = new ArrayList<>(Math.min(maxMessages, 64));
            long[] tokens;
            int[] attempts;
            Object[] payloads;
            Object[] headers;
            lock.lockInterruptibly();
            try {
                if (closed) {
                    // Closed before this call: misuse. Closed while it waited: the promised prompt empty answer.
                    if (firstPass) {
                        throw settings.closedError();
                    }
                    return new ArrayList<>();
                }
                Item m = awaitReady(start, waitNanos, firstPass);
                firstPass = false;
                if (m == null) {
                    return new ArrayList<>();
                }
                taken.add(m);
                long now = advance();
                while (taken.size() < maxMessages && (m = takeReady(now)) != null) {
                    taken.add(m);
                }
                tokens = new long[taken.size()];
                attempts = new int[taken.size()];
                payloads = new Object[taken.size()];
                headers = new Object[taken.size()];
                for (int i = 0; i < tokens.length; i++) {
                    tokens[i] = taken.get(i).token;
                    attempts[i] = taken.get(i).attempts;
                    payloads[i] = taken.get(i).payload;
                    headers[i] = taken.get(i).headers;
                }
            } finally {
                lock.unlock();
            }
            // Decoding runs outside the lock so that a slow codec does not stall other consumers and producers; the
            // messages are in flight meanwhile, so nobody else takes them.
            List<Delivery<V>> deliveries = new ArrayList<>(taken.size());
            for (int i = 0; i < taken.size(); i++) {
                Receipt r = receipt(taken.get(i), tokens[i], payloads[i], attempts[i],
                        (Map<String, String>) headers[i]);
                if (r != null) {
                    deliveries.add(r);
                }
            }
            if (!deliveries.isEmpty()) {
                return deliveries;
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process every delivery is acked under one lock acquisition.
     */
    @Override
    public List<Boolean> ackAll(List<? extends Delivery<V>> deliveries) {
        Objects.requireNonNull(deliveries, "deliveries");
        Object[] given = deliveries.toArray();
        QueueSupport.checkBatch("deliveries", given.length);
        for (int i = 0; i < given.length; i++) {
            int index = i;
            Objects.requireNonNull(given[i], () -> "deliveries[" + index + "]");
            if (!(given[i] instanceof InMemoryDelayedQueue<?>.Receipt r) || r.owner() != this) {
                throw new IllegalArgumentException("deliveries[" + i + "] is not a delivery of queue '" + name()
                        + "': " + given[i]);
            }
        }
        List<Boolean> result = new ArrayList<>(given.length);
        lock.lock();
        try {
            checkOpen();
            advance();
            for (Object o : given) {
                @SuppressWarnings("unchecked")
                Receipt r = (Receipt) o;
                result.add(r.ackLocked());
            }
            return result;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process the counters are plain fields under the queue's lock, read in one snapshot.
     */
    @Override
    public Optional<QueueCounters> counters() {
        lock.lock();
        try {
            checkOpen();
            advance(); // expiries that are due count as retried or dead, as the next operation would find them
            return Optional.of(new QueueCounters(offeredCount, deliveredCount, ackedCount, retriedCount, deadCount));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public QueueStats stats() {
        lock.lock();
        try {
            checkOpen();
            long now = advance(Integer.MAX_VALUE); // counts are exact: everything due is ready
            Item first = dueTimes.earliest();
            Optional<Duration> nextDueIn = first == null ? Optional.empty()
                    : Optional.of(Duration.ofNanos(Math.max(0L, first.due - dueTimes.elapsed(now))));
            trimDead(now);
            return new QueueStats(delayed, ready.size(), inFlight, dead.size(), 0, nextDueIn, trimmed);
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Without a codec the queue holds values by reference and has no bytes to show: payloads are empty.
     */
    @Override
    public List<DeadLetter> deadLetters(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        lock.lock();
        try {
            checkOpen();
            trimDead(advance());
            List<DeadLetter> letters = new ArrayList<>(Math.min(limit, dead.size()));
            for (Item m : dead) {
                if (letters.size() == limit) {
                    break;
                }
                byte[] payload = codec == null ? NO_PAYLOAD : (byte[]) m.payload;
                letters.add(new DeadLetter(m.id, payload, m.attempts, m.error, m.headers));
            }
            return letters;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean requeueDead(String id) {
        settings.checkId(id);
        lock.lock();
        try {
            checkOpen();
            long now = advance();
            Item m = byId.find(id);
            if (m == null || m.state != State.DEAD) {
                return false;
            }
            dead.remove(m);
            m.attempts = 0;
            m.error = null;
            CLAIM.setVolatile(m, LIVE); // no one else writes a buried claim: a cancel only CASes a live one
            schedule(m, 0L, now);
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long purgeDead() {
        lock.lock();
        try {
            checkOpen();
            advance();
            long purged = dead.size();
            for (Item m : dead) {
                byId.remove(m);
                m.state = State.GONE;
            }
            dead.clear();
            return purged;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String name() {
        return settings.name();
    }

    @Override
    public Duration visibilityTimeout() {
        return settings.options().visibilityTimeout();
    }

    @Override
    public int maxAttempts() {
        return settings.options().maxAttempts();
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        watch.close();
    }

    @Override
    public String toString() {
        return "InMemoryDelayedQueue[" + settings.name() + "]";
    }

    // ---- internals, all called with the lock held unless said otherwise ----

    private Object encode(V value) {
        return codec == null ? value : settings.encode(value);
    }

    private void checkOpen() {
        if (closed) {
            throw settings.closedError();
        }
    }

    /**
     * Takes in what producers handed over without the lock (files the offers, unlinks the cancelled), then brings the
     * wheels up to the ticker's reading, promoting due messages and expiring visibility deadlines, at most
     * {@link #ADVANCE_LIMIT} of each (entries expired or moved down a level); what is left falls to the next
     * operation.
     */
    private long advance() {
        return advance(ADVANCE_LIMIT);
    }

    private long advance(int limit) {
        return advance(limit, ticker.read());
    }

    /**
     * As {@link #advance(int)}, to a reading the caller has just taken. A consumer's advance (a limit above
     * {@link #PRODUCER_ADVANCE_LIMIT}) takes the hand-overs in again after the wheels: what producers handed over
     * while it promoted (a storm's slice takes a while) is filed by the consumer, so that the next producer to get
     * the lock does not find that backlog to file in its own call.
     */
    private long advance(int limit, long now) {
        return advance(limit, now, Integer.MAX_VALUE);
    }

    /**
     * As {@link #advance(int, long)}, taking in at most {@code handOvers} of the offers and of the cancels handed
     * over; the rest of the offers wait in {@link #takenOffers}, the rest of the cancels in their queue. Only a
     * producer's filing of its own messages passes fewer than all, and it then files its messages behind them.
     */
    private long advance(int limit, long now, int handOvers) {
        takeHandOvers(now, handOvers);
        dueTimes.advance(now, onDeadline, limit);
        visibility.advance(now, onDeadline, limit);
        if (limit > PRODUCER_ADVANCE_LIMIT) {
            takeHandOvers(now, Integer.MAX_VALUE);
        }
        return now;
    }

    /**
     * Files the offers and unlinks the cancels that producers handed over without the lock, at most {@code limit} of
     * each, oldest first; the lock is held.
     */
    private void takeHandOvers(long now, int limit) {
        if (!offers.isEmpty()) {
            if (takenOffers.isEmpty() && limit == Integer.MAX_VALUE) {
                settleNow = now;
                offers.drain(fileOffered);
            } else {
                offers.drain(keepOffered);
            }
        }
        for (int n = 0; n < limit && !takenOffers.isEmpty(); n++) {
            fileRegistered(takenOffers.poll(), now);
        }
        Item m;
        for (int n = 0; n < limit && (m = cancels.poll()) != null; n++) {
            unlinkGone(m);
        }
    }

    /** @return nanoseconds from {@code now} until either wheel next has work */
    private long delayToNextEvent(long now) {
        return Math.min(dueTimes.delayToNext(now), visibility.delayToNext(now));
    }

    /**
     * Registers and files a new message; the lock is held.
     *
     * @param id the caller's id, or null for a generated one
     * @return the message, or null if the id is taken
     */
    private Item add(String id, Object payload, Map<String, String> headers, long delayNanos) {
        long now = advance(PRODUCER_ADVANCE_LIMIT);
        Item m = register(id, payload, headers, due(now, delayNanos));
        if (m != null) {
            offeredCount++;
            file(m, now);
        }
        return m;
    }

    /** The inbox drain's sink: files a message offered without the lock, unless it was cancelled meanwhile. */
    private void fileOffered(Item m) {
        fileRegistered(m, settleNow);
    }

    /** Files a registered message, unless it was cancelled meanwhile; the lock is held. */
    private void fileRegistered(Item m, long now) {
        offeredCount++;
        if ((int) CLAIM.getVolatile(m) == LIVE) {
            file(m, now);
        } else {
            m.state = State.GONE;
        }
    }

    /**
     * Gives a detached message a new due time, {@code delayNanos} after {@code now}, and files it. One still on its
     * way to the inbox (offered without the lock, registered but not yet handed over) only takes the due time, with
     * which the inbox's drain files it; its producer may have judged the wake-up by the old one, so the sleepers
     * look again (they find it in the inbox, or publish themselves before it arrives).
     */
    private void schedule(Item m, long delayNanos, long now) {
        m.due = due(now, delayNanos);
        if (m.state == State.NEW) {
            changed.signalAll();
        } else {
            file(m, now);
        }
    }

    /**
     * Makes a detached message delayed until its {@code due} time, or ready if that has come; it goes behind
     * everything filed before it.
     */
    private void file(Item m, long now) {
        long elapsed = dueTimes.elapsed(now);
        m.sequence = ++sequence;
        if (m.due <= elapsed) {
            makeReady(m);
            return;
        }
        long nextEvent = delayToNextEvent(now);
        m.state = State.DELAYED;
        m.deadline(m.due);
        dueTimes.schedule(m);
        delayed++;
        if (m.due - elapsed < nextEvent) {
            // Sleeping pollers computed their timeout from the old next event; let them recompute it.
            changed.signalAll();
        }
    }

    private void makeReady(Item m) {
        m.state = State.READY;
        ready.add(m);
        changed.signal();
    }

    /** The wheels' sink: a delayed message fell due, or an in-flight one's visibility timeout passed. */
    private void onDeadline(Item m) {
        if ((int) CLAIM.getVolatile(m) != LIVE) {
            // cancelled without the lock, not yet unlinked: it leaves here (the cancels drain then finds it gone)
            if (m.state == State.DELAYED) {
                delayed--;
            } else {
                inFlight--;
            }
            m.state = State.GONE;
            return;
        }
        if (m.state == State.DELAYED) {
            delayed--;
            makeReady(m); // keeps its due time and sequence: FIFO within a due time survives the wheel
        } else if (m.state == State.IN_FLIGHT) {
            inFlight--;
            // The token stays: until someone else takes the message, its last holder may still ack it late.
            if (m.attempts >= settings.options().maxAttempts()) {
                if (end(m, BURIED)) {
                    bury(m, m.error != null ? m.error : maxAttemptsReason());
                } else {
                    m.state = State.GONE; // cancelled this instant, without the lock
                }
            } else {
                retriedCount++;
                m.due = m.deadline();
                m.sequence = ++sequence;
                makeReady(m);
            }
        }
    }

    /**
     * Waits for a ready message and puts it in flight; null if {@code waitNanos} passed or the queue closed. Called
     * holding the lock; between two slices of a storm's promotion it lets the lock go (unless re-entered).
     *
     * @param start        the poll's ticker reading, taken when it was called
     * @param startIsFresh whether {@code start} may serve as the first pass's reading (the poll's first pass; a
     *                     clock read is a sizeable share of a one-message poll), rather than a new one
     */
    private Item awaitReady(long start, long waitNanos, boolean startIsFresh) throws InterruptedException {
        boolean fresh = startIsFresh;
        while (true) {
            // The call's own first reading serves its first pass: a message that fell due since is not owed to it.
            long now = fresh ? advance(ADVANCE_LIMIT, start) : advance();
            fresh = false;
            Item m = takeReady(now);
            if (m != null) {
                if (!ready.isEmpty()) {
                    changed.signal(); // pass the baton: one signal per ready message may have woken only us
                }
                return m;
            }
            if (delayToNextEvent(now) == 0) {
                // A slice of a large promotion or cascade is done and more is left, which may hold a due message:
                // let a waiting producer in between slices, then take the next one.
                if (lock.getHoldCount() == 1) {
                    lock.unlock();
                    lock.lock();
                }
                if (closed) {
                    return null;
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                continue;
            }
            long remaining = waitNanos - (now - start);
            if (remaining <= 0) {
                return null;
            }
            // On the system ticker this sleeps until the wheels' next event; on a ticker that jumps, its watch wakes
            // us at each jump, and a real-time timeout merely re-checks.
            long sleep = Math.min(remaining, delayToNextEvent(now));
            sleepers.enter(saturatedAdd(dueTimes.elapsed(now), sleep));
            try {
                if (offers.isEmpty()) { // after publishing ourselves (see Sleepers)
                    changed.awaitNanos(sleep);
                }
            } finally {
                sleepers.leave();
            }
            if (closed) {
                return null;
            }
        }
    }

    /** Puts the earliest ready message in flight; null if none is ready. */
    private Item takeReady(long now) {
        Item m;
        while ((m = ready.pollFirst()) != null && (int) CLAIM.getVolatile(m) != LIVE) {
            m.state = State.GONE; // cancelled without the lock, not yet unlinked (the cancels drain finds it gone)
        }
        if (m != null) {
            m.attempts++;
            m.token = ++tokens;
            m.state = State.IN_FLIGHT;
            m.deadline(saturatedAdd(visibility.elapsed(now), visibilityNanos));
            visibility.schedule(m);
            inFlight++;
            deliveredCount++;
        }
        return m;
    }

    /**
     * Called without the lock, for a message a poll put in flight: its receipt, the value decoded here so that a slow
     * codec stalls nobody else; null if the codec rejected the payload (the message is then dead).
     */
    @SuppressWarnings("unchecked")
    private Receipt receipt(Item m, long token, Object payload, int attempt, Map<String, String> headers) {
        if (codec == null) {
            return new Receipt(m, token, (V) payload, attempt, headers);
        }
        try {
            return new Receipt(m, token, settings.decode((byte[]) payload), attempt, headers);
        } catch (CodecException e) {
            killUndecodable(m, token, e);
            return null;
        }
    }

    /** Called without the lock: the codec rejected the payload of a message this poll had put in flight. */
    private void killUndecodable(Item m, long token, CodecException e) {
        lock.lock();
        try {
            if (m.state == State.IN_FLIGHT && m.token == token && end(m, BURIED)) {
                visibility.remove(m);
                inFlight--;
                bury(m, e.getMessage() != null ? e.getMessage() : e.toString());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends a live message's life, if nobody else did first: one CAS of its claim word, so that of an ack, a kill and
     * a cancel racing (the cancel possibly without the lock) exactly one wins. Any thread.
     *
     * @param to {@link #LEAVING} (acked or cancelled: its id is to be freed) or {@link #BURIED} (a dead letter)
     * @return whether this call ended it
     */
    private static boolean end(Item m, int to) {
        return CLAIM.compareAndSet(m, LIVE, to);
    }

    /** Makes a detached message whose claim {@link #end ended} as {@link #BURIED} a dead letter. */
    private void bury(Item m, String reason) {
        m.state = State.DEAD;
        m.error = reason;
        m.token = 0;
        m.due = ticker.read(); // its time of death
        dead.add(m);
        deadCount++;
        trimDead(m.due);
    }

    /**
     * Applies the retention: removes dead letters, oldest first, while there are more than {@code deadLetterMaxCount}
     * or the oldest is older than {@code deadLetterMaxAge}, counting them in {@link #trimmed}.
     */
    private void trimDead(long now) {
        long maxCount = settings.options().deadLetterMaxCount();
        long maxAgeNanos = Nanos.saturated(settings.options().deadLetterMaxAge());
        Iterator<Item> oldestFirst = dead.iterator();
        while (oldestFirst.hasNext()) {
            Item m = oldestFirst.next();
            if (dead.size() <= maxCount && now - m.due <= maxAgeNanos) {
                return;
            }
            oldestFirst.remove();
            forget(m);
            trimmed++;
        }
    }

    private String maxAttemptsReason() {
        return "maxAttempts (" + settings.options().maxAttempts() + ") reached";
    }

    /** Takes a delayed, ready or in-flight message out of its structure. */
    private void detach(Item m) {
        switch (m.state) {
            case State.NEW -> {
                // registered without the lock and not yet handed over: in no structure (the inbox drain drops it)
            }
            case State.DELAYED -> {
                dueTimes.remove(m);
                delayed--;
            }
            case State.READY -> ready.remove(m);
            case State.IN_FLIGHT -> {
                visibility.remove(m);
                inFlight--;
            }
            default -> throw new IllegalStateException("cannot detach a message in state " + State.name(m.state));
        }
    }

    private void forget(Item m) {
        byId.remove(m);
        m.state = State.GONE;
        m.token = 0;
    }

    private void wakeAll() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** @return the wheel tick a due time falls in: the tick whose end it is at or before (the wheel's rounding) */
    private static long tickOf(long due) {
        long q = due / TICK_NANOS;
        return q * TICK_NANOS == due ? q : q + 1;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum; // both non-negative: overflow shows as a negative sum
    }

    /**
     * Where a message is ({@link Item#state}); lock holder only (see {@link Item#claim} for the word other threads
     * touch). NEW: offered without the lock and not yet filed. A byte rather than an enum: an enum constant is a
     * reference into another heap region, so with an enum every transition of a tenured message (promoted, taken,
     * acked) would mark its card for G1's concurrent refinement, whose threads then take a core from other producers
     * during an expiry storm.
     */
    private static final class State {
        static final byte NEW = 0;
        static final byte DELAYED = 1;
        static final byte READY = 2;
        static final byte IN_FLIGHT = 3;
        static final byte DEAD = 4;
        static final byte GONE = 5;
        private static final String[] NAMES = {"NEW", "DELAYED", "READY", "IN_FLIGHT", "DEAD", "GONE"};

        private State() {
        }

        static String name(byte state) {
            return NAMES[state];
        }
    }

    /** {@link Item#claim}: delayed, ready or in flight (or new). */
    private static final int LIVE = 0;
    /** {@link Item#claim}: acked or cancelled; its id is freed by whoever ended it, or helped by whoever meets it. */
    private static final int LEAVING = 1;
    /** {@link Item#claim}: a dead letter; it keeps its id until purged, trimmed or requeued (back to live). */
    private static final int BURIED = 2;
    private static final VarHandle CLAIM;

    static {
        try {
            CLAIM = MethodHandles.lookup().findVarHandle(Item.class, "claim", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A message; it is also its own wheel entry, for its due time while delayed and its deadline in flight. */
    private static final class Item extends WheelEntry {
        final String id;
        /** The value itself without a codec, its encoded bytes with one; replaced by a REPLACE offer. */
        Object payload;
        /** Its headers, unmodifiable; replaced by a REPLACE offer. */
        Map<String, String> headers;
        byte state = State.NEW;
        /**
         * {@link #LIVE}, {@link #LEAVING} or {@link #BURIED}: the one word another thread than the lock holder writes
         * (a cancel without the lock CASes it from live to leaving), through {@link #CLAIM}.
         */
        int claim;
        /**
         * While delayed or ready: its due time in wheel time, the key of the ordered sets (fixed while it is in one of
         * them). While dead: when it died, a ticker reading, for the retention. (One field for both saves 8 bytes a
         * message.)
         */
        long due;
        long sequence;
        int attempts;
        /** The delivery that may still ack or nack this message; 0 if none. */
        long token;
        /**
         * While live: the last error a consumer recorded with a nack, reported as the reason if it dies of its
         * attempts; null if none. While dead: why it died.
         */
        String error;

        /** {@link NodeTable#hash(int)} of the id's hash code, for {@link ItemsById}. */
        final int hash;
        /** The next item of its bucket in {@link ItemsById}. */
        Item chain;

        Item(String id, Object payload, Map<String, String> headers) {
            this.id = id;
            this.hash = NodeTable.hash(id.hashCode());
            this.payload = payload;
            this.headers = headers;
        }
    }

    /**
     * Identity: the messages by id, in an intrusive hash table (the item is its own node, with its hash and bucket
     * link), so an id costs no map node beside the item. Offers insert and cancels remove without the queue's lock
     * (the table's stripe locks order them), everything else writes under it. An item is removed once, when the queue
     * forgets it, and never inserted again.
     */
    private static final class ItemsById extends NodeTable<Item> {

        private static final VarHandle CHAIN;

        static {
            try {
                CHAIN = MethodHandles.lookup().findVarHandle(Item.class, "chain", Item.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** @return the item of this id, or null */
        Item find(String id) {
            return get(id, NodeTable.hash(id.hashCode()));
        }

        @Override
        protected int hashOf(Item m) {
            return m.hash;
        }

        @Override
        protected Item chainOf(Item m) {
            return (Item) CHAIN.getAcquire(m);
        }

        @Override
        protected void chain(Item m, Item next) {
            CHAIN.setRelease(m, next);
        }

        @Override
        protected boolean hasKey(Item m, Object key) {
            return m.id.equals(key);
        }

        @Override
        protected boolean sameKey(Item m, Item other) {
            return m.id.equals(other.id);
        }
    }

    /** A receipt for one delivery; stale once the message has moved on without it. */
    private final class Receipt implements Delivery<V> {
        private final Item message;
        private final long token;
        private final V value;
        private final int attempt;
        private final Map<String, String> headers;

        Receipt(Item message, long token, V value, int attempt, Map<String, String> headers) {
            this.message = message;
            this.token = token;
            this.value = value;
            this.attempt = attempt;
            this.headers = headers;
        }

        @Override
        public Map<String, String> headers() {
            return headers;
        }

        @Override
        public String id() {
            return message.id;
        }

        @Override
        public V value() {
            return value;
        }

        @Override
        public int attempt() {
            return attempt;
        }

        @Override
        public boolean ack() {
            lock.lock();
            try {
                checkOpen();
                advance();
                return ackLocked();
            } finally {
                lock.unlock();
            }
        }

        /** Acks with the lock held, the queue open and the wheel advanced. */
        boolean ackLocked() {
            if (!holds() || !end(message, LEAVING)) {
                return false;
            }
            detach(message);
            forget(message);
            ackedCount++;
            return true;
        }

        InMemoryDelayedQueue<V> owner() {
            return InMemoryDelayedQueue.this;
        }

        @Override
        public boolean nack(Duration retryDelay) {
            Objects.requireNonNull(retryDelay, "retryDelay");
            return nack(settings.delay(retryDelay).nanos(), null);
        }

        @Override
        public boolean nack(Duration retryDelay, String reason) {
            Objects.requireNonNull(retryDelay, "retryDelay");
            String error = QueueSupport.reason(reason);
            return nack(settings.delay(retryDelay).nanos(), error);
        }

        private boolean nack(long delayNanos, String error) {
            return whileHeld(now -> {
                boolean dies = message.attempts >= settings.options().maxAttempts();
                if (dies && !end(message, BURIED)) {
                    return false; // cancelled this instant, without the lock
                }
                detach(message);
                message.token = 0;
                if (error != null) {
                    message.error = error;
                }
                if (dies) {
                    bury(message, message.error != null ? message.error
                            : maxAttemptsReason() + ", last attempt nacked");
                } else {
                    retriedCount++;
                    schedule(message, delayNanos, now);
                }
                return true;
            });
        }

        /**
         * {@inheritDoc}
         *
         * <p>In-process a delivery whose timeout passed holds its message until someone takes it again; extending it
         * then puts the message back in flight for this delivery.
         */
        @Override
        public boolean extend(Duration timeout) {
            long nanos = QueueSupport.checkVisibility(timeout).toNanos();
            return whileHeld(now -> {
                if (message.state == State.READY) {
                    ready.remove(message);
                    message.state = State.IN_FLIGHT;
                    inFlight++;
                } else {
                    visibility.remove(message);
                }
                message.deadline(saturatedAdd(visibility.elapsed(now), nanos));
                visibility.schedule(message);
                return true;
            });
        }

        @Override
        public boolean release() {
            return whileHeld(now -> {
                detach(message);
                message.token = 0;
                message.attempts--; // this delivery does not count
                schedule(message, 0L, now);
                return true;
            });
        }

        @Override
        public boolean deadLetter(String reason) {
            String r = QueueSupport.reason(reason);
            return whileHeld(now -> {
                if (!end(message, BURIED)) {
                    return false; // cancelled this instant, without the lock
                }
                detach(message);
                bury(message, r);
                return true;
            });
        }

        /**
         * Runs {@code change} with the lock held, the queue open and the wheels advanced to {@code now}, if this
         * delivery still holds its message.
         *
         * @return whether it held it and {@code change} took effect (it answers false if a cancel without the lock
         *         ended the message first)
         */
        private boolean whileHeld(LongPredicate change) {
            lock.lock();
            try {
                checkOpen();
                long now = advance();
                return holds() && change.test(now);
            } finally {
                lock.unlock();
            }
        }

        /** In flight for this delivery, or timed out but not yet taken by anyone else; and not cancelled. */
        private boolean holds() {
            return message.token == token && (message.state == State.IN_FLIGHT || message.state == State.READY)
                    && (int) CLAIM.getVolatile(message) == LIVE;
        }

        @Override
        public String toString() {
            return "Delivery[" + message.id + ", attempt " + attempt + "]";
        }
    }

    /**
     * Builds an {@link InMemoryDelayedQueue}: the shared options of {@link DelayedQueueBuilder} plus the ticker.
     * Not thread-safe.
     *
     * <p>The codec is optional here, unlike on Redis. With one, values are encoded on offer and decoded on poll, and
     * {@code maxPayloadBytes} (default 1 MiB) limits the encoded size with the same error as Redis, so a queue
     * behaves as its Redis counterpart will. Without one, values are kept by reference: a consumer receives the
     * very object offered (no copy: changes to it are visible to whoever holds it), there is no size limit
     * ({@code maxPayloadBytes} cannot be set: {@link #build()} fails), nothing can fail to encode or decode, and
     * dead letters carry an empty payload.
     *
     * @param <V> the value type
     */
    public static final class Builder<V> extends DelayedQueueBuilder<V, Builder<V>> {

        private Ticker ticker;

        private Builder() {
        }

        /**
         * @param ticker the clock of due times and visibility timeouts; default {@link Ticker#system()}. With a
         *               {@link ManualTicker}, blocked polls wake whenever the test advances it.
         * @return this builder
         */
        public Builder<V> ticker(Ticker ticker) {
            Objects.requireNonNull(ticker, "ticker");
            checkUnset(this.ticker != null, "ticker");
            this.ticker = ticker;
            return this;
        }

        /**
         * Builds the queue. Without a {@link #codec codec} it keeps values by reference, with no size limit (see
         * "Without a codec" in {@link DelayedQueue}); {@link #maxPayloadBytes} then has no bytes to measure, so
         * setting it without a codec is an error rather than a limit silently ignored.
         *
         * @return a new, empty, open queue
         * @throws IllegalStateException if {@code maxPayloadBytes} was set without a codec
         */
        public InMemoryDelayedQueue<V> build() {
            if (explicitMaxPayloadBytes() != 0 && !isCodecSet()) {
                throw new IllegalStateException("maxPayloadBytes(" + explicitMaxPayloadBytes() + ") needs a codec:"
                        + " without one the queue keeps values by reference and has no bytes to measure; set codec(...)"
                        + " as well, or leave maxPayloadBytes unset");
            }
            String name = "in-memory-" + QUEUE_NUMBER.incrementAndGet();
            QueueSupport<V> settings = new QueueSupport<>(options(name, null));
            return new InMemoryDelayedQueue<>(settings, ticker != null ? ticker : Ticker.system());
        }
    }
}

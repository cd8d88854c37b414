package io.clockwork.inprocess;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.time.Ticker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The embedded {@link DelayedQueue}: messages wait in this JVM's heap, timed by the timing-wheel engine. Thread-safe.
 *
 * <h2>Design</h2>
 * The engine's shape (a passive {@code TimingWheel} inside its concurrent {@code TimerCore}), in four parts:
 * <ul>
 *   <li>{@link QueueStore}: the messages (by id, the due-time and visibility wheels, the ready order, the dead
 *       letters, the counters) and their state machine, one method per operation of a message's life, named as the
 *       Redis backend's scripts. Passive and single-threaded: it takes the time as an argument.</li>
 *   <li>{@link StoreGuard}: the one lock that owns the store, the hand-over of what producers do without it (an
 *       offer of a new message, a cancel: <b>producers do not wait for the lock</b>), and the polls asleep on it.</li>
 *   <li>{@link Offers}, {@link Polls} and {@link Receipt}, the producer, consumer and delivery sides: an offer checks
 *       and encodes its values before any lock and registers its messages under their ids without it
 *       ({@link ItemsById} is concurrent), then settles them through the guard; a poll takes messages under the lock
 *       and decodes them outside it; a delivery's ack, nack, extend, release and dead-letter are each one store
 *       operation under the lock.</li>
 *   <li>This class: the contract, and its other operations (cancel, reschedule, stats, dead letters), each one store
 *       operation.</li>
 * </ul>
 * Every operation is O(1) or O(log n), never a scan of the backlog, and the queue needs no thread: a blocked
 * {@link #poll} sleeps until the store's next event, a new offer that falls due earlier, or a jump of the ticker
 * ({@link Ticker#watch}); every operation first advances the store to the ticker's reading, in a bounded slice
 * ({@link #stats()} promotes all).
 *
 * <h2>Flow control</h2>
 * Due messages are delivered by {@linkplain Message#priority(int) priority}, then round-robin between
 * {@linkplain Message#group(String) groups} (weighted by {@link DelayedQueueBuilder#groupWeight}), then by due time;
 * the builder's {@link DelayedQueueBuilder#maxInFlightPerGroup}, {@link DelayedQueueBuilder#rateLimit} and
 * {@link DelayedQueueBuilder#groupRateLimit} hold messages back until a slot or a permit frees, and a poll that may
 * wait sleeps until then (see {@link io.clockwork.queue.QueueOptions}). All of it is decided under the queue's lock,
 * in O(log n), by the store's {@link FlowGate}; the limits' state lasts as long as this instance.
 *
 * <p>Without a codec values are kept by reference (no copy, no size limit, and dead letters carry an empty payload;
 * see {@link Builder}); with one they are encoded on offer, with Redis's size limit, and decoded on poll outside the
 * lock, and a value that cannot be decoded goes to the dead letters with the codec's error as its reason, as on
 * Redis. After {@link #close()}, every operation but {@link #name()} and {@code close()} throws, a
 * {@link Delivery}'s {@code ack} and {@code nack} included.
 *
 * @param <V> the type of the message values
 */
public final class InMemoryDelayedQueue<V> implements DelayedQueue<V> {

    private static final AtomicLong QUEUE_NUMBER = new AtomicLong();

    private final QueueSupport<V> support;
    private final StoreGuard guard;
    /** Guarded by {@link #guard}'s lock, but for its identity table and due times. */
    private final QueueStore store;
    private final ItemsById ids;
    private final Offers<V> offers;
    private final Polls<V> polls;

    private InMemoryDelayedQueue(QueueSupport<V> support, Ticker ticker) {
        this.support = support;
        this.guard = new StoreGuard(support, ticker);
        this.store = guard.store();
        this.ids = store.ids();
        this.offers = new Offers<>(guard, support);
        this.polls = new Polls<>(this, guard, support);
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
        return offers.offer(value, delay);
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process this does not wait for the queue's lock: see "Producers do not wait for the lock" above.
     */
    @Override
    public boolean offer(String id, V value, Duration delay) {
        return offers.offer(id, value, delay);
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process the batch is atomic: every message is added under one lock acquisition, or, if the lock is held,
     * handed over in one step (see "Producers do not wait for the lock" above), so no poll sees part of it.
     */
    @Override
    public List<String> offerAll(List<? extends V> values, Duration delay) {
        return offers.offerAll(values, delay);
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process the batch is atomic: every message is added under one lock acquisition, or, if the lock is held,
     * handed over in one step (see "Producers do not wait for the lock" above).
     */
    @Override
    public List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        return offers.offerAll(messages, delay);
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
        return offers.offer(message);
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
        return offers.offerAll(messages);
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process this does not wait for the queue's lock: see "Producers do not wait for the lock" above.
     */
    @Override
    public boolean cancel(String id) {
        support.checkId(id);
        guard.checkOpen();
        Item m = ids.cancel(id);
        if (m == null) {
            return false;
        }
        guard.unlinkCancelled(m);
        return true;
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
        support.checkId(id);
        guard.lockOpen();
        try {
            guard.advance();
            return store.holds(id);
        } finally {
            guard.unlock();
        }
    }

    @Override
    public boolean reschedule(String id, Duration delay) {
        support.checkId(id);
        long delayNanos = support.delay(delay).nanos();
        guard.lockOpen();
        try {
            return store.reschedule(id, delayNanos, guard.advance());
        } finally {
            guard.unlock();
        }
    }

    /** {@inheritDoc} In-process the pause lasts as long as this instance. */
    @Override
    public void pause() {
        guard.pause(true);
    }

    @Override
    public void resume() {
        guard.pause(false);
    }

    @Override
    public boolean isPaused() {
        return guard.isPaused();
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process one message costs one lock acquisition and, without a codec, one allocation: the receipt.
     */
    @Override
    public Delivery<V> poll(Duration wait) throws InterruptedException {
        return polls.one(wait);
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process the messages are taken under one lock acquisition; values are decoded outside it.
     */
    @Override
    public List<Delivery<V>> poll(int maxMessages, Duration wait) throws InterruptedException {
        return polls.many(maxMessages, wait);
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
            if (!(given[i] instanceof Receipt<?> r) || r.owner() != this) {
                throw new IllegalArgumentException("deliveries[" + i + "] is not a delivery of queue '" + name()
                        + "': " + given[i]);
            }
        }
        List<Boolean> result = new ArrayList<>(given.length);
        guard.lockOpen();
        try {
            guard.advance();
            for (Object o : given) {
                result.add(((Receipt<?>) o).ackLocked());
            }
            return result;
        } finally {
            guard.unlock();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>In-process the counters are plain fields under the queue's lock, read in one snapshot.
     */
    @Override
    public Optional<QueueCounters> counters() {
        guard.lockOpen();
        try {
            guard.advance(); // expiries that are due count as retried or dead, as the next operation would find them
            return Optional.of(store.counters());
        } finally {
            guard.unlock();
        }
    }

    @Override
    public List<GroupBacklog> largestGroups(int limit) {
        QueueSupport.checkGroupsListed(limit);
        guard.lockOpen();
        try {
            guard.advance(Integer.MAX_VALUE); // everything due is ready, as for stats
            return store.largestGroups(limit);
        } finally {
            guard.unlock();
        }
    }

    @Override
    public QueueStats stats() {
        guard.lockOpen();
        try {
            return store.stats(guard.advance(Integer.MAX_VALUE)); // counts are exact: everything due is ready
        } finally {
            guard.unlock();
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
        guard.lockOpen();
        try {
            return store.deadList(limit, guard.advance());
        } finally {
            guard.unlock();
        }
    }

    @Override
    public boolean requeueDead(String id) {
        support.checkId(id);
        guard.lockOpen();
        try {
            return store.deadRequeue(id, guard.advance());
        } finally {
            guard.unlock();
        }
    }

    @Override
    public long purgeDead() {
        guard.lockOpen();
        try {
            guard.advance();
            return store.deadPurge();
        } finally {
            guard.unlock();
        }
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

    @Override
    public void close() {
        guard.close();
    }

    @Override
    public String toString() {
        return "InMemoryDelayedQueue[" + support.name() + "]";
    }

    /** @return the guard of this queue's store, for its receipts */
    StoreGuard guard() {
        return guard;
    }

    /** @return the queue's options and checks, for its receipts */
    QueueSupport<V> support() {
        return support;
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
         *               {@link io.clockwork.time.ManualTicker}, blocked polls wake whenever the test advances it.
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
            QueueSupport<V> support = new QueueSupport<>(options(name, null));
            return new InMemoryDelayedQueue<>(support, ticker != null ? ticker : Ticker.system());
        }
    }
}

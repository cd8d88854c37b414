package io.clockwork.inprocess;

import io.clockwork.engine.TimingWheel;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.time.Nanos;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The in-process queue's state and its state machine: one method per operation of a message's life, named as the
 * Redis backend's scripts are ({@code nack.lua} is {@link #nack}). Not thread-safe: owned by one thread at a time,
 * the holder of its {@link StoreGuard}'s lock (its concurrent shell, as the engine's {@code TimerCore} is its
 * {@link TimingWheel}'s), but for {@link #ids()} and {@link #due}. Passive: it holds no lock, starts no thread and
 * reads no clock; every operation takes the ticker reading {@code now} it acts at, and the shell
 * {@linkplain #advance advances} it before each operation.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>When</b> is the engine's job: a message is its own {@link io.clockwork.engine.WheelEntry}, filed while
 *       delayed in a {@link TimingWheel} of due times and while in flight in a second wheel of visibility deadlines
 *       (1 ms tick each). {@link #advance} moves both to {@code now} in a bounded slice, promoting due messages to
 *       ready and returning timed-out deliveries; the due-time wheel is the only index of delayed messages and
 *       answers {@link QueueStats#nextDueIn()} exactly from its earliest bucket ({@link TimingWheel#earliest()}).</li>
 *   <li><b>Order</b> of ready messages is by priority, then round-robin between groups, then by due time to the
 *       tick (1 ms, as Redis's scores are to the millisecond) and, within a tick, by sequence number, which is offer
 *       order: a {@link FairReady} of {@link ReadyOrder}s, behind a {@link FlowGate} that holds back what a rate
 *       or in-flight limit does not let go.</li>
 *   <li><b>Identity</b>: {@link ItemsById}, the one structure other threads touch (the shell registers and cancels
 *       there without the lock). A delivery is named by a token that the message forgets when it is acked, nacked,
 *       cancelled, rescheduled, killed or delivered again, so stale receipts fail instead of touching someone else's
 *       delivery. A message's {@linkplain Item#claim() claim word} settles the races with a cancel without the lock:
 *       acking, killing and cancelling each CAS it from live, so exactly one wins, and no operation here delivers or
 *       moves a message that is no longer live.</li>
 *   <li><b>Dead letters</b> are kept in death order, trimmed by the options' retention (count and age), and counted
 *       in {@link QueueStats#trimmed()}; the cumulative {@link QueueCounters} are plain fields.</li>
 * </ul>
 * A message goes through the states of {@link State}; the table "A message's life, per operation" in
 * {@code docs/design.md} lists per operation what it reads, changes and returns, here and on Redis.
 */
final class QueueStore {

    /** The wheels' tick: deliveries are at most this late (plus the caller's scheduling latency). */
    static final long TICK_NANOS = 1_000_000L;
    private static final int WHEEL_SIZE = 64;
    /** Delivery order: by due tick (rounded as the wheel rounds: a tick's messages leave together), then sequence. */
    private static final Comparator<Item> BY_DUE_TICK_THEN_SEQUENCE =
            Comparator.<Item>comparingLong(m -> tickOf(m.due)).thenComparingLong(m -> m.sequence);

    /** How the store tells its shell that sleeping polls should look again; called by the store's owner. */
    interface Wakeups {

        /** A message became ready: one sleeping poll may take it. */
        void one();

        /**
         * The next event moved earlier, or the due time of a message on its way to the store changed: every sleeping
         * poll recomputes its sleep.
         */
        void all();
    }

    private final Wakeups wakeups;
    private final long visibilityNanos;
    private final int maxAttempts;
    private final ItemsById ids = new ItemsById();
    /** Delayed messages by due time. */
    private final TimingWheel<Item> dueTimes;
    /** In-flight messages by visibility deadline. */
    private final TimingWheel<Item> visibility;
    private final Consumer<Item> onDeadline = this::onDeadline;
    private final FlowGate flow;
    private final FairReady ready;
    private final DeadLetters dead;
    /** The reading of the current {@link #advance}: the time of death of what its sink buries. */
    private long advanceNow;
    private long delayed;
    private long inFlight;
    private long sequence;
    private long tokens;
    /** Cumulative event counts, see {@link QueueCounters}. */
    private long offeredCount;
    private long deliveredCount;
    private long ackedCount;
    private long retriedCount;
    private long deadCount;

    /**
     * @param support the queue's options: visibility timeout, max attempts, dead-letter retention, codec
     * @param origin  the ticker reading the wheels' time starts at
     * @param wakeups how the store tells the shell to wake sleeping polls
     */
    QueueStore(QueueSupport<?> support, long origin, Wakeups wakeups) {
        this.wakeups = wakeups;
        this.visibilityNanos = support.options().visibilityTimeout().toNanos();
        this.maxAttempts = support.options().maxAttempts();
        this.dead = new DeadLetters(ids, support.options().deadLetterMaxCount(),
                Nanos.saturated(support.options().deadLetterMaxAge()), support.options().codec() != null);
        this.dueTimes = new TimingWheel<>(TICK_NANOS, WHEEL_SIZE, origin);
        this.visibility = new TimingWheel<>(TICK_NANOS, WHEEL_SIZE, origin);
        this.flow = new FlowGate(support.options(), BY_DUE_TICK_THEN_SEQUENCE, wakeups);
        this.ready = flow.ready();
    }

    /** @return the messages by id; thread-safe, for the shell's offers and cancels without the lock */
    ItemsById ids() {
        return ids;
    }

    /** @return the due time, in wheel time, of a message offered at ticker reading {@code now}; any thread */
    long due(long now, long delayNanos) {
        return saturatedAdd(dueTimes.elapsed(now), delayNanos);
    }

    // ---- one method per operation, in the order of a message's life ----

    /**
     * sweep, which every operation begins with: brings the wheels up to {@code now}, promoting due messages to ready
     * and returning deliveries whose visibility timeout passed (ready again behind what is ready, or dead after their
     * last attempt), at most {@code limit} of each (entries expired or moved down a level); what is left falls to the
     * next call.
     */
    void advance(long now, int limit) {
        advanceNow = now;
        dueTimes.advance(now, onDeadline, limit);
        visibility.advance(now, onDeadline, limit);
    }

    /**
     * offer (a message registered without the lock, {@link ItemsById#register}): files it, delayed until its due
     * time or ready if that has come, unless a cancel ended it meanwhile. Counted as offered either way.
     */
    void offer(Item m, long now) {
        offeredCount++;
        if (m.isLive()) {
            file(m, now);
        } else {
            m.state = State.GONE;
        }
    }

    /**
     * offer (of a message that may meet one already there): adds it if its id is free; else keeps the one there
     * ({@link Message.Conflict#KEEP}), or, if that one is delayed or ready, gives it the new due time (extend) and
     * value and headers (replace) under a new sequence, so an earlier delivery no longer holds it.
     *
     * @param id the caller's id, or null for a generated one
     * @return what happened; null if the id's message was cancelled without the lock since this call looked, so the
     *         caller advances and calls again
     */
    Offered offer(String id, Object payload, Map<String, String> headers, long delayNanos, Message.Conflict policy,
                  long now) {
        Item added = ids.register(id, payload, headers, due(now, delayNanos));
        if (added != null) {
            offeredCount++;
            file(added, now);
            return new Offered(added.id, Offered.Outcome.ADDED);
        }
        Item m = ids.find(id);
        if (m == null) {
            return null; // cancelled without the lock since the register: the id is free now
        }
        int claim = m.claim();
        if (claim == Item.BURIED) {
            return new Offered(id, policy == Message.Conflict.KEEP ? Offered.Outcome.KEPT : Offered.Outcome.DEAD);
        }
        if (claim == Item.LEAVING) {
            ids.remove(m); // acked or cancelled, its id not yet freed
            return null;
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
            flow.release(m); // its priority and group are read again from the new headers when it is filed
            m.payload = payload;
            m.headers = headers;
        }
        schedule(m, delayNanos, now);
        return new Offered(id, policy == Message.Conflict.REPLACE ? Offered.Outcome.REPLACED
                : Offered.Outcome.EXTENDED);
    }

    /**
     * poll: puts the earliest ready message in flight until {@code now} plus the visibility timeout, under a new
     * token, its attempts counted up.
     *
     * @return the message (read its token, attempts, payload and headers before the lock is let go); null if none
     *         is ready
     */
    Item poll(long now) {
        Item m;
        while ((m = flow.take(now)) != null && !m.isLive()) {
            m.state = State.GONE; // cancelled without the lock, not yet unlinked (the cancels drain finds it gone)
            flow.release(m);
        }
        if (m != null) {
            m.attempts++;
            m.token = ++tokens;
            m.state = State.IN_FLIGHT;
            m.deadline(saturatedAdd(visibility.elapsed(now), visibilityNanos));
            visibility.schedule(m);
            inFlight++;
            deliveredCount++;
            flow.delivered(m, now);
        }
        return m;
    }

    /** ack: removes the message if the delivery of {@code token} still holds it; returns whether it did. */
    boolean ack(Item m, long token) {
        if (!holds(m, token) || !m.end(Item.LEAVING)) {
            return false;
        }
        detach(m);
        forget(m);
        ackedCount++;
        return true;
    }

    /**
     * nack: if the delivery of {@code token} still holds the message, schedules it again {@code delayNanos} after
     * {@code now} or, after its last allowed attempt, buries it; a non-null {@code error} becomes its last error.
     *
     * @return whether the delivery held the message
     */
    boolean nack(Item m, long token, long delayNanos, String error, long now) {
        if (!holds(m, token)) {
            return false;
        }
        boolean dies = m.attempts >= maxAttempts;
        if (dies && !m.end(Item.BURIED)) {
            return false; // cancelled this instant, without the lock
        }
        detach(m);
        m.token = 0;
        if (error != null) {
            m.error = error;
        }
        if (dies) {
            bury(m, m.error != null ? m.error : maxAttemptsReason() + ", last attempt nacked", now);
        } else {
            retriedCount++;
            schedule(m, delayNanos, now);
        }
        return true;
    }

    /**
     * extend: if the delivery of {@code token} still holds the message, it is in flight until {@code now} plus
     * {@code timeoutNanos}; a delivery whose timeout passed holds its message until someone takes it again, so this
     * puts a ready one back in flight.
     *
     * @return whether the delivery held the message
     */
    boolean extend(Item m, long token, long timeoutNanos, long now) {
        if (!holds(m, token)) {
            return false;
        }
        if (m.state == State.READY) {
            if (!flow.mayHoldAgain(m)) {
                return false; // its group's slots were taken after its timeout passed
            }
            ready.remove(m);
            m.state = State.IN_FLIGHT;
            inFlight++;
            flow.heldAgain(m);
        } else {
            visibility.remove(m);
        }
        m.deadline(saturatedAdd(visibility.elapsed(now), timeoutNanos));
        visibility.schedule(m);
        return true;
    }

    /**
     * release: if the delivery of {@code token} still holds the message, makes it due now under a new sequence, its
     * attempts unchanged (the delivery does not count).
     *
     * @return whether the delivery held the message
     */
    boolean release(Item m, long token, long now) {
        if (!holds(m, token)) {
            return false;
        }
        detach(m);
        m.token = 0;
        m.attempts--;
        schedule(m, 0L, now);
        return true;
    }

    /**
     * kill: if the delivery of {@code token} still holds the message, buries it with {@code reason}.
     *
     * @return whether it was buried
     */
    boolean kill(Item m, long token, String reason, long now) {
        if (!holds(m, token) || !m.end(Item.BURIED)) {
            return false; // not held, or cancelled this instant, without the lock
        }
        detach(m);
        bury(m, reason, now);
        return true;
    }

    /**
     * kill, of a message whose payload the poll of {@code token} could not decode: buries it if it is still in flight
     * for that poll (a message whose timeout passed meanwhile stays ready, for its next delivery to try again).
     */
    void killUndecodable(Item m, long token, String reason, long now) {
        if (m.state == State.IN_FLIGHT && m.token == token && m.end(Item.BURIED)) {
            visibility.remove(m);
            inFlight--;
            flow.settled(m);
            bury(m, reason, now);
        }
    }

    /**
     * cancel: unlinks a message whose claim {@link ItemsById#cancel} ended (its id already freed, possibly by another
     * thread, without the lock) from wherever it is filed. Until then every operation here treats a message that is
     * not live as gone.
     */
    void cancel(Item m) {
        if (m.state != State.NEW && m.state != State.GONE) { // NEW: the inbox drain drops it; GONE: already out
            detach(m);
            m.state = State.GONE;
            m.token = 0;
            flow.release(m);
        }
    }

    /**
     * reschedule: gives a delayed or ready message a new due time, {@code delayNanos} after {@code now}, under a new
     * sequence, as if offered now; an earlier delivery whose timeout passed no longer holds it.
     *
     * @return whether a delayed or ready message of this id moved (false: none, in flight or dead)
     */
    boolean reschedule(String id, long delayNanos, long now) {
        Item m = ids.findLive(id);
        if (m == null || m.state == State.IN_FLIGHT) {
            return false;
        }
        detach(m);
        m.token = 0; // a late ack of an earlier, timed-out delivery must not remove the rescheduled message
        schedule(m, delayNanos, now);
        return true;
    }

    /** holds: whether a message of this id is delayed, ready or in flight (not dead, acked, cancelled or unknown). */
    boolean holds(String id) {
        return ids.findLive(id) != null;
    }

    /**
     * dead_list: the oldest dead letters, at most {@code limit}, after the retention is applied at {@code now}.
     * Without a codec the payloads are empty: the values are held by reference, with no bytes to show.
     */
    List<DeadLetter> deadList(int limit, long now) {
        dead.trim(now);
        return dead.list(limit);
    }

    /**
     * dead_requeue: makes the dead letter of this id due now under a new sequence, its attempts and last error reset.
     *
     * @return whether a dead letter of this id was requeued
     */
    boolean deadRequeue(String id, long now) {
        Item m = ids.find(id);
        if (m == null || m.state != State.DEAD) {
            return false;
        }
        dead.remove(m);
        m.attempts = 0;
        m.error = null;
        m.revive();
        schedule(m, 0L, now);
        return true;
    }

    /** dead_purge: deletes every dead letter; returns how many. */
    long deadPurge() {
        return dead.purge();
    }

    /**
     * stats: the counts by state after the retention is applied at {@code now}, and how long until the earliest
     * delayed message falls due. Exact when the shell advanced the store to {@code now} without a limit.
     */
    QueueStats stats(long now) {
        Item first = dueTimes.earliest();
        Optional<Duration> nextDueIn = first == null ? Optional.empty()
                : Optional.of(Duration.ofNanos(Math.max(0L, first.due - dueTimes.elapsed(now))));
        dead.trim(now);
        return new QueueStats(delayed, ready.size(), inFlight, dead.size(), 0, nextDueIn, dead.trimmed());
    }

    /** largestGroups: the groups with the most ready messages, exact when the store was advanced to now. */
    List<GroupBacklog> largestGroups(int limit) {
        return flow.largest(limit);
    }

    /** counters: the cumulative event counts. */
    QueueCounters counters() {
        return new QueueCounters(offeredCount, deliveredCount, ackedCount, retriedCount, deadCount,
                flow.rateLimitedCount());
    }

    /** @return nanoseconds from {@code now} until either wheel next has work (0: a slice is left to advance) */
    long delayToNextEvent(long now) {
        return Math.min(dueTimes.delayToNext(now), visibility.delayToNext(now));
    }

    /** @return whether a message is ready that no limit holds back (but the queue's rate limit) */
    boolean hasReady() {
        return ready.hasEligible();
    }

    /**
     * @return nanoseconds from {@code now} until a rate limit frees a permit a ready message waits for;
     *         {@link Long#MAX_VALUE} if none waits
     */
    long delayToPermit(long now) {
        return flow.delayToPermit(now);
    }

    /** @return how many named groups the flow control keeps (for tests) */
    int groupCount() {
        return flow.groupCount();
    }

    /** @return whether the last {@link #poll} found ready messages but took none because of a rate limit */
    boolean heldByRate() {
        return flow.heldByRate();
    }

    /** Counts a poll held back by a rate limit ({@link QueueCounters#rateLimited()}). */
    void countRateLimited() {
        flow.countRateLimited();
    }

    // ---- the moves the operations share ----

    /** In flight for the delivery of {@code token}, or timed out and not yet taken by anyone else; not cancelled. */
    private static boolean holds(Item m, long token) {
        return m.token == token && (m.state == State.IN_FLIGHT || m.state == State.READY) && m.isLive();
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
                flow.settled(m);
            }
            default -> throw new IllegalStateException("cannot detach a message in state " + State.name(m.state));
        }
    }

    private void forget(Item m) {
        ids.remove(m);
        m.state = State.GONE;
        m.token = 0;
        flow.release(m);
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
            wakeups.all();
        } else {
            file(m, now);
        }
    }

    /**
     * Makes a detached message delayed until its {@code due} time, or ready if that has come; it goes behind
     * everything filed before it.
     */
    private void file(Item m, long now) {
        if (m.priority == FlowGate.UNRESOLVED) {
            flow.resolve(m);
        }
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
            wakeups.all(); // sleeping polls computed their timeout from the old next event
        }
    }

    private void makeReady(Item m) {
        m.state = State.READY;
        ready.add(m);
        wakeups.one();
    }

    /** The wheels' sink: a delayed message fell due, or an in-flight one's visibility timeout passed. */
    private void onDeadline(Item m) {
        if (!m.isLive()) {
            // cancelled without the lock, not yet unlinked: it leaves here (the cancels drain then finds it gone)
            if (m.state == State.DELAYED) {
                delayed--;
            } else {
                inFlight--;
                flow.settled(m);
            }
            m.state = State.GONE;
            flow.release(m);
            return;
        }
        if (m.state == State.DELAYED) {
            delayed--;
            makeReady(m); // keeps its due time and sequence: FIFO within a due time survives the wheel
        } else if (m.state == State.IN_FLIGHT) {
            inFlight--;
            flow.settled(m);
            // The token stays: until someone else takes the message, its last holder may still ack it late.
            if (m.attempts >= maxAttempts) {
                if (m.end(Item.BURIED)) {
                    bury(m, m.error != null ? m.error : maxAttemptsReason(), advanceNow);
                } else {
                    m.state = State.GONE; // cancelled this instant, without the lock
                    flow.release(m);
                }
            } else {
                retriedCount++;
                m.due = m.deadline();
                m.sequence = ++sequence;
                makeReady(m);
            }
        }
    }

    /** Makes a detached message whose claim ended as {@link Item#BURIED} a dead letter, dead since {@code now}. */
    private void bury(Item m, String reason, long now) {
        flow.release(m);
        dead.bury(m, reason, now);
        deadCount++;
    }

    private String maxAttemptsReason() {
        return "maxAttempts (" + maxAttempts + ") reached";
    }

    /** @return the wheel tick a due time falls in: the tick whose end it is at or before (the wheel's rounding) */
    private static long tickOf(long due) {
        long q = due / TICK_NANOS;
        return q * TICK_NANOS == due ? q : q + 1;
    }

    /** @return {@code a + b}, or {@link Long#MAX_VALUE} if that overflows; both non-negative */
    static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}

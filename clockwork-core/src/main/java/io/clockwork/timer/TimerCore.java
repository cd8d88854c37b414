package io.clockwork.timer;

import io.clockwork.time.Ticker;
import io.clockwork.wheel.MpscInbox;
import io.clockwork.wheel.Nursery;
import io.clockwork.wheel.TimingWheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The concurrency shell around one {@link TimingWheel}, shared by every timer face. Thread-safe for
 * {@link #schedule}, {@link #entryCancelled()} and {@link #pendingCount()}; everything else belongs to the single
 * thread that drives the wheel (the "owner").
 *
 * <h2>Design</h2>
 * Producers never touch the wheel: they compute a deadline, CAS the entry onto an intrusive {@link MpscInbox} and,
 * only if the owner is asleep past that deadline, unpark it. Cancel is one CAS on the entry; schedules and cancels
 * are counted in {@link PerThreadCounts per-thread cells}, without atomics. The owner drops cancelled entries when it
 * meets them (taking them from an inbox, sweeping the nursery, cascading or expiring a bucket), and after each sweep
 * purges when cancelled entries exceed half of those it holds, so memory stays within a constant factor of the live
 * timers even when nearly all are cancelled (request-timeout workloads).
 *
 * <h2>Young timers are not touched until the sweep</h2>
 * Every {@link #SWEEP_TARGET_NANOS 8 ms} (at least a tick, at most a level-0 rotation) the owner "sweeps". A
 * producer whose deadline falls at or after the next sweep pushes the entry onto the {@code young} inbox, which the
 * owner takes only at that sweep; sooner deadlines go to the {@code urgent} inbox, taken on every pass and filed at
 * once. At a sweep, the young entries still pending that are due before the following sweep are filed; the others
 * wait in a {@link Nursery} for one more sweep interval. So a timer cancelled young, the common case for request
 * timeouts, is never written by the owner before its cancel: the cancelling thread finds the entry's cache line
 * where it left it instead of fetching it from the owner's core, and the owner drops it in one sequential pass
 * instead of filing it and dropping it later. No timer fires later for this: young entries cannot fall due before
 * the sweep, and the owner wakes for it.
 *
 * <p>A producer that read the old sweep time may push after the owner took the young inbox at a sweep. It sees the
 * sweep time change when it reads it again after its push, and raises the {@code STRAGGLERS} flag; the owner takes
 * the young inbox again on its next pass (and checks the flag before it sleeps, Dekker style, as below).
 *
 * <p>Wake-up protocol (Dekker style on two volatiles): the owner publishes {@code wakeAt} (when it intends to wake)
 * and then re-checks the urgent inbox and the straggler flag; a producer pushes (to either inbox) and then reads
 * {@code wakeAt}. One of them sees the other, so an earlier timer never waits for a later wake-up, and producers
 * whose timer is not earlier pay no syscall. (A young entry is due at or after the next sweep, so the owner only has
 * to be awake by then, which {@code wakeAt} tells the producer.)
 *
 * <p>Cache lines: a producer reads only this object's final fields, the {@code wakeAt} and {@code nextSweep} words
 * and its inbox stripe.
 * Everything the owner writes as it works (counters, the processed tick) lives in {@link #slots}, a padded array
 * whose words sit at least 128 bytes from anything else, so the owner's writes never invalidate a line a producer
 * needs; likewise producers compute deadlines from copies of the wheel's origin and tick rather than reading the
 * wheel object, which the owner writes on every link.
 */
final class TimerCore<E extends TimerEntry> {

    /** {@code wakeAt} while the owner is running (producers need not wake it). */
    private static final long AWAKE = -1L;
    /**
     * While the wheel holds entries, the owner wakes at least this often, so that cancelled entries are purged even
     * when no timer is due for a long time.
     */
    static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final int PURGE_FLOOR = 1024;
    /**
     * The sweep interval aimed at. Long enough that most request timeouts are cancelled before the owner ever
     * touches them; short enough that the young entries the owner takes at a sweep are still in the shared cache
     * (at 10 schedules per microsecond, 8 ms of 40-byte entries is 3 MB) and that cancelled ones do not linger in the
     * heap for long.
     */
    static final long SWEEP_TARGET_NANOS = TimeUnit.MILLISECONDS.toNanos(8);

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    /** Slot: when the sleeping owner plans to wake, in wheel time, or {@link #AWAKE}; read by every producer. */
    private static final int WAKE_AT = 16;
    /**
     * Slot: wheel time of the next sweep; entries due at or after it go to the young inbox. Written by the owner once
     * per sweep, read by every producer.
     */
    private static final int NEXT_SWEEP = 32;
    /** Slot: non-zero when a producer may have pushed a young entry after the owner took the young inbox. */
    private static final int STRAGGLERS = 64;
    /** Slot: the last tick the owner processed; read by the Kafka face's producers. */
    private static final int PROCESSED_TICK = 48;
    /** Slot: entries that left the pending state through the owner (expired or abandoned). */
    private static final int SETTLED = 80;
    /** Slot, owner only: cancelled entries the owner has dropped. */
    private static final int CANCELLED_DROPPED = 81;
    /** Slot, owner only: entries expired by the current {@link #expireDue()} call. */
    private static final int EXPIRED_THIS_ROUND = 82;
    private static final int SLOT_COUNT = 98;

    // Read by producers; final, so their lines are never written after construction.
    private final String name;
    private final Ticker ticker;
    private final long maxPending;
    private final long origin;
    private final long tickNanos;
    /** Entries due before the next sweep; taken on every pass. */
    private final MpscInbox<E> urgent = new MpscInbox<>();
    /** Entries due at or after the next sweep; taken at the sweep (and when stragglers are flagged). */
    private final MpscInbox<E> young = new MpscInbox<>();
    private final PerThreadCounts counts = new PerThreadCounts();
    private final long[] slots = new long[SLOT_COUNT];
    private volatile boolean stopped;
    /** Written once per owner thread, not per pass. */
    private volatile Thread owner;

    // Owner only.
    private final TimingWheel<E> wheel;
    private final Nursery<E> nursery = new Nursery<>();
    /**
     * Time between sweeps: how long young entries wait untouched in their inbox, and survivors then in the nursery.
     * {@link #SWEEP_TARGET_NANOS}, but at least a tick and at most a level-0 rotation.
     */
    private final long sweepNanos;
    /** Wheel time of the next sweep (the owner's copy of the {@code NEXT_SWEEP} slot). */
    private long nextSweep;
    private final Predicate<E> alive = TimerEntry::isPending;
    private final Consumer<E> file;
    private final Consumer<E> linkOrDrop = this::linkOrDrop;
    private final Consumer<E> expireOrDrop = this::expireOrDrop;
    private final Consumer<? super E> runner;

    /**
     * @param runner receives each expired entry on the owner thread, already marked {@code EXPIRED}; it runs or
     *               dispatches the task and must not throw
     */
    TimerCore(String name, Ticker ticker, long tickNanos, int wheelSize, long maxPending,
              Consumer<? super E> runner) {
        this(name, ticker, tickNanos, wheelSize, ticker.read(), maxPending, runner);
    }

    /**
     * @param originNanos the ticker reading that is wheel time zero; tick boundaries fall on {@code origin + k * tick}
     *                    (the Kafka face uses it to keep Kafka's tick grid)
     */
    TimerCore(String name, Ticker ticker, long tickNanos, int wheelSize, long originNanos, long maxPending,
              Consumer<? super E> runner) {
        this.name = name;
        this.ticker = ticker;
        this.maxPending = maxPending;
        this.runner = runner;
        this.wheel = new TimingWheel<>(tickNanos, wheelSize, originNanos);
        this.file = wheel::schedule;
        long rotation = tickNanos > Long.MAX_VALUE / wheelSize ? Long.MAX_VALUE : tickNanos * wheelSize;
        this.sweepNanos = Math.max(tickNanos, Math.min(rotation, SWEEP_TARGET_NANOS));
        this.origin = originNanos;
        this.tickNanos = tickNanos;
        slots[WAKE_AT] = AWAKE;
    }

    String name() {
        return name;
    }

    Ticker ticker() {
        return ticker;
    }

    long tickNanos() {
        return tickNanos;
    }

    boolean isStopped() {
        return stopped;
    }

    /**
     * Hands an entry to the owner. Any thread.
     *
     * @throws IllegalStateException       if the timer is stopped
     * @throws RejectedExecutionException if {@code maxPending} timers are pending
     */
    void schedule(E entry, long delayNanos) {
        scheduleAt(entry, deadlineAfter(delayNanos));
    }

    /**
     * Converts a delay from now into a deadline in wheel time, saturating. Any thread.
     *
     * @param delayNanos the delay; zero or negative means "due now"
     * @return the deadline in wheel time, for {@link #scheduleAt} and {@link #isDueOnArrival}
     */
    long deadlineAfter(long delayNanos) {
        return TimingWheel.deadlineAfter(origin, tickNanos, ticker.read(), delayNanos);
    }

    /**
     * Tells whether an entry with this deadline would be expired by the owner's next pass without any wait: its
     * tick has already been processed (the owner has advanced the wheel past it). Any thread; the answer may
     * turn from false to true at any moment, never back.
     *
     * @param deadline a deadline in wheel time, from {@link #deadlineAfter}
     * @return true if the deadline's tick is at or before the last tick the owner processed
     */
    boolean isDueOnArrival(long deadline) {
        long deadlineTick = deadline / tickNanos + (deadline % tickNanos == 0 ? 0 : 1);
        return deadlineTick <= (long) SLOT.getVolatile(slots, PROCESSED_TICK);
    }

    /**
     * Hands an entry with a precomputed deadline to the owner, as {@link #schedule} does. Any thread.
     *
     * @param deadline a deadline in wheel time, from {@link #deadlineAfter}
     * @throws IllegalStateException       if the timer is stopped
     * @throws RejectedExecutionException if {@code maxPending} timers are pending
     */
    void scheduleAt(E entry, long deadline) {
        scheduleAt(entry, deadline, nextSweep());
    }

    /**
     * {@link #scheduleAt(TimerEntry, long)} by a producer that read the sweep time earlier: the real path reads it
     * just before; a test passes an old one to play a producer that a sweep overtook between the read and the push.
     *
     * @param sweepSeen the {@link #nextSweep()} the producer read
     */
    void scheduleAt(E entry, long deadline, long sweepSeen) {
        if (stopped) {
            throw stoppedError();
        }
        if (maxPending != Long.MAX_VALUE && pendingCount() >= maxPending) {
            throw new RejectedExecutionException("timer '" + name + "' has " + pendingCount()
                    + " pending timers, the maximum set by maxPending(" + maxPending + ")");
        }
        entry.deadline(deadline);
        counts.scheduled();
        if (deadline < sweepSeen) {
            urgent.offer(entry);
        } else {
            young.offer(entry);
            if (nextSweep() != sweepSeen) {
                // A sweep began since we read its time; it may have taken the young inbox before our push.
                SLOT.setVolatile(slots, STRAGGLERS, 1L);
            }
        }
        long w = (long) SLOT.getVolatile(slots, WAKE_AT);
        if (w != AWAKE && deadline <= w - tickNanos && SLOT.compareAndSet(slots, WAKE_AT, w, AWAKE)) {
            LockSupport.unpark(owner);
        }
        if (stopped && entry.transition(TimerEntry.CANCELLED)) {
            // Raced with stop(): the owner's final sweep did not take the entry, so it is ours to reject.
            counts.cancelled();
            throw stoppedError();
        }
    }

    /** @return wheel time of the owner's next sweep: entries due at or after it are young. Any thread. */
    long nextSweep() {
        return (long) SLOT.getVolatile(slots, NEXT_SWEEP);
    }

    /**
     * @return true if the owner has nothing to file or expire (wheel, nursery and young inbox empty); owner only
     */
    boolean isIdle() {
        return wheel.isEmpty() && nursery.isEmpty() && young.isEmpty();
    }

    /**
     * @return entries the owner has filed or holds in the nursery, cancelled ones not yet dropped included (entries
     *         still in an inbox are not counted); owner only
     */
    int heldCount() {
        return wheel.size() + nursery.size();
    }

    /** Records a successful cancel CAS. Any thread. */
    void entryCancelled() {
        counts.cancelled();
    }

    /** @return scheduled minus cancelled, expired and abandoned; exact when no thread is mid-operation */
    long pendingCount() {
        return Math.max(0L, counts.scheduledSum() - counts.cancelledSum() - (long) SLOT.getVolatile(slots, SETTLED));
    }

    /**
     * Takes new entries, hands what is due by the ticker to the runner, and purges if needed. Owner only.
     *
     * @return how many entries expired
     */
    int expireDue() {
        claimOwnership();
        long now = ticker.read();
        long elapsed = wheel.elapsed(now);
        boolean swept = false;
        if (elapsed >= nextSweep) {
            // What waited a whole sweep interval in the nursery is filed; then the young inbox is classified against the new sweep time,
            // published first so that a producer pushing after the take sees the change and flags itself.
            sweepNursery();
            nextSweep = elapsed > Long.MAX_VALUE - sweepNanos ? Long.MAX_VALUE : elapsed + sweepNanos;
            SLOT.setVolatile(slots, NEXT_SWEEP, nextSweep);
            takeYoung();
            swept = true;
        } else if ((long) SLOT.getVolatile(slots, STRAGGLERS) != 0) {
            takeYoung();
        }
        slots[CANCELLED_DROPPED] += urgent.drain(alive, linkOrDrop);
        slots[EXPIRED_THIS_ROUND] = 0;
        wheel.advance(now, expireOrDrop);
        long tick = wheel.elapsed(now) / tickNanos;
        if (tick > slots[PROCESSED_TICK]) {
            // the wheel's current tick: every tick up to it has been expired
            SLOT.setRelease(slots, PROCESSED_TICK, tick);
        }
        if (swept) {
            // Only right after a sweep does the cancelled count say how much garbage the wheel holds: between sweeps
            // it also counts young entries cancelled in the inbox, which cost the wheel nothing.
            purgeIfWorthIt();
        }
        return (int) slots[EXPIRED_THIS_ROUND];
    }

    private void takeYoung() {
        SLOT.setVolatile(slots, STRAGGLERS, 0L);
        slots[CANCELLED_DROPPED] += young.drain(alive, linkOrDrop);
    }

    private void claimOwnership() {
        Thread me = Thread.currentThread();
        if (owner != me) {
            owner = me;
        }
    }

    private void expireOrDrop(E e) {
        if (e.transition(TimerEntry.EXPIRED)) {
            slots[EXPIRED_THIS_ROUND]++;
            // Single writer (the owner): a release store is enough and costs no fence on the expiry path.
            SLOT.setRelease(slots, SETTLED, slots[SETTLED] + 1);
            runner.accept(e);
        } else {
            slots[CANCELLED_DROPPED]++;
        }
    }

    /**
     * Sleeps until the next bucket is due, an earlier timer arrives, {@code maxNanos} pass, or {@link #wake()}.
     * Owner only.
     */
    void awaitWork(long maxNanos) {
        claimOwnership();
        long now = ticker.read();
        long untilNext = wheel.delayToNext(now);
        if (!nursery.isEmpty() || !young.isEmpty()) {
            untilNext = Math.min(untilNext, Math.max(0L, nextSweep - wheel.elapsed(now)));
        }
        if (untilNext <= 0) {
            return;
        }
        SLOT.setVolatile(slots, WAKE_AT, wheel.deadlineAfter(now, untilNext));
        if (urgent.isEmpty() && (long) SLOT.getVolatile(slots, STRAGGLERS) == 0 && !stopped) {
            long delay = Math.min(untilNext, maxNanos);
            if (delay == Long.MAX_VALUE) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, delay);
            }
        }
        SLOT.setVolatile(slots, WAKE_AT, AWAKE);
    }

    /** Wakes the owner if it sleeps. Any thread. */
    void wake() {
        Thread t = owner;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Marks the timer stopped; producers fail from now on. Any thread. */
    void markStopped() {
        stopped = true;
        wake();
    }

    /**
     * Abandons every pending entry (wheel and inbox), after {@link #markStopped()}. Owner only.
     *
     * @param sink receives each entry that was pending and now never will run
     */
    void abandonAll(Consumer<? super E> sink) {
        long[] count = {0};
        Consumer<E> abandon = e -> {
            if (e.transition(TimerEntry.ABANDONED)) {
                count[0]++;
                sink.accept(e);
            }
        };
        urgent.drain(abandon);
        young.drain(abandon);
        nursery.sweep(e -> true, abandon);
        wheel.clear(abandon);
        SLOT.setRelease(slots, SETTLED, slots[SETTLED] + count[0]);
    }

    /** Files a pending entry taken from an inbox, or holds it in the nursery until the next sweep. */
    private void linkOrDrop(E e) {
        if (!e.isPending()) {
            slots[CANCELLED_DROPPED]++; // cancelled between the inbox's filter and here
        } else if (e.deadline() >= nextSweep) {
            nursery.add(e);
        } else {
            wheel.schedule(e);
        }
    }

    private void sweepNursery() {
        if (!nursery.isEmpty()) {
            slots[CANCELLED_DROPPED] += nursery.sweep(alive, file);
        }
    }

    private void purgeIfWorthIt() {
        long waiting = counts.cancelledSum() - slots[CANCELLED_DROPPED];
        if (waiting > PURGE_FLOOR && waiting * 2 > heldCount()) {
            sweepNursery();
            slots[CANCELLED_DROPPED] += wheel.removeIf(e -> !e.isPending());
        }
    }

    IllegalStateException stoppedError() {
        return new IllegalStateException("timer '" + name + "' is stopped; it accepts no new timers");
    }
}

package io.clockwork.engine;

import io.clockwork.time.Ticker;

import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The concurrency shell around one {@link TimingWheel}, shared by every timer face: what producers and the owner do
 * with the state {@link TimerCoreFields} lays out. Thread-safe for {@link #schedule}, {@link #entryCancelled()} and
 * {@link #pendingCount()}; everything else belongs to the single thread that drives the wheel (the "owner").
 *
 * <h2>Design</h2>
 * Producers never touch the wheel: they compute a deadline, hand the entry over through their own lane
 * ({@link ProducerLanes}: a release store, no locked instruction; threads without a lane CAS it onto a shared
 * {@link MpscInbox}) and, only if the owner is asleep past that deadline, unpark it. Cancel is one CAS on the entry
 * plus a plain store of the cancelling thread's count in its lane; the owner drops cancelled entries when it meets
 * them (taking them from the lanes or the inbox, sweeping the nursery, cascading or expiring a bucket), and purges
 * when cancelled entries exceed half of those it holds, so memory stays within a constant factor of the live timers
 * even when nearly all are cancelled (request-timeout workloads).
 *
 * <p>New entries due after the next sweep wait in a {@link Nursery} for up to {@value #NURSERY_TICKS} ticks before
 * they are filed: timers cancelled young, the common case for request timeouts, are then dropped in one sequential
 * pass instead of being filed and dropped later. Entries due sooner are filed at once, and the owner wakes for the
 * sweep, so no timer fires later for it. The period is short because a cancelled entry stays reachable until the
 * sweep drops it, and every young GC copies it meanwhile, so a longer period costs more GC work than it saves.
 *
 * <p><b>Far deadlines dated by the owner.</b> On a core built with {@code ownerDatesFarDeadlines} (a ticker that
 * moves only with real time), a {@link #schedule} whose delay is at least {@link #ownerDatedDelayNanos()} reads no
 * clock: the producer stores the delay (as {@code ~delay}, a negative deadline) and the owner dates it when the
 * nursery sweep files the entry, as the sweep's reading plus the delay. That reading is taken after the drain that
 * took the entry, so after the call: the entry never falls due early, and at most the owner's longest sleep plus a
 * nursery period later than a dated one (under 1/1000 of its delay), plus scheduling latency. The clock read is
 * the largest part of a schedule's cost, and such timers, request timeouts of seconds, are almost always cancelled
 * before the sweep, so they are never dated at all. The producer's wake-up check uses a lower bound of the
 * deadline: the owner's last reading, published beside {@code wakeAt}, plus the delay.
 *
 * <p>Wake-up protocol (Dekker style on two volatiles): the owner publishes {@code wakeAt} (when it intends to wake)
 * and then takes in what the inbox and lanes hold, publishing an earlier time if something taken is due sooner
 * ({@link #settleWakeAt}); a producer hands its entry over and then reads {@code wakeAt}. With a fence on both
 * sides one of them sees the other, so an earlier timer never waits for a later wake-up, and producers whose timer
 * is not earlier pay no syscall. The owner's side always has its fence (a full fence between its store
 * and its look). The producer's side has it through the inbox CAS, or an explicit fence, only for entries due within
 * {@link #MAX_PARK_NANOS} plus a tick: a lane entry due later needs no wake-up, because the owner never sleeps
 * longer than {@link #MAX_PARK_NANOS} without looking at the lanes again. Before a longer sleep (an idle timer,
 * or a Kafka reaper's wait) it first sleeps that long with {@code wakeAt} published, then looks again; a producer
 * that read a stale {@code wakeAt} had published its entry a few nanoseconds earlier, and the second look finds it.
 * So the fence is paid only by timers due within about 10 ms, and request timeouts are longer.
 */
public final class TimerCore<E extends TimerEntry> extends TimerCoreFields<E> {

    /**
     * While the wheel holds entries, the owner wakes at least this often, so that cancelled entries are purged even
     * when no timer is due for a long time.
     */
    public static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Pause between the two lane drains of {@link #abandonAll}. */
    private static final long STOP_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Ticks between nursery sweeps. */
    public static final int NURSERY_TICKS = 4;
    /** An owner-dated delay is at least this many times the most that the owner's dating adds to its lateness. */
    public static final long OWNER_DATED_FACTOR = 1024;

    /** The first choice for a schedule: a release store instead of the inbox's CAS (see {@link ProducerLanes}). */
    private final ProducerLanes<E> lanes = new ProducerLanes<>(this::letOwnerCatchUp);
    /** Wakes the owner when the ticker jumps (see {@link Ticker#watch}); closed when the entries are abandoned. */
    private final Ticker.Watch watch;
    // Owner only.
    private final Predicate<E> alive = TimerEntry::isPending;
    private final Consumer<E> file = this::file;
    private final Consumer<E> linkOrDrop = this::linkOrDrop;
    private final Consumer<E> expireOrDrop = this::expireOrDrop;
    private final Consumer<? super E> runner;

    /**
     * @param runner receives each expired entry on the owner thread, already marked {@code EXPIRED}; it runs or
     *               dispatches the task and must not throw
     */
    public TimerCore(String name, Ticker ticker, long tickNanos, int wheelSize, long maxPending,
              Consumer<? super E> runner) {
        this(name, ticker, tickNanos, wheelSize, maxPending, false, runner);
    }

    /**
     * @param ownerDatesFarDeadlines true to let {@link #schedule} of a delay of at least
     *                               {@link #ownerDatedDelayNanos()} leave the dating to the owner (see the class
     *                               comment); only for a ticker that moves with real time, since the owner dates
     *                               such an entry with a later reading than the call's
     */
    public TimerCore(String name, Ticker ticker, long tickNanos, int wheelSize, long maxPending,
              boolean ownerDatesFarDeadlines, Consumer<? super E> runner) {
        this(name, ticker, tickNanos, wheelSize, ticker.read(), maxPending, TimerEntry.UNSHARED,
                ownerDatesFarDeadlines, runner);
    }

    /**
     * @param originNanos the ticker reading that is wheel time zero; tick boundaries fall on {@code origin + k * tick}
     *                    (the Kafka face uses it to keep Kafka's tick grid)
     * @param sequencer   {@link TimerEntry#UNSHARED} if no other thread can reach an entry before it is scheduled,
     *                    else {@link TimerEntry#SHARED}
     */
    public TimerCore(String name, Ticker ticker, long tickNanos, int wheelSize, long originNanos, long maxPending,
              MpscInbox.Sequencer<TimerEntry> sequencer, Consumer<? super E> runner) {
        this(name, ticker, tickNanos, wheelSize, originNanos, maxPending, sequencer, false, runner);
    }

    /**
     * @param originNanos            the ticker reading that is wheel time zero; tick boundaries fall on
     *                               {@code origin + k * tick} (the Kafka face uses it to keep Kafka's tick grid)
     * @param sequencer              {@link TimerEntry#UNSHARED} if no other thread can reach an entry before it is
     *                               scheduled, else {@link TimerEntry#SHARED}
     * @param ownerDatesFarDeadlines true to let {@link #schedule} leave the dating of far deadlines to the owner, as
     *                               in {@link #TimerCore(String, Ticker, long, int, long, boolean, Consumer)};
     *                               {@link #scheduleAt} always dates at the call
     */
    public TimerCore(String name, Ticker ticker, long tickNanos, int wheelSize, long originNanos, long maxPending,
              MpscInbox.Sequencer<TimerEntry> sequencer, boolean ownerDatesFarDeadlines, Consumer<? super E> runner) {
        super(name, ticker, tickNanos, wheelSize, originNanos, maxPending, sequencer, ownerDatesFarDeadlines);
        this.runner = runner;
        this.watch = ticker.watch(this::wake);
    }

    public String name() {
        return name;
    }

    public Ticker ticker() {
        return ticker;
    }

    public long tickNanos() {
        return tickNanos;
    }

    public boolean isStopped() {
        return stopped;
    }

    /**
     * @return the least delay that {@link #schedule} leaves to the owner to date: {@value #OWNER_DATED_FACTOR} times
     *         the owner's longest sleep plus a nursery period (14.3 s with a 1 ms tick), so that dating it late by
     *         that much is under 1/1000 of its delay; {@link Long#MAX_VALUE} if this core dates every entry at the
     *         call
     */
    public long ownerDatedDelayNanos() {
        return ownerDatedDelay;
    }

    /**
     * Hands an entry to the owner. Any thread.
     *
     * @throws IllegalStateException       if the timer is stopped
     * @throws RejectedExecutionException if {@code maxPending} timers are pending
     */
    public void schedule(E entry, long delayNanos) {
        if (delayNanos >= ownerDatedDelay) {
            // No clock read: the owner dates the entry (class comment). The wake-up check below compares a lower
            // bound of its deadline, read before the entry is published, so it wakes the owner whenever a dated
            // entry would.
            long lowerBound = (long) SLOT.getVolatile(slots, OWNER_ELAPSED) + delayNanos;
            entry.deadline(~delayNanos);
            hand(entry, lowerBound < 0 ? Long.MAX_VALUE : lowerBound, delayNanos);
        } else {
            scheduleAt(entry, deadlineAfter(delayNanos), delayNanos);
        }
    }

    /**
     * Hands an entry to the owner to fall due at a ticker reading. Any thread. The deadline is that reading whatever
     * the ticker does before this call reads it: {@code schedule(entry, reading - ticker.read())} would come due late
     * by whatever passed between the caller's reading and this one (a GC pause; a manual ticker's jump, which leaves
     * the entry waiting for another jump). A reading that has passed means due now.
     *
     * @param tickerReading when the entry falls due, on the ticker's timeline (differences within 2^63 ns of now)
     * @throws IllegalStateException       if the timer is stopped
     * @throws RejectedExecutionException if {@code maxPending} timers are pending
     */
    public void scheduleAtReading(E entry, long tickerReading) {
        long now = ticker.read();
        long delayNanos = tickerReading - now;
        scheduleAt(entry, TimingWheel.deadlineAfter(origin, tickNanos, now, delayNanos), delayNanos);
    }

    /**
     * Converts a delay from now into a deadline in wheel time, saturating. Any thread.
     *
     * @param delayNanos the delay; zero or negative means "due now"
     * @return the deadline in wheel time, for {@link #scheduleAt} and {@link #isDueOnArrival}
     */
    public long deadlineAfter(long delayNanos) {
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
    public boolean isDueOnArrival(long deadline) {
        long deadlineTick = deadline / tickNanos + (deadline % tickNanos == 0 ? 0 : 1);
        return deadlineTick <= (long) SLOT.getVolatile(slots, PROCESSED_TICK);
    }

    /**
     * Hands an entry with a precomputed deadline to the owner, as {@link #schedule} does. Any thread.
     *
     * @param deadline   a deadline in wheel time, from {@link #deadlineAfter}
     * @param delayNanos the delay the deadline was computed from
     * @throws IllegalStateException       if the timer is stopped
     * @throws RejectedExecutionException if {@code maxPending} timers are pending
     */
    public void scheduleAt(E entry, long deadline, long delayNanos) {
        entry.deadline(deadline);
        hand(entry, deadline, delayNanos);
    }

    /**
     * Hands over an entry whose deadline field is set, and wakes the owner if it sleeps past {@code deadline}.
     *
     * @param deadline the entry's deadline in wheel time, or a lower bound of it for an owner-dated entry
     */
    private void hand(E entry, long deadline, long delayNanos) {
        if (stopped) {
            throw stoppedError();
        }
        if (maxPending != Long.MAX_VALUE && pendingCount() >= maxPending) {
            throw new RejectedExecutionException("timer '" + name + "' has " + pendingCount()
                    + " pending timers, the maximum set by maxPending(" + maxPending + ")");
        }
        if (!lanes.offer(entry)) {
            inbox.offer(entry); // its CAS orders the offer before the read of wakeAt below
        } else if (delayNanos < fenceFreeDelay) {
            // The owner may be deciding to sleep past this deadline right now: order the lane's release store
            // before the read of wakeAt, so that one of us sees the other (the owner's side is in awaitWork).
            VarHandle.fullFence();
        }
        long w = (long) SLOT.getVolatile(slots, WAKE_AT);
        while (w != AWAKE && deadline <= w - tickNanos) {
            if (SLOT.compareAndSet(slots, WAKE_AT, w, AWAKE)) {
                LockSupport.unpark(owner);
                break;
            }
            w = (long) SLOT.getVolatile(slots, WAKE_AT); // the owner published an earlier wake-up meanwhile
        }
        if (stopped && entry.transition(TimerEntry.CANCELLED)) {
            // Raced with stop(): the owner's final sweep did not take the entry, so it is ours to reject.
            lanes.countCancel();
            throw stoppedError();
        }
    }

    /** @return true if the owner holds no entry (in the wheel or the nursery); owner only */
    public boolean isIdle() {
        return wheel.isEmpty() && nursery.isEmpty();
    }

    /** @return true if no entry waits in the inbox or a lane for the owner to take it; any thread */
    public boolean inboxIsEmpty() {
        return inbox.isEmpty() && lanes.isEmpty();
    }

    /** @return entries the owner holds (wheel and nursery), cancelled ones not yet dropped included; owner only */
    public int heldCount() {
        return wheel.size() + nursery.size();
    }

    /** Records a successful cancel CAS. Any thread. */
    public void entryCancelled() {
        lanes.countCancel();
    }

    /** @return scheduled minus cancelled, expired and abandoned; exact when no thread is mid-operation */
    public long pendingCount() {
        // Settled and cancelled first: each counts only entries already offered, so the difference never
        // counts an entry twice while operations are in flight.
        long gone = (long) SLOT.getVolatile(slots, SETTLED) + lanes.cancelledCount();
        return Math.max(0L, inbox.offeredCount() + lanes.producedCount() - gone);
    }

    /** @return entries ever scheduled (every accepted schedule, including those later cancelled); any thread */
    public long scheduledCount() {
        return inbox.offeredCount() + lanes.producedCount();
    }

    /** @return entries cancelled by a successful cancel; any thread */
    public long cancelledCount() {
        return lanes.cancelledCount();
    }

    /**
     * Counts expired entries from the counters the owner keeps anyway, so expiry pays nothing for it. Any thread.
     *
     * @return entries handed to the runner; exact when no stop is in flight
     */
    public long expiredCount() {
        // ABANDONED first: once it is seen, SETTLED (stored before it) includes the abandoned entries.
        long abandoned = (long) SLOT.getAcquire(slots, ABANDONED);
        return Math.max(0L, (long) SLOT.getVolatile(slots, SETTLED) - abandoned);
    }

    /**
     * @param entry an entry being expired
     * @return nanoseconds from its deadline to now by the ticker, at least 0
     */
    public long latenessNanos(E entry) {
        return Math.max(0L, ticker.read() - origin - entry.deadline());
    }

    /**
     * Runs the owner's loop on the calling thread, which becomes the owner, until {@link #markStopped()}: expires
     * what is due, then sleeps until there is work. An empty wheel has nothing to expire or purge, so an idle core
     * sleeps until a producer or a ticker jump wakes it.
     */
    public void drive() {
        while (!stopped) {
            expireDue();
            awaitWork(isIdle() ? Long.MAX_VALUE : MAX_PARK_NANOS);
        }
    }

    /**
     * Takes new entries, hands what is due by the ticker to the runner, and purges if needed. Owner only.
     *
     * @return how many entries expired
     */
    public int expireDue() {
        claimOwnership();
        long now = ticker.read();
        long elapsed = wheel.elapsed(now);
        if (elapsed >= nextSweep) {
            // Before the drain: what waited a whole period is filed; what arrives now waits for the next sweep.
            // The reading was taken after every drain that put an entry in the nursery, so it dates them.
            sweepNursery(now);
            nextSweep = elapsed > Long.MAX_VALUE - nurseryNanos ? Long.MAX_VALUE : elapsed + nurseryNanos;
        }
        inbox.drain(linkOrDrop);
        lanes.drain(linkOrDrop);
        slots[EXPIRED_THIS_ROUND] = 0;
        wheel.advance(now, expireOrDrop);
        long tick = wheel.elapsed(now) / tickNanos;
        if (tick > slots[PROCESSED_TICK]) {
            // the wheel's current tick: every tick up to it has been expired
            SLOT.setRelease(slots, PROCESSED_TICK, tick);
        }
        purgeIfWorthIt();
        return (int) slots[EXPIRED_THIS_ROUND];
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
     *
     * @param maxNanos the longest sleep; capped at {@link #MAX_PARK_NANOS} if the owner holds entries once it has
     *                 taken what producers handed over
     */
    public void awaitWork(long maxNanos) {
        claimOwnership();
        long start = ticker.read();
        long untilNext = untilNextWork(start);
        if (untilNext <= 0) {
            return;
        }
        untilNext = settleWakeAt(start, untilNext);
        long delay = Math.min(untilNext, longestSleep(maxNanos));
        if (delay > MAX_PARK_NANOS && !stopped) {
            // A grace period before a long sleep. A producer whose lane entry falls due no sooner than
            // MAX_PARK_NANOS from now publishes it with a release store and no fence, then reads wakeAt: it may
            // read AWAKE while the owner's look misses its entry (each thread's store still on its way to the
            // other). A store reaches other cores within nanoseconds, so the look after this bounded sleep finds
            // the entry; a producer that reads wakeAt after it was published sees the long sleep and wakes us.
            LockSupport.parkNanos(this, MAX_PARK_NANOS);
            long now = ticker.read();
            // Re-read the time: a ticker jump may have woken us (consuming the unpark) to expire.
            long waited = now - start;
            untilNext = untilNextWork(now);
            untilNext = untilNext <= 0 ? 0 : settleWakeAt(now, untilNext);
            long cap = longestSleep(maxNanos);
            delay = Math.min(untilNext, cap == Long.MAX_VALUE ? cap : cap - waited);
        }
        if (delay > 0 && !stopped) {
            if (delay == Long.MAX_VALUE) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, delay);
            }
        }
        SLOT.setVolatile(slots, WAKE_AT, AWAKE);
    }

    /** @return {@code maxNanos}, capped at {@link #MAX_PARK_NANOS} while the owner holds entries to purge */
    private long longestSleep(long maxNanos) {
        return isIdle() ? maxNanos : Math.min(maxNanos, MAX_PARK_NANOS);
    }

    /**
     * The owner's side of the wake-up handshake: publishes when it means to wake, then takes in what producers
     * handed over meanwhile and looks again, until nothing taken falls due before the published time. Owner only.
     *
     * <p>Why it takes entries rather than refusing to sleep while any wait: a producer that schedules without pause
     * always has a fresh entry in its lane, and an owner that will not sleep past one spins, draining a few dozen
     * entries every few microseconds instead of making one pass per tick. Entries due after the published time need
     * no earlier wake-up: they are filed now, and whatever is handed over later is the producers' to signal (see the
     * class comment).
     *
     * @param now       the ticker reading the wait starts from
     * @param untilNext nanoseconds from {@code now} until the owner next has work, positive
     * @return nanoseconds from {@code now} until the owner next has work, with everything taken in; 0 if now
     */
    long settleWakeAt(long now, long untilNext) {
        SLOT.setOpaque(slots, OWNER_ELAPSED, wheel.elapsed(now));
        while (true) {
            SLOT.setRelease(slots, WAKE_AT, wheel.deadlineAfter(now, untilNext));
            // Order the store before the lane reads below (they are acquire loads, which a release store alone
            // does not keep behind it): with the producer's fence this is the Dekker handshake of the class comment.
            VarHandle.fullFence();
            if (inbox.drain(linkOrDrop) + lanes.drain(linkOrDrop) == 0) {
                return untilNext;
            }
            long after = untilNextWork(now);
            if (after >= untilNext) {
                return untilNext;
            }
            if (after <= 0) {
                return 0;
            }
            untilNext = after;
        }
    }

    /**
     * @return when the owner has published it means to wake, in wheel time, or {@link #AWAKE} if it is running or a
     *         producer has claimed the wake-up; any thread (the handshake's jcstress tests read it)
     */
    long wakeAt() {
        return (long) SLOT.getVolatile(slots, WAKE_AT);
    }

    /** @return nanoseconds from {@code now} until the wheel or the nursery next has work; owner only */
    private long untilNextWork(long now) {
        long untilNext = wheel.delayToNext(now);
        if (!nursery.isEmpty()) {
            untilNext = Math.min(untilNext, Math.max(0L, nextSweep - wheel.elapsed(now)));
        }
        return untilNext;
    }

    /**
     * Run by a producer whose lane holds more than {@link ProducerLanes#MAX_BACKLOG} entries the owner has not taken:
     * wakes the owner if it sleeps (claiming the wake-up as {@link #scheduleAt} does, so one producer unparks it) and
     * yields the producer's core once. A producer that outruns the owner (more busy producers than cores, the owner
     * getting a fraction of one) then lets the owner run, instead of growing its lane, and every young collection's
     * copying, without bound; a producer whose owner is busy on another core (an expiry storm) loses about a
     * microsecond per {@value ProducerLanes#CHUNK} schedules and is never held up.
     */
    private void letOwnerCatchUp() {
        long w = (long) SLOT.getVolatile(slots, WAKE_AT);
        if (w != AWAKE && SLOT.compareAndSet(slots, WAKE_AT, w, AWAKE)) {
            LockSupport.unpark(owner);
        }
        Thread.yield();
    }

    /** Wakes the owner if it sleeps. Any thread. */
    public void wake() {
        Thread t = owner;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Marks the timer stopped; producers fail from now on. Any thread. */
    public void markStopped() {
        stopped = true;
        wake();
    }

    /**
     * Abandons every pending entry (wheel, nursery, lanes and inbox), after {@link #markStopped()}, unlinking each
     * so that the dead timer's entries do not keep one another reachable. Owner only; the owner does no other work
     * afterwards.
     *
     * @param sink receives each entry that was pending and now never will run
     * @return how many there were
     */
    public long abandonAll(Consumer<? super E> sink) {
        long[] count = {0};
        Consumer<E> abandon = e -> {
            if (e.transition(TimerEntry.ABANDONED)) {
                count[0]++;
                sink.accept(e);
            }
        };
        inbox.drain(abandon);
        lanes.drain(abandon);
        // A producer that published into its lane just as the timer stopped may have read "not stopped" while
        // the drain above missed its entry (the lanes publish without a fence); its store becomes visible within
        // nanoseconds, so a second drain after a short pause takes it.
        LockSupport.parkNanos(this, STOP_GRACE_NANOS);
        lanes.drain(abandon);
        nursery.sweep(e -> true, abandon);
        wheel.clear(abandon);
        SLOT.setRelease(slots, SETTLED, slots[SETTLED] + count[0]);
        SLOT.setRelease(slots, ABANDONED, count[0]);
        watch.close();
        return count[0];
    }

    private void linkOrDrop(E e) {
        long deadline = e.deadline();
        if (!e.isPending()) {
            slots[CANCELLED_DROPPED]++;
        } else if (deadline >= nextSweep || deadline < 0) {
            // An owner-dated entry (negative: ~delay) is due later than the next sweep, which dates it.
            nursery.add(e);
        } else {
            wheel.schedule(e);
        }
    }

    /**
     * Files the nursery's live entries, dating owner-dated ones with a reading taken after the drains that took
     * them.
     */
    private void sweepNursery(long reading) {
        if (!nursery.isEmpty()) {
            sweepReading = reading;
            slots[CANCELLED_DROPPED] += nursery.sweep(alive, file);
        }
    }

    /** Files a nursery survivor, dating it first if the owner dates it. */
    private void file(E e) {
        long deadline = e.deadline();
        if (deadline < 0) {
            e.deadline(wheel.deadlineAfter(sweepReading, ~deadline));
        }
        wheel.schedule(e);
    }

    private void purgeIfWorthIt() {
        long waiting = lanes.cancelledCount() - slots[CANCELLED_DROPPED];
        if (TimingWheel.worthPurging(waiting, heldCount())) {
            // A fresh reading: this pass's first one was taken before its drains.
            sweepNursery(ticker.read());
            slots[CANCELLED_DROPPED] += wheel.removeIf(e -> !e.isPending());
        }
    }

    public IllegalStateException stoppedError() {
        return new IllegalStateException("timer '" + name + "' is stopped; it accepts no new timers");
    }
}

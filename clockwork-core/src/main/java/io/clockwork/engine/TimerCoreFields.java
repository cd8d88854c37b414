package io.clockwork.engine;

import io.clockwork.time.Ticker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The state of a {@link TimerCore} and where it lies in memory: what producers read, the padded words the owner and
 * producers share, and what only the owner touches. Not thread-safe by itself: {@link TimerCore}, its only subclass,
 * says which thread reads and writes each field (the fields live in a superclass, as JCTools keeps a queue's fields,
 * so that the core's code reads them as its own, with no indirection).
 *
 * <p>Cache lines: a producer reads only the core's final fields, the {@code wakeAt} word and its lane. Everything
 * the owner writes as it works (counters, the processed tick) lives in {@link #slots}, a padded array whose words sit
 * at least 128 bytes from anything else, so the owner's writes never invalidate a line a producer needs; likewise
 * producers compute deadlines from copies of the wheel's origin and tick rather than reading the wheel object, which
 * the owner writes on every link.
 *
 * @param <E> the entry type
 */
abstract class TimerCoreFields<E extends TimerEntry> {

    /** {@code wakeAt} while the owner is running (producers need not wake it). */
    static final long AWAKE = -1L;

    static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    /** Slot: when the sleeping owner plans to wake, in wheel time, or {@link #AWAKE}; read by every producer. */
    static final int WAKE_AT = 16;
    /**
     * Slot, beside {@link #WAKE_AT} and written with it: the owner's latest reading in wheel time, a lower bound of
     * the present that producers of owner-dated entries read instead of the clock.
     */
    static final int OWNER_ELAPSED = 17;
    /** Slot: the last tick the owner processed; read by the Kafka face's producers. */
    static final int PROCESSED_TICK = 32;
    /** Slot: entries that left the pending state through the owner (expired or abandoned). */
    static final int SETTLED = 48;
    /** Slot, owner only: cancelled entries the owner has dropped. */
    static final int CANCELLED_DROPPED = 49;
    /** Slot, owner only: entries expired by the current {@code expireDue()} call. */
    static final int EXPIRED_THIS_ROUND = 50;
    /** Slot: entries abandoned by {@code abandonAll}; written once, after {@link #SETTLED} includes them. */
    static final int ABANDONED = 51;
    private static final int SLOT_COUNT = 64;

    // Read by producers; final, so their lines are never written after construction.
    final String name;
    final Ticker ticker;
    final long maxPending;
    final long origin;
    final long tickNanos;
    /**
     * The hand-off for threads without a lane, and for nothing else. Counts schedules too (see {@link MpscInbox}): a
     * counter beside it would cost a second locked instruction.
     */
    final MpscInbox<E> inbox;
    /** Delays from which a lane entry needs no fence: the owner looks at the lanes sooner than they fall due. */
    final long fenceFreeDelay;
    /** Delays from which {@code schedule} leaves the dating to the owner; {@link Long#MAX_VALUE} if it never does. */
    final long ownerDatedDelay;
    final long[] slots = new long[SLOT_COUNT];
    volatile boolean stopped;
    /** Written once per owner thread, not per pass. */
    volatile Thread owner;

    // Owner only.
    final TimingWheel<E> wheel;
    final Nursery<E> nursery = new Nursery<>();
    /** How long new far-off entries may wait in the nursery: {@link TimerCore#NURSERY_TICKS} ticks. */
    final long nurseryNanos;
    /** Wheel time of the next nursery sweep; entries due at or after it may wait in the nursery. */
    long nextSweep;
    /** The reading that dates the owner-dated entries of the current nursery sweep. */
    long sweepReading;

    TimerCoreFields(String name, Ticker ticker, long tickNanos, int wheelSize, long originNanos, long maxPending,
                    MpscInbox.Sequencer<TimerEntry> sequencer, boolean ownerDatesFarDeadlines) {
        this.name = name;
        this.inbox = MpscInbox.counting(sequencer);
        this.ticker = ticker;
        this.maxPending = maxPending;
        this.wheel = new TimingWheel<>(tickNanos, wheelSize, originNanos);
        int nurseryTicks = TimerCore.NURSERY_TICKS;
        this.nurseryNanos = tickNanos > Long.MAX_VALUE / nurseryTicks ? Long.MAX_VALUE : tickNanos * nurseryTicks;
        this.origin = originNanos;
        this.tickNanos = tickNanos;
        long maxPark = TimerCore.MAX_PARK_NANOS;
        this.fenceFreeDelay = tickNanos > Long.MAX_VALUE - maxPark ? Long.MAX_VALUE : maxPark + tickNanos;
        this.ownerDatedDelay = ownerDatesFarDeadlines ? ownerDatedDelay(nurseryNanos) : Long.MAX_VALUE;
        slots[WAKE_AT] = AWAKE;
    }

    private static long ownerDatedDelay(long nurseryNanos) {
        long maxPark = TimerCore.MAX_PARK_NANOS;
        long late = nurseryNanos > Long.MAX_VALUE - maxPark ? Long.MAX_VALUE : nurseryNanos + maxPark;
        long factor = TimerCore.OWNER_DATED_FACTOR;
        return late > Long.MAX_VALUE / factor ? Long.MAX_VALUE : late * factor;
    }
}

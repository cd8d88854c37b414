package io.clockwork.engine;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A passive hierarchical timing wheel. Not thread-safe: owned by one thread, which drives it.
 *
 * <h2>Design</h2>
 * After Varghese and Lauck, "Hashed and Hierarchical Timing Wheels" (SOSP 1987), with three departures from
 * Kafka's {@code TimingWheel}:
 * <ul>
 *   <li><b>Passive.</b> It owns no thread and reads no clock: {@link #advance(long, Consumer)} is told the time,
 *       expires what is due and cascades what is not; {@link #delayToNext(long)} says when work next exists.
 *       Agrona's {@code DeadlineTimerWheel} and Caffeine's {@code TimerWheel} work the same way.</li>
 *   <li><b>Occupancy bitmaps instead of a {@code DelayQueue}.</b> Each level of {@code 2^b} buckets keeps one
 *       {@code long} whose bit {@code i} is set while bucket {@code i} may hold entries, and one more {@code long}
 *       marks the levels with any bit set. The next event is the lowest set bit above the current digit of the
 *       lowest non-empty level ({@link Long#numberOfTrailingZeros}), so skipping empty time costs O(levels) at most,
 *       never O(ticks), empty levels are not visited, and no heap of buckets is needed.</li>
 *   <li><b>Intrusive entries.</b> The {@link WheelEntry} is the list node: one allocation per timer.</li>
 * </ul>
 *
 * <h2>Time</h2>
 * The wheel measures <i>wheel time</i>: non-negative nanoseconds since its origin, a reading of the caller's
 * ticker. Readings are converted with wrap-safe subtraction ({@code now - origin}), so a ticker that starts near
 * {@link Long#MAX_VALUE} or wraps past it works. A deadline {@code d} belongs to tick {@code ceil(d / tick)}:
 * an entry never expires before its deadline, and at most one tick after it (plus however late the owner calls
 * {@code advance}). Deadlines saturate at {@link Long#MAX_VALUE} wheel nanoseconds (about 292 years).
 *
 * <h2>Levels</h2>
 * Tick numbers are read as digits of {@code b} bits. An entry sits at the level of the highest digit in which its
 * tick differs from the current tick, in the bucket named by that digit. When the current tick reaches a bucket of
 * level {@code k > 0}, the bucket is cascaded: its entries move to lower levels, or expire if due. Invariant: at
 * every level, only buckets whose index is above the current tick's digit at that level are occupied, except the
 * one bucket whose cascade a bounded {@link #advance(long, Consumer, int)} left unfinished. Enough levels exist to
 * cover every tick up to {@code Long.MAX_VALUE / tick}, so there is no overflow list.
 *
 * <h2>Bounded work</h2>
 * A bounded advance counts both the entries it expires and those it moves down a level against its limit, so a
 * million entries filed in one coarse bucket cost a million moves spread over many calls, not one call's pause (a
 * first-level bucket holds a single tick and joins the due list whole, in O(1)). A cascade that runs out of budget
 * stays <i>pending</i>: the next advance finishes it before the current tick moves on, and meanwhile an entry
 * scheduled into the pending bucket's time span (or already due) joins that bucket's tail, so that within a tick
 * entries still expire in scheduling order.
 *
 * <h2>Cancellation</h2>
 * {@link #remove(WheelEntry)} unlinks in O(1) (an entry at an end of its bucket finds the bucket from its deadline:
 * lists have no sentinel, so that entries never hold a reference to a bucket; why, see {@code Bucket}); it may leave
 * a bucket empty with its bit still set, and the next scan clears such stale bits. Faces that cancel from other
 * threads instead mark entries and drop them when met, calling {@link #removeIf(Predicate)} when marked entries pile
 * up.
 *
 * @param <E> the face's entry type
 */
public final class TimingWheel<E extends WheelEntry> {

    /** Largest number of buckets per level: one occupancy {@code long}. */
    public static final int MAX_WHEEL_SIZE = 64;
    /** Smallest number of buckets per level. */
    public static final int MIN_WHEEL_SIZE = 2;
    /** Lazily dropped entries below which no purge is worth a pass over the wheel. */
    private static final int PURGE_FLOOR = 1024;

    private final long origin;
    private final long tickNanos;
    private final int bits;
    private final int mask;
    private final int levels;
    private final Bucket[] buckets; // level * wheelSize + index
    private final long[] occupied;  // per level; bit i set while bucket i may be non-empty
    /** Bit l set while {@code occupied[l]} is not zero, so a search for the next event skips empty levels. */
    private long occupiedLevels;
    private final Bucket due = new Bucket();

    /** Every tick up to and including this one has been processed. */
    private long currentTick;
    private int size;
    /** The bucket whose cascade is unfinished, as (level, index); level -1 if none. */
    private int pendingLevel = -1;
    private int pendingIndex;

    /**
     * Creates an empty wheel.
     *
     * @param tickNanos  the width of a level-0 bucket, in nanoseconds, at least 1
     * @param wheelSize  buckets per level, a power of two in [{@value #MIN_WHEEL_SIZE}, {@value #MAX_WHEEL_SIZE}]
     * @param originNanos the ticker reading that is wheel time zero (usually "now")
     * @throws IllegalArgumentException naming the argument and its allowed range
     */
    public TimingWheel(long tickNanos, int wheelSize, long originNanos) {
        if (tickNanos < 1) {
            throw new IllegalArgumentException("tickNanos must be at least 1, was " + tickNanos);
        }
        if (wheelSize < MIN_WHEEL_SIZE || wheelSize > MAX_WHEEL_SIZE || Integer.bitCount(wheelSize) != 1) {
            throw new IllegalArgumentException("wheelSize must be a power of two in [" + MIN_WHEEL_SIZE + ", "
                    + MAX_WHEEL_SIZE + "], was " + wheelSize);
        }
        this.origin = originNanos;
        this.tickNanos = tickNanos;
        this.bits = Integer.numberOfTrailingZeros(wheelSize);
        this.mask = wheelSize - 1;
        int tickBits = 64 - Long.numberOfLeadingZeros(ceilDiv(Long.MAX_VALUE, tickNanos));
        this.levels = Math.max(1, (tickBits + bits - 1) / bits);
        this.buckets = new Bucket[levels * wheelSize];
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new Bucket();
        }
        this.occupied = new long[levels];
    }

    /**
     * Converts a ticker reading and a delay into a deadline in wheel time, saturating instead of overflowing.
     * Thread-safe (it reads only final fields), so producers compute deadlines before handing entries over.
     *
     * @param nowNanos   a reading of the ticker this wheel is driven with
     * @param delayNanos the delay; zero or negative means "due now": the deadline is the start of the current tick,
     *                   so the entry expires at the next {@link #advance}, not at the end of the tick
     * @return the deadline in wheel time, in [0, {@link Long#MAX_VALUE}]
     */
    public long deadlineAfter(long nowNanos, long delayNanos) {
        return deadlineAfter(origin, tickNanos, nowNanos, delayNanos);
    }

    /**
     * {@link #deadlineAfter(long, long)} for a wheel with the given origin and tick. Producers on hot paths keep their
     * own copies of these two constants and call this, so that they never read the wheel object, whose cache line
     * the owner writes on every operation.
     *
     * @param originNanos the wheel's origin
     * @param tickNanos   the wheel's tick
     * @param nowNanos    a reading of the ticker the wheel is driven with
     * @param delayNanos  the delay; zero or negative means "due now"
     * @return the deadline in wheel time, in [0, {@link Long#MAX_VALUE}]
     */
    public static long deadlineAfter(long originNanos, long tickNanos, long nowNanos, long delayNanos) {
        long elapsed = Math.max(0L, nowNanos - originNanos);
        if (delayNanos <= 0) {
            return elapsed - elapsed % tickNanos;
        }
        long deadline = elapsed + delayNanos;
        return deadline < 0 ? Long.MAX_VALUE : deadline;
    }

    /** @return the ticker reading that is wheel time zero */
    public long origin() {
        return origin;
    }

    /**
     * Converts a ticker reading to wheel time. Thread-safe.
     *
     * @param nowNanos a reading of the ticker this wheel is driven with
     * @return nanoseconds since the origin; a reading before the origin counts as the origin
     */
    public long elapsed(long nowNanos) {
        return Math.max(0L, nowNanos - origin);
    }

    /**
     * Converts a wheel-time instant back to the ticker's timeline. Thread-safe.
     *
     * @param wheelTimeNanos an instant in wheel time
     * @return the ticker reading of that instant (wrapping as the ticker does)
     */
    public long toTicker(long wheelTimeNanos) {
        return origin + wheelTimeNanos;
    }

    /** @return the width of a tick in nanoseconds */
    public long tickNanos() {
        return tickNanos;
    }

    /** @return the number of levels, fixed at construction */
    public int levels() {
        return levels;
    }

    /** @return the number of entries linked into the wheel */
    public int size() {
        return size;
    }

    /** @return true if no entry is linked */
    public boolean isEmpty() {
        return size == 0;
    }

    /**
     * The purge rule every owner of a wheel applies to entries it dropped lazily (cancelled timers, removed nodes):
     * purge once they exceed a floor and could be half of what the wheel holds, so that memory stays within a
     * constant factor of the live entries while a purge's O(n) pass is paid for by the O(n) drops before it.
     *
     * @param dropped entries no longer wanted but possibly still linked
     * @param held    entries the owner holds, dropped ones included
     * @return true if a {@link #removeIf} pass is worth its cost now
     */
    public static boolean worthPurging(long dropped, long held) {
        return dropped > PURGE_FLOOR && dropped * 2 > held;
    }

    /**
     * Links an entry whose {@link WheelEntry#deadline() deadline} is set. An entry whose deadline's tick has
     * already been processed expires at the next {@link #advance}. O(1).
     *
     * @param entry an entry in no wheel
     * @throws IllegalStateException if the entry is already linked
     */
    public void schedule(E entry) {
        Objects.requireNonNull(entry, "entry");
        if (entry.prev != null) {
            throw new IllegalStateException("entry is already scheduled");
        }
        link(entry);
        size++;
    }

    /**
     * Unlinks an entry. O(1).
     *
     * @param entry the entry
     * @return true if it was linked into this wheel and now is not
     */
    public boolean remove(E entry) {
        if (entry.prev == null) {
            return false;
        }
        if (Bucket.isInner(entry)) {
            Bucket.unlinkInner(entry);
        } else {
            holderOf(entry).remove(entry);
        }
        size--;
        return true;
    }

    /**
     * Expires every entry whose tick is at or before the tick of {@code nowNanos}, in deadline-tick order (and in
     * scheduling order within a tick), cascading coarser buckets on the way. The sink may schedule and remove
     * entries; an entry it schedules that is already due expires in this same call.
     *
     * @param nowNanos a reading of the ticker this wheel is driven with
     * @param sink     receives each expired entry, already unlinked
     * @return the number of entries expired
     */
    public int advance(long nowNanos, Consumer<? super E> sink) {
        return advance(nowNanos, sink, Integer.MAX_VALUE);
    }

    /**
     * As {@link #advance(long, Consumer)}, but stops once {@code limit} entries have expired or moved down a level,
     * leaving the rest for the next call, so that one call's work is bounded however many entries fall due, or
     * cascade, together (see "Bounded work" above). Entries left behind stay in deadline-tick order ahead of
     * everything later, and {@link #delayToNext} answers 0 while any work is left.
     *
     * @param nowNanos a reading of the ticker this wheel is driven with
     * @param sink     receives each expired entry, already unlinked
     * @param limit    the most entries to expire or move in this call, at least 1
     * @return the number of entries expired
     */
    public int advance(long nowNanos, Consumer<? super E> sink, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        long nowTick = elapsed(nowNanos) / tickNanos;
        int budget = limit;
        int expired = 0;
        while (true) {
            int drained = drainDue(sink, budget);
            expired += drained;
            budget -= drained;
            if (pendingLevel >= 0) {
                if (budget > 0) {
                    budget -= cascade(budget);
                    continue; // drain what it made due; or, out of budget, stop below
                }
                return expired;
            }
            if (!due.isEmpty()) {
                return expired; // out of budget
            }
            long eventTick = nextEventTick();
            if (eventTick < 0 || eventTick > nowTick) {
                break;
            }
            if (budget == 0) {
                return expired;
            }
            currentTick = eventTick;
            if (eventLevel == 0) {
                // A first-level bucket holds one tick, now due: all of it joins the due list at once.
                vacate(0, eventIndex);
                buckets[eventIndex].moveAllTo(due);
            } else {
                pendingLevel = eventLevel;
                pendingIndex = eventIndex;
            }
        }
        if (nowTick > currentTick) {
            currentTick = nowTick;
        }
        return expired;
    }

    /**
     * Returns how long until {@link #advance} next has work, measured from {@code nowNanos}.
     *
     * @param nowNanos a reading of the ticker this wheel is driven with
     * @return 0 if work is due now, {@link Long#MAX_VALUE} if the wheel is empty, else nanoseconds
     */
    public long delayToNext(long nowNanos) {
        if (!due.isEmpty() || pendingLevel >= 0) {
            return 0L;
        }
        long eventTick = nextEventTick();
        if (eventTick < 0) {
            return Long.MAX_VALUE;
        }
        long eventTime = eventTick > Long.MAX_VALUE / tickNanos ? Long.MAX_VALUE : eventTick * tickNanos;
        return Math.max(0L, eventTime - elapsed(nowNanos));
    }

    /**
     * Returns the ticker reading at which {@link #advance} next has work; meaningful only if not empty.
     *
     * @param nowNanos a reading of the ticker this wheel is driven with
     * @return a ticker reading, or {@code nowNanos} if work is due now
     */
    public long nextDeadline(long nowNanos) {
        long delay = delayToNext(nowNanos);
        return delay == Long.MAX_VALUE ? toTicker(Long.MAX_VALUE) : nowNanos + delay;
    }

    /**
     * Returns an entry with the earliest deadline, without removing it. Costs a pass over one bucket, the earliest
     * occupied: every entry of a lower level, or of an earlier bucket of the same level, falls due before any entry
     * of a later bucket, so the earliest deadline is in that bucket; while a cascade is pending, a pass over its
     * bucket too (after an unbounded {@link #advance} none is).
     *
     * @return an entry whose deadline no other entry's precedes, or null if the wheel is empty
     */
    @SuppressWarnings("unchecked")
    public E earliest() {
        Bucket bucket = due;
        if (due.isEmpty() && nextEventTick() >= 0) {
            bucket = buckets[(eventLevel << bits) + eventIndex];
        }
        WheelEntry best = earliestOf(bucket, null);
        if (pendingLevel >= 0) {
            best = earliestOf(buckets[(pendingLevel << bits) + pendingIndex], best);
        }
        return (E) best;
    }

    private static WheelEntry earliestOf(Bucket bucket, WheelEntry best) {
        for (WheelEntry e = bucket.head; e != null; e = e.next) {
            if (best == null || e.deadline < best.deadline) {
                best = e;
            }
        }
        return best;
    }

    /**
     * Unlinks every entry the filter accepts; used to purge entries cancelled by other threads. O(size + buckets).
     *
     * @param filter selects the entries to remove
     * @return how many were removed
     */
    @SuppressWarnings("unchecked")
    public int removeIf(Predicate<? super E> filter) {
        int removed = removeIf(due, filter);
        for (int level = 0; level < levels; level++) {
            long bitsSet = occupied[level];
            while (bitsSet != 0) {
                int index = Long.numberOfTrailingZeros(bitsSet);
                bitsSet &= bitsSet - 1;
                Bucket bucket = buckets[(level << bits) + index];
                removed += removeIf(bucket, filter);
                if (bucket.isEmpty()) {
                    vacate(level, index);
                }
            }
        }
        return removed;
    }

    /**
     * Unlinks every entry and hands it to the sink, in no particular order; used when a face shuts down.
     *
     * @param sink receives each entry, already unlinked
     */
    public void clear(Consumer<? super E> sink) {
        removeIf(e -> {
            sink.accept(e);
            return true;
        });
    }

    @SuppressWarnings("unchecked")
    private int removeIf(Bucket bucket, Predicate<? super E> filter) {
        int removed = 0;
        WheelEntry e = bucket.head;
        while (e != null) {
            WheelEntry next = e.next;
            if (filter.test((E) e)) {
                bucket.remove(e);
                size--;
                removed++;
            }
            e = next;
        }
        return removed;
    }

    @SuppressWarnings("unchecked")
    private int drainDue(Consumer<? super E> sink, int limit) {
        int expired = 0;
        // One at a time, so that the sink may schedule or remove entries (even due ones) safely.
        while (expired < limit && !due.isEmpty()) {
            WheelEntry e = due.head;
            due.remove(e);
            size--;
            expired++;
            sink.accept((E) e);
        }
        return expired;
    }

    /**
     * Moves up to {@code budget} entries of the pending bucket down, in list order; ends the cascade when the bucket
     * is empty. Entries bound for the same place move as one run: the run is cut out and spliced onto the target's
     * tail, and its entries' links to each other stay as they are. A storm of entries due in one tick is then moved
     * by a handful of writes instead of several per entry, and none of its entries is written (for G1, a write
     * into a tenured entry of a reference to a bucket marks the entry's card for concurrent refinement).
     *
     * @return how many moved
     */
    private int cascade(int budget) {
        Bucket bucket = buckets[(pendingLevel << bits) + pendingIndex];
        int moved = 0;
        while (moved < budget && !bucket.isEmpty()) {
            WheelEntry first = bucket.head;
            int slot = slotOf(ceilDiv(first.deadline, tickNanos));
            WheelEntry last = first;
            int run = 1;
            for (WheelEntry n = first.next; n != null && moved + run < budget
                    && slotOf(ceilDiv(n.deadline, tickNanos)) == slot; n = n.next) {
                last = n;
                run++;
            }
            bucket.cut(first, last);
            occupy(slot).appendRun(first, last);
            moved += run;
        }
        if (bucket.isEmpty()) {
            vacate(pendingLevel, pendingIndex);
            pendingLevel = -1;
        }
        return moved;
    }

    /** Level and index of the event found by the last {@link #nextEventTick()}. */
    private int eventLevel;
    private int eventIndex;

    /**
     * Finds the earliest tick at which a bucket is due, clearing stale bits of emptied buckets on the way.
     * Events of a lower level always come before those of a higher one, so the lowest occupied level decides.
     *
     * @return the tick, or -1 if the wheel holds nothing
     */
    private long nextEventTick() {
        if (size == 0) {
            return -1L; // stale bits of emptied buckets stay until a later search meets them
        }
        for (long left = occupiedLevels; left != 0; left &= left - 1) {
            int level = Long.numberOfTrailingZeros(left);
            int shift = level * bits;
            int digit = (int) (currentTick >>> shift) & mask;
            long candidates = occupied[level] & (-2L << digit);
            while (candidates != 0) {
                int index = Long.numberOfTrailingZeros(candidates);
                if (!buckets[(level << bits) + index].isEmpty()) {
                    eventLevel = level;
                    eventIndex = index;
                    long above = shift + bits >= 64 ? 0L : (currentTick >>> (shift + bits)) << (shift + bits);
                    return above | ((long) index << shift);
                }
                vacate(level, index); // stale: emptied by remove()
                candidates &= candidates - 1;
            }
        }
        return -1L;
    }

    private void link(WheelEntry e) {
        long tick = ceilDiv(e.deadline, tickNanos);
        if (pendingLevel >= 0 && (tick <= currentTick || levelOf(tick) < pendingLevel)) {
            // In the unfinished cascade's span: behind the entries still waiting there, which were scheduled first.
            buckets[(pendingLevel << bits) + pendingIndex].append(e);
            return;
        }
        place(e, tick);
    }

    private void place(WheelEntry e, long tick) {
        occupy(slotOf(tick)).append(e);
    }

    /**
     * Finds the list an entry at one of its list's ends is in, from its deadline: the bucket of its tick's level
     * (an entry stays at the level it was placed at until its bucket cascades, and that level is the one its tick
     * has against the current tick until then), else the pending cascade's bucket (which also takes entries
     * scheduled into its span), else the due list. At most three comparisons.
     */
    private Bucket holderOf(WheelEntry e) {
        long tick = ceilDiv(e.deadline, tickNanos);
        if (tick > currentTick) {
            Bucket b = buckets[slotOf(tick)];
            if (b.holdsEnd(e)) {
                return b;
            }
        }
        if (pendingLevel >= 0) {
            Bucket b = buckets[(pendingLevel << bits) + pendingIndex];
            if (b.holdsEnd(e)) {
                return b;
            }
        }
        if (due.holdsEnd(e)) {
            return due;
        }
        throw new IllegalStateException("entry is linked, but not into this wheel: " + e);
    }

    /** @return where an entry of this tick belongs: {@code (level << bits) + index} of its bucket, or -1 if due */
    private int slotOf(long tick) {
        if (tick <= currentTick) {
            return -1;
        }
        int level = levelOf(tick);
        return (level << bits) + ((int) (tick >>> (level * bits)) & mask);
    }

    /** @return the due list for slot -1, else the slot's bucket, its occupancy bits set for what is added next */
    private Bucket occupy(int slot) {
        if (slot < 0) {
            return due;
        }
        int level = slot >>> bits;
        occupied[level] |= 1L << (slot & mask);
        occupiedLevels |= 1L << level;
        return buckets[slot];
    }

    /** Clears bucket {@code index}'s bit of {@code level}, and the level's own bit when it was the last. */
    private void vacate(int level, int index) {
        long left = occupied[level] & ~(1L << index);
        occupied[level] = left;
        if (left == 0) {
            occupiedLevels &= ~(1L << level);
        }
    }

    /** @return the level of a tick after the current one */
    private int levelOf(long tick) {
        return (63 - Long.numberOfLeadingZeros(tick ^ currentTick)) / bits;
    }

    private static long ceilDiv(long x, long y) {
        long q = x / y;
        return q * y == x ? q : q + 1;
    }

    @Override
    public String toString() {
        return "TimingWheel[tick=" + tickNanos + "ns, buckets=" + (mask + 1) + "x" + levels + ", size=" + size
                + ", currentTick=" + currentTick + "]";
    }
}

package io.clockwork.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * A counter that threads bump without a locked instruction: each of a few cells is claimed, once, by the first
 * thread that hashes to it, and from then on only that thread writes it, with a plain store. Threads that find
 * their cell owned by another thread bump a {@link LongAdder} instead. Thread-safe.
 *
 * <h2>Why</h2>
 * Timers count cancels so that {@code pendingCount()} is exact. An uncontended {@code LongAdder} is one CAS per
 * bump, and on x86 every locked instruction first drains the store buffer; a cancel already pays one for its state
 * CAS. A {@code ThreadLocal} cell avoids the CAS but its lookup (a probe of the thread's map) costs about as much;
 * hashing the thread id onto a small array of owned cells costs a multiply and two loads.
 *
 * <p>Cells are never given back: a thread that dies keeps its cell, and a thread hashing to it uses the adder, so
 * a program that churns through threads degrades to a plain {@code LongAdder}, never to a wrong count.
 *
 * <p>{@link #sum()} is exact when no bump is in flight: an owner's release store is seen by any thread that
 * synchronised with the bump (or by the owner itself).
 */
final class OwnedCellCounter {

    /** Longs between two cells' counts: 128 bytes, so that no two owners write one cache line. */
    private static final int SPACING = 16;
    private static final int MAX_CELLS = 64;
    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle OWNER = MethodHandles.arrayElementVarHandle(Thread[].class);

    /** Read on every bump and written once per cell: never on a line that counts are written to. */
    private final Thread[] owners;
    private final long[] counts;
    private final int mask;
    private final LongAdder shared = new LongAdder();

    /** Creates a counter with eight cells per available processor (a power of two, at most 64). */
    OwnedCellCounter() {
        int cells = Math.min(MAX_CELLS, Integer.highestOneBit(8 * Runtime.getRuntime().availableProcessors()));
        this.mask = cells - 1;
        this.owners = new Thread[cells];
        // one spacing of padding before the first count and after the last
        this.counts = new long[(cells + 1) * SPACING];
    }

    /** Adds one. Lock-free; a plain store for a thread that owns its cell. */
    void increment() {
        Thread me = Thread.currentThread();
        int i = cellOf(me);
        Thread owner = (Thread) OWNER.getAcquire(owners, i);
        if (owner == me || owner == null && OWNER.compareAndSet(owners, i, (Thread) null, me)) {
            int slot = i * SPACING + SPACING;
            COUNT.setRelease(counts, slot, counts[slot] + 1);
        } else {
            shared.increment();
        }
    }

    /** @return the count; exact when no {@link #increment()} is in flight */
    long sum() {
        long sum = shared.sum();
        for (int i = 0; i <= mask; i++) {
            sum += (long) COUNT.getAcquire(counts, i * SPACING + SPACING);
        }
        return sum;
    }

    private int cellOf(Thread t) {
        // Fibonacci hashing spreads consecutive thread ids (pool threads) over the cells.
        return (int) ((t.getId() * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    }
}

package io.clockwork.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Counts schedules and cancellations of one timer, each thread in a cell of its own. Thread-safe.
 *
 * <h2>Why not a {@code LongAdder}</h2>
 * A timer must know exactly how many timers are pending ({@code pendingCount()}, Kafka's {@code size()}, the
 * {@code maxPending} bound), so every schedule and every cancel is counted. A {@code LongAdder} makes each count an
 * atomic read-modify-write (a locked instruction, about 4.5 ns here); two of them were a sixth of the cost of a
 * schedule+cancel pair. A cell written by one thread only needs no atomic at all: an increment is a load and a
 * release store (a plain store on x86). Readers sum the cells, as {@code LongAdder.sum()} does, with the same
 * caveat: the sum is exact when no count is in flight.
 *
 * <h2>Threads that come and go</h2>
 * A thread registers a cell the first time it counts. The cell of a thread that has terminated never changes again
 * (and {@link Thread#isAlive()} returning false makes all its writes visible), so when the registry grows past twice
 * its size after the last clean-up, the cells of dead threads are folded into a retired total and dropped. Memory
 * is therefore bounded by the threads alive, not by all the threads that ever counted (a server that schedules
 * from short-lived threads keeps a small registry).
 */
final class PerThreadCounts {

    private static final VarHandle SCHEDULED;
    private static final VarHandle CANCELLED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            SCHEDULED = lookup.findVarHandle(Counters.class, "scheduled", long.class);
            CANCELLED = lookup.findVarHandle(Counters.class, "cancelled", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int MIN_CLEANUP = 16;

    private final ThreadLocal<Cell> local = ThreadLocal.withInitial(this::register);
    /** Replaced as a whole under {@code this}, so a reader sums one consistent snapshot. */
    private volatile Registry registry = new Registry(new Cell[0], 0, 0);
    /** Registry size at which the next registration folds dead threads' cells; guarded by {@code this}. */
    private int cleanupAt = MIN_CLEANUP;

    /** Counts one schedule by the calling thread. */
    void scheduled() {
        Cell c = local.get();
        SCHEDULED.setRelease(c, c.scheduled + 1);
    }

    /** Counts one cancellation by the calling thread. */
    void cancelled() {
        Cell c = local.get();
        CANCELLED.setRelease(c, c.cancelled + 1);
    }

    /** @return all schedules counted; exact when no thread is counting */
    long scheduledSum() {
        Registry r = registry;
        long sum = r.retiredScheduled;
        for (Cell c : r.cells) {
            sum += (long) SCHEDULED.getAcquire(c);
        }
        return sum;
    }

    /** @return all cancellations counted; exact when no thread is counting */
    long cancelledSum() {
        Registry r = registry;
        long sum = r.retiredCancelled;
        for (Cell c : r.cells) {
            sum += (long) CANCELLED.getAcquire(c);
        }
        return sum;
    }

    /** @return cells in the registry, for tests of the clean-up */
    int cellCount() {
        return registry.cells.length;
    }

    private synchronized Cell register() {
        Registry r = registry;
        Cell cell = new Cell(Thread.currentThread());
        List<Cell> kept = new ArrayList<>(r.cells.length + 1);
        long retiredScheduled = r.retiredScheduled;
        long retiredCancelled = r.retiredCancelled;
        boolean cleanup = r.cells.length + 1 >= cleanupAt;
        for (Cell c : r.cells) {
            if (cleanup && !c.thread.isAlive()) {
                retiredScheduled += (long) SCHEDULED.getAcquire(c);
                retiredCancelled += (long) CANCELLED.getAcquire(c);
            } else {
                kept.add(c);
            }
        }
        kept.add(cell);
        if (cleanup) {
            cleanupAt = Math.max(MIN_CLEANUP, 2 * kept.size());
        }
        registry = new Registry(kept.toArray(new Cell[0]), retiredScheduled, retiredCancelled);
        return cell;
    }

    /** An immutable snapshot: the live cells and what the dropped ones had counted. */
    private static final class Registry {
        final Cell[] cells;
        final long retiredScheduled;
        final long retiredCancelled;

        Registry(Cell[] cells, long retiredScheduled, long retiredCancelled) {
            this.cells = cells;
            this.retiredScheduled = retiredScheduled;
            this.retiredCancelled = retiredCancelled;
        }
    }

    /** Padding before the counters, so a cell never shares a cache line with what was allocated before it. */
    @SuppressWarnings("unused")
    private static class PadBefore {
        long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16;
    }

    /** The two counters of one thread; written by that thread only. */
    private static class Counters extends PadBefore {
        volatile long scheduled;
        volatile long cancelled;
    }

    /** One thread's cell, padded after the counters too (field layout keeps superclass fields first). */
    @SuppressWarnings("unused")
    private static final class Cell extends Counters {
        long q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15, q16;
        final Thread thread;

        Cell(Thread thread) {
            this.thread = thread;
        }
    }
}

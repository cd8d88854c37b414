package io.clockwork.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Per-thread lanes from the threads that use a timer to its owner: through its lane a thread hands over the
 * entries it schedules, and counts the entries it cancels, with ordered stores and no locked instruction.
 * Thread-safe for {@link #offer}, {@link #countCancel()}, the counts and {@link #isEmpty()}; {@link #drain} belongs
 * to the owner (one thread at a time, handed over with a happens-before edge, as the timer's owner is).
 *
 * <h2>Why</h2>
 * Publishing an entry with a CAS on a shared inbox stripe costs twice: on x86 a locked instruction first drains the
 * store buffer, which holds the stores that initialise the freshly allocated entry, so the CAS pays for the
 * allocation too; and under G1 a reference stored into a long-lived stripe array costs a second fence, in the
 * collector's write barrier. A lane needs neither: only its owning thread writes it, so a release store of its count
 * publishes the entry. Likewise a cancel counts itself with a plain store to the lane, where a {@code LongAdder} would
 * cost a second CAS.
 *
 * <h2>Layout</h2>
 * A lane's entries go into chunks: arrays of {@value #CHUNK} slots whose last slot links to the next chunk. The
 * producer fills a slot and publishes it with a release store of the lane's {@code produced} count; the owner reads
 * the count with an acquire load and takes the slots up to it. Chunks are allocated fresh, not recycled, so they
 * stay young, where G1's write barrier needs no fence (one reference slot of allocation per entry). The owner reads
 * chunks but writes only their link slot once both threads have left them, unlinking each chunk it finishes: a
 * chunk that a collection happened to promote would otherwise keep every later chunk, and every entry in them,
 * alive through young collections until the next marking cycle (the "nepotism" of generational collectors).
 * Entries already taken stay reachable from the chunk each thread is in: at most {@value #CHUNK} timeouts per lane,
 * cancelled ones included, whatever the timer holds.
 *
 * <h2>Backlog</h2>
 * A producer that outruns the owner (two threads scheduling without pause on two cores, the owner getting a third of
 * a core) would grow its lane without bound, every untaken entry live and copied by each young collection. So when
 * a producer starts a chunk while more than {@value #MAX_BACKLOG} of its entries wait untaken, the lane calls the
 * timer's backlog action (it wakes the owner and yields the core, which the owner may be waiting for:
 * {@link TimerCore}). The check reads the owner's consumed count once per chunk, not per entry.
 *
 * <h2>Claiming</h2>
 * A thread hashes its id onto one of a few cells and claims the cell's lane, once, with a CAS; from then on only it
 * writes that lane. A thread whose cell another thread owns has no lane: {@link #offer} returns false (the timer
 * then uses its shared inbox) and its cancels go to a {@code LongAdder}. Lanes are never given back, so a program
 * that churns through threads degrades to the shared inbox and adder, never to a lost entry or count.
 *
 * <h2>What the owner must do in return</h2>
 * A release store gives no store-load ordering: a producer cannot be sure, right after publishing, that it sees the
 * owner's latest decision to sleep, nor the owner that it sees the producer's entry. {@link TimerCore} makes this
 * safe by never sleeping longer than a bounded period without looking at the lanes again, and by fencing the few
 * schedules due sooner than that period.
 *
 * @param <E> the entry type
 */
final class ProducerLanes<E extends WheelEntry> {

    /** Slots per chunk, the last being the link to the next chunk. */
    static final int CHUNK = 256;
    private static final int LINK = CHUNK - 1;
    private static final int MAX_LANES = 64;
    /**
     * Untaken entries in one lane past which a producer starting a chunk runs the backlog action: 256 chunks, about
     * 2.6 MB of 40-byte timeouts, a few milliseconds of one producer's schedules.
     */
    static final int MAX_BACKLOG = 256 * LINK;
    /** Longs between two lanes' consumed counts, so that the owner's writes share no line with a reader's. */
    private static final int SPACING = 16;

    private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(Lane[].class);
    private static final VarHandle CONSUMED = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle PRODUCED;
    private static final VarHandle CANCELLED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PRODUCED = lookup.findVarHandle(LaneFields.class, "produced", long.class);
            CANCELLED = lookup.findVarHandle(LaneFields.class, "cancelled", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Read on every operation, written once per cell. */
    private final Lane[] cells;
    private final int mask;
    /** Cancels of threads without a lane. */
    private final LongAdder sharedCancels = new LongAdder();
    /** Run by a producer whose lane holds more than {@link #MAX_BACKLOG} untaken entries (class comment). */
    private final Runnable onBacklog;

    // Owner only, except consumed, which isEmpty() reads from any thread.
    private final Object[][] readChunks;
    private final int[] readIndexes;
    private final long[] consumed;

    /**
     * Creates lanes for up to eight threads per available processor (a power of two, at most 64).
     *
     * @param onBacklog run on a producer's thread when its lane's backlog passes {@link #MAX_BACKLOG}
     */
    ProducerLanes(Runnable onBacklog) {
        this(Math.min(MAX_LANES, Integer.highestOneBit(8 * Runtime.getRuntime().availableProcessors())), onBacklog);
    }

    /** Creates {@code lanes} lanes, a power of two, with no backlog action; tests use few, so that threads collide. */
    ProducerLanes(int lanes) {
        this(lanes, () -> { });
    }

    /** Creates {@code lanes} lanes, a power of two, with a backlog action. */
    ProducerLanes(int lanes, Runnable onBacklog) {
        if (lanes < 1 || lanes > MAX_LANES || Integer.bitCount(lanes) != 1) {
            throw new IllegalArgumentException("lanes must be a power of two in [1, " + MAX_LANES + "], was " + lanes);
        }
        this.onBacklog = onBacklog;
        this.mask = lanes - 1;
        this.cells = new Lane[lanes];
        this.readChunks = new Object[lanes][];
        this.readIndexes = new int[lanes];
        // one spacing of padding before the first count and after the last
        this.consumed = new long[(lanes + 1) * SPACING];
    }

    /**
     * Hands an entry to the owner through the calling thread's lane, claiming one if its cell is free.
     *
     * @param entry an entry in no wheel and no inbox, its fields written
     * @return true if it was handed over; false if the thread has no lane (its cell belongs to another thread)
     */
    boolean offer(E entry) {
        Lane lane = myLane();
        if (lane == null) {
            return false;
        }
        Object[] chunk = lane.chunk;
        int index = lane.index;
        if (index == LINK) {
            Object[] next = new Object[CHUNK];
            chunk[LINK] = next;
            lane.chunk = chunk = next;
            index = 0;
        }
        chunk[index] = entry;
        lane.index = index + 1;
        // Publishes the slot, and the entry's fields written before this call, to the owner's acquire load.
        long produced = lane.produced + 1;
        PRODUCED.setRelease(lane, produced);
        if (index == 0 && produced - (long) CONSUMED.getAcquire(consumed, consumedSlot(lane.cell)) > MAX_BACKLOG) {
            onBacklog.run();
        }
        return true;
    }

    /** @return entries the calling thread has handed over that the owner has not taken; 0 if it has no lane */
    long backlog() {
        Lane lane = myLane();
        return lane == null ? 0 : (long) PRODUCED.getAcquire(lane)
                - (long) CONSUMED.getAcquire(consumed, consumedSlot(lane.cell));
    }

    /** Counts one cancel by the calling thread. Lock-free; a plain store for a thread with a lane. */
    void countCancel() {
        Lane lane = myLane();
        if (lane != null) {
            CANCELLED.setRelease(lane, lane.cancelled + 1);
        } else {
            sharedCancels.increment();
        }
    }

    /** @return the calling thread's lane, claimed now if its cell is free; null if another thread owns the cell */
    private Lane myLane() {
        Thread me = Thread.currentThread();
        int i = cellOf(me);
        Lane lane = (Lane) CELL.getAcquire(cells, i);
        if (lane != null) {
            return lane.owner == me ? lane : null;
        }
        Lane mine = new Lane(me, i);
        return CELL.compareAndSet(cells, i, (Lane) null, mine) ? mine : null;
    }

    /**
     * Takes every published entry, each lane's in its offer order. Owner only.
     *
     * @param sink receives each entry; it may relink the entry
     * @return how many were taken
     */
    @SuppressWarnings("unchecked")
    int drain(Consumer<? super E> sink) {
        int taken = 0;
        for (int i = 0; i <= mask; i++) {
            Lane lane = (Lane) CELL.getAcquire(cells, i);
            if (lane == null) {
                continue;
            }
            int c = consumedSlot(i);
            long done = consumed[c];
            long produced = (long) PRODUCED.getAcquire(lane);
            if (produced == done) {
                continue;
            }
            Object[] chunk = readChunks[i];
            if (chunk == null) {
                chunk = lane.first;
                lane.first = null; // else it would keep every chunk linked after it reachable
            }
            int index = readIndexes[i];
            for (long k = done; k < produced; k++) {
                if (index == LINK) {
                    Object[] next = (Object[]) chunk[LINK];
                    chunk[LINK] = null; // see "Layout"
                    chunk = next;
                    index = 0;
                }
                sink.accept((E) chunk[index++]);
            }
            readChunks[i] = chunk;
            readIndexes[i] = index;
            CONSUMED.setRelease(consumed, c, produced);
            taken += (int) (produced - done);
        }
        return taken;
    }

    /** @return true if the owner has taken every entry published so far; any thread */
    boolean isEmpty() {
        for (int i = 0; i <= mask; i++) {
            Lane lane = (Lane) CELL.getAcquire(cells, i);
            if (lane != null
                    && (long) PRODUCED.getAcquire(lane) != (long) CONSUMED.getAcquire(consumed, consumedSlot(i))) {
                return false;
            }
        }
        return true;
    }

    /** @return entries ever offered through lanes; any thread, exact when no offer is in flight */
    long producedCount() {
        long sum = 0;
        for (int i = 0; i <= mask; i++) {
            Lane lane = (Lane) CELL.getAcquire(cells, i);
            if (lane != null) {
                sum += (long) PRODUCED.getAcquire(lane);
            }
        }
        return sum;
    }

    /** @return cancels ever counted; any thread, exact when no {@link #countCancel()} is in flight */
    long cancelledCount() {
        long sum = sharedCancels.sum();
        for (int i = 0; i <= mask; i++) {
            Lane lane = (Lane) CELL.getAcquire(cells, i);
            if (lane != null) {
                sum += (long) CANCELLED.getAcquire(lane);
            }
        }
        return sum;
    }

    private static int consumedSlot(int i) {
        return i * SPACING + SPACING;
    }

    private int cellOf(Thread t) {
        // Fibonacci hashing spreads consecutive thread ids (pool threads) over the cells.
        return (int) ((t.getId() * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    }

    /** A lane's fields. The mutable ones are written by the lane's thread only, except {@link #first}. */
    private abstract static class LaneFields extends LinePadded {
        final Thread owner;
        /** The cell this lane was claimed in. */
        final int cell;
        /** The lane's first chunk, until the owner takes it over (then null); published by the claiming CAS. */
        Object[] first;
        /** The chunk being filled. */
        Object[] chunk;
        /** The next free slot of {@link #chunk}. */
        int index;
        /** Entries published: written with release stores, read with acquire loads. */
        long produced;
        /** Cancels counted: written with release stores, read with acquire loads. */
        long cancelled;

        LaneFields(Thread owner, int cell) {
            this.owner = owner;
            this.cell = cell;
            this.first = new Object[CHUNK];
            this.chunk = first;
        }
    }

    /**
     * One thread's lane, padded after its fields too: a promoted lane may land beside objects the owner writes on
     * every pass, and the producer writes its fields on every operation.
     */
    @SuppressWarnings("unused")
    private static final class Lane extends LaneFields {
        private long q1;
        private long q2;
        private long q3;
        private long q4;
        private long q5;
        private long q6;
        private long q7;
        private long q8;

        Lane(Thread owner, int cell) {
            super(owner, cell);
        }
    }
}

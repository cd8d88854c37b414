package io.clockwork.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * The hand-off from producer threads to a wheel's owner: multi-producer, single-consumer, intrusive (the entry's own
 * link carries it, so handing over allocates nothing). Thread-safe for {@link #offer} and {@link #offeredCount};
 * {@link #drain} belongs to the one consumer (any thread may call {@link #isEmpty}).
 *
 * <h2>Design</h2>
 * Lock-free stacks (Treiber, 1986), striped by producer thread: a producer CASes the head of its stripe; the
 * consumer swaps each stripe out whole and reverses it, so every producer's entries reach it in that producer's
 * offer order. Striping keeps two producers from bouncing one cache line between their cores on every offer (the
 * same reason {@code LongAdder} has cells); stripe heads sit {@value #SPACING} references apart so that no two share a
 * cache line, whatever the reference size.
 *
 * <h2>Counting for free</h2>
 * An inbox built with a {@link Sequencer} also counts every offer ever made, exactly, without a counter of its
 * own: each entry carries a {@value #SEQUENCE_BITS}-bit sequence number, one more than the entry beneath it, and
 * the head CAS that publishes the entry publishes its number with it. The bottom of every stripe is a marker that
 * holds the stripe's full 64-bit total; the consumer, when it takes a stripe, installs a fresh marker holding the
 * total of what it took (fresh, so a producer that read the old one cannot mistake it for the new). A counter
 * bumped beside the CAS would cost a second locked instruction per offer; this costs a plain store. The sequence
 * numbers wrap, which is harmless while fewer than 2<sup>30</sup> offers are made to one stripe between two takes
 * (they would all be waiting in it: tens of gigabytes of entries).
 *
 * @param <E> the entry type
 */
public final class MpscInbox<E extends WheelEntry> {

    /** Width of the sequence numbers a {@link Sequencer} stores. */
    public static final int SEQUENCE_BITS = 30;
    /** Distance between stripe heads, in array slots: 128 bytes even with 4-byte compressed references. */
    private static final int SPACING = 32;
    private static final int MAX_STRIPES = 16;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(WheelEntry[].class);
    private static final VarHandle BASE = MethodHandles.arrayElementVarHandle(long[].class);
    /** The bottom of every stripe that does not count, and of every counting stripe before its first take. */
    private static final Marker ZERO = new Marker();

    private final WheelEntry[] heads;
    /** The total of each stripe's current marker, published after the marker (see {@link #offeredCount}). */
    private final long[] bases;
    private final int stripeMask;
    private final Sequencer<? super E> sequencer;
    /** {@code 2^SEQUENCE_BITS - 1}; narrower only in tests, so that they can make the numbers wrap. */
    private final int sequenceMask;

    /**
     * Where an entry keeps its sequence number, for an inbox that counts its offers. Implementations store the
     * number in a field the entry already has (spare bits of a state word), so counting costs no memory.
     *
     * @param <E> the entry type
     */
    public interface Sequencer<E> {

        /**
         * Reads the number stored by {@link #sequence(Object, int)}; any thread that saw the entry through the inbox.
         *
         * @param entry an entry that went through the inbox
         * @return its sequence number, in [0, 2<sup>{@value #SEQUENCE_BITS}</sup>)
         */
        int sequence(E entry);

        /**
         * Stores the entry's sequence number; called by {@link MpscInbox#offer} on the producer thread, before the
         * entry is published, possibly several times if the CAS is retried.
         *
         * @param entry    the entry being offered
         * @param sequence its number, in [0, 2<sup>{@value #SEQUENCE_BITS}</sup>)
         */
        void sequence(E entry, int sequence);
    }

    /**
     * Creates an inbox with four stripes per available processor (a power of two, at most 16), so that a few
     * producer threads rarely hash to the same stripe. It does not count offers.
     */
    public MpscInbox() {
        this(4 * Runtime.getRuntime().availableProcessors(), null);
    }

    /**
     * Creates an inbox with at least {@code producers} stripes, rounded up to a power of two, at most 16. It does
     * not count offers.
     *
     * @param producers the number of producer threads expected to offer at once, at least 1
     */
    public MpscInbox(int producers) {
        this(producers, null);
    }

    /**
     * Creates an inbox with at least {@code producers} stripes, rounded up to a power of two, at most 16.
     *
     * @param producers the number of producer threads expected to offer at once, at least 1
     * @param sequencer where entries keep a sequence number, so that {@link #offeredCount()} works; null for an
     *                  inbox that does not count (its entries are then free to be offered more than once)
     */
    public MpscInbox(int producers, Sequencer<? super E> sequencer) {
        this(producers, sequencer, SEQUENCE_BITS);
    }

    /** As {@link #MpscInbox(int, Sequencer)} with narrower sequence numbers, so that tests can make them wrap. */
    MpscInbox(int producers, Sequencer<? super E> sequencer, int sequenceBits) {
        if (producers < 1) {
            throw new IllegalArgumentException("producers must be at least 1, was " + producers);
        }
        int stripes = Math.min(MAX_STRIPES, Integer.highestOneBit(producers - 1 << 1 | 1));
        this.stripeMask = stripes - 1;
        this.sequencer = sequencer;
        this.sequenceMask = (1 << sequenceBits) - 1;
        // one spacing of padding before the first head and after the last one too
        this.heads = new WheelEntry[(stripes + 1) * SPACING];
        for (int s = 0; s < stripes; s++) {
            heads[headSlot(s)] = ZERO;
        }
        this.bases = new long[stripes];
    }

    /**
     * Creates a counting inbox sized as {@link #MpscInbox()} is.
     *
     * @param sequencer where entries keep their sequence number
     * @param <E>       the entry type
     * @return an inbox whose {@link #offeredCount()} works
     */
    public static <E extends WheelEntry> MpscInbox<E> counting(Sequencer<? super E> sequencer) {
        if (sequencer == null) {
            throw new NullPointerException("sequencer");
        }
        return new MpscInbox<>(4 * Runtime.getRuntime().availableProcessors(), sequencer);
    }

    /**
     * Hands an entry to the consumer. Lock-free; any thread.
     *
     * @param entry an entry in no wheel and in no inbox
     */
    public void offer(E entry) {
        push(entry, entry, null, 1);
    }

    /**
     * Hands several entries to the consumer at once: one CAS publishes them all, so a {@link #drain} takes all of
     * them or none, and receives them in array order, together. Lock-free; any thread.
     *
     * @param entries the entries, each in no wheel and in no inbox
     * @param count   how many of {@code entries}, from the first, to hand over (at least 1)
     * @throws IllegalArgumentException if {@code count} is not in [1, entries.length]
     */
    public void offerAll(E[] entries, int count) {
        if (count < 1 || count > entries.length) {
            throw new IllegalArgumentException("count must be in [1, " + entries.length + "], was " + count);
        }
        // The stack holds the newest entry on top: the last entry, linked down to the first, which sits on the head.
        for (int i = count - 1; i > 0; i--) {
            entries[i].next = entries[i - 1];
        }
        push(entries[0], entries[count - 1], entries, count);
    }

    /**
     * Publishes a chain already linked from {@code top} down to {@code bottom} with one CAS of this thread's stripe
     * head, numbering its entries first if the inbox counts: {@code top} alone, or the first {@code count} of
     * {@code entries}, bottom first.
     */
    private void push(E bottom, E top, E[] entries, int count) {
        int slot = headSlot(stripeOf(Thread.currentThread()));
        Sequencer<? super E> seq = sequencer;
        WheelEntry h;
        do {
            h = (WheelEntry) SLOT.getVolatile(heads, slot);
            if (seq != null) {
                int base = sequenceOf(h);
                if (entries == null) {
                    seq.sequence(top, base + 1 & sequenceMask);
                } else {
                    for (int i = 0; i < count; i++) {
                        seq.sequence(entries[i], base + 1 + i & sequenceMask);
                    }
                }
            }
            bottom.next = h;
        } while (!SLOT.weakCompareAndSet(heads, slot, h, top));
    }

    /**
     * Tells whether nothing waits; volatile reads, so a consumer that publishes its intent to sleep and then finds
     * the inbox empty cannot miss an offer that precedes a producer's check of that intent.
     *
     * @return true if no entry waits
     */
    public boolean isEmpty() {
        for (int s = 0; s <= stripeMask; s++) {
            if (!(SLOT.getVolatile(heads, headSlot(s)) instanceof Marker)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Counts the offers ever made to a counting inbox, taken or not. Any thread; exact when no offer is in flight,
     * and never more than the offers that began.
     *
     * @return how many entries were offered
     * @throws IllegalStateException if the inbox was built without a {@link Sequencer}
     */
    public long offeredCount() {
        if (sequencer == null) {
            throw new IllegalStateException("this inbox does not count offers: it was built without a Sequencer");
        }
        long sum = 0;
        for (int s = 0; s <= stripeMask; s++) {
            // The base first: it only grows, and the head read after it is at least as new, so the distance from
            // the base to the head's number is the true count of what lies above the base, modulo 2^30.
            long base = (long) BASE.getAcquire(bases, s);
            WheelEntry h = (WheelEntry) SLOT.getVolatile(heads, headSlot(s));
            sum += h instanceof Marker m ? m.total : base + (sequenceOf(h) - (int) base & sequenceMask);
        }
        return sum;
    }

    /**
     * Takes every waiting entry, each producer's in its offer order. Consumer thread only.
     *
     * @param consumer receives each entry; it may link the entry into a wheel
     * @return how many entries were taken
     */
    @SuppressWarnings("unchecked")
    public int drain(Consumer<? super E> consumer) {
        int count = 0;
        for (int s = 0; s <= stripeMask; s++) {
            int slot = headSlot(s);
            WheelEntry e = (WheelEntry) SLOT.getVolatile(heads, slot);
            if (e instanceof Marker) {
                continue;
            }
            e = sequencer == null ? (WheelEntry) SLOT.getAndSet(heads, slot, ZERO) : takeCounting(s, e);
            WheelEntry reversed = null;
            while (!(e instanceof Marker)) {
                WheelEntry next = e.next;
                e.next = reversed;
                reversed = e;
                e = next;
            }
            while (reversed != null) {
                WheelEntry next = reversed.next; // read before the consumer relinks the entry
                reversed.next = null;
                consumer.accept((E) reversed);
                reversed = next;
                count++;
            }
        }
        return count;
    }

    /**
     * Drops every waiting entry without visiting it, for a consumer that has another way to learn what they carried
     * (its entries are then garbage). O(stripes) for a counting inbox; one pass over the entries otherwise, to count
     * them. Consumer thread only.
     *
     * @return how many entries were dropped
     */
    public long discard() {
        long count = 0;
        for (int s = 0; s <= stripeMask; s++) {
            int slot = headSlot(s);
            WheelEntry e = (WheelEntry) SLOT.getVolatile(heads, slot);
            if (e instanceof Marker) {
                continue;
            }
            if (sequencer != null) {
                long base = bases[s]; // this thread is the only writer
                takeCounting(s, e);
                count += bases[s] - base;
            } else {
                for (e = (WheelEntry) SLOT.getAndSet(heads, slot, ZERO); !(e instanceof Marker); e = e.next) {
                    count++;
                }
            }
        }
        return count;
    }

    /** Swaps stripe {@code s}, whose head was {@code head}, for a fresh marker holding its new total. */
    private WheelEntry takeCounting(int s, WheelEntry head) {
        int slot = headSlot(s);
        long base = bases[s]; // this thread is the only writer
        Marker m = new Marker();
        WheelEntry h = head;
        while (true) {
            m.total = base + (sequenceOf(h) - (int) base & sequenceMask);
            if (SLOT.compareAndSet(heads, slot, h, m)) {
                BASE.setRelease(bases, s, m.total);
                return h;
            }
            h = (WheelEntry) SLOT.getVolatile(heads, slot);
        }
    }

    @SuppressWarnings("unchecked")
    private int sequenceOf(WheelEntry h) {
        return h instanceof Marker m ? (int) m.total & sequenceMask : sequencer.sequence((E) h);
    }

    private static int headSlot(int stripe) {
        return stripe * SPACING + SPACING;
    }

    private int stripeOf(Thread t) {
        // Fibonacci hashing of the thread id spreads consecutive ids (pool threads) over the stripes.
        return (int) ((t.getId() * 0x9E3779B97F4A7C15L) >>> 40) & stripeMask;
    }

    /**
     * The bottom of a stripe. Its total is written before the CAS that installs it and never after, so any thread
     * that reads the marker from the head reads its total.
     */
    private static final class Marker extends WheelEntry {
        long total;
    }
}

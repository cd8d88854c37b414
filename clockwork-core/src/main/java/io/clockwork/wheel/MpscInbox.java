package io.clockwork.wheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * The hand-off from producer threads to a wheel's owner: multi-producer, single-consumer, intrusive (the entry's own
 * link carries it, so handing over allocates nothing). Thread-safe for {@link #offer}; {@link #drain} and
 * {@link #isEmpty} belong to the one consumer (any thread may call {@code isEmpty}).
 *
 * <h2>Design</h2>
 * Lock-free stacks (Treiber, 1986), striped by producer thread: a producer CASes the head of its stripe; the
 * consumer swaps each stripe out whole and reverses it, so every producer's entries reach it in that producer's
 * offer order. Striping keeps two producers from bouncing one cache line between their cores on every offer (the
 * same reason {@code LongAdder} has cells); stripe heads sit {@value #SPACING} references apart so that no two share a
 * cache line, whatever the reference size.
 *
 * @param <E> the entry type
 */
public final class MpscInbox<E extends WheelEntry> {

    /** Distance between stripe heads, in array slots: 128 bytes even with 4-byte compressed references. */
    private static final int SPACING = 32;
    private static final int MAX_STRIPES = 16;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(WheelEntry[].class);

    private final WheelEntry[] heads;
    private final int stripeMask;

    /**
     * Creates an inbox with four stripes per available processor (a power of two, at most 16), so that a few
     * producer threads rarely hash to the same stripe.
     */
    public MpscInbox() {
        this(4 * Runtime.getRuntime().availableProcessors());
    }

    /**
     * Creates an inbox with at least {@code producers} stripes, rounded up to a power of two, at most 16.
     *
     * @param producers the number of producer threads expected to offer at once, at least 1
     */
    public MpscInbox(int producers) {
        if (producers < 1) {
            throw new IllegalArgumentException("producers must be at least 1, was " + producers);
        }
        int stripes = Math.min(MAX_STRIPES, Integer.highestOneBit(producers - 1 << 1 | 1));
        this.stripeMask = stripes - 1;
        // one spacing of padding before the first head and after the last one too
        this.heads = new WheelEntry[(stripes + 1) * SPACING];
    }

    /**
     * Hands an entry to the consumer. Lock-free; any thread.
     *
     * @param entry an entry in no wheel and in no inbox
     */
    public void offer(E entry) {
        int slot = stripeOf(Thread.currentThread()) * SPACING + SPACING;
        WheelEntry h;
        do {
            h = (WheelEntry) SLOT.getVolatile(heads, slot);
            entry.next = h;
        } while (!SLOT.weakCompareAndSet(heads, slot, h, entry));
    }

    /**
     * Tells whether nothing waits; volatile reads, so a consumer that publishes its intent to sleep and then finds
     * the inbox empty cannot miss an offer that precedes a producer's check of that intent.
     *
     * @return true if no entry waits
     */
    public boolean isEmpty() {
        for (int s = 0; s <= stripeMask; s++) {
            if (SLOT.getVolatile(heads, s * SPACING + SPACING) != null) {
                return false;
            }
        }
        return true;
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
            int slot = s * SPACING + SPACING;
            if (SLOT.getVolatile(heads, slot) == null) {
                continue;
            }
            WheelEntry e = (WheelEntry) SLOT.getAndSet(heads, slot, (WheelEntry) null);
            WheelEntry reversed = null;
            while (e != null) {
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

    private int stripeOf(Thread t) {
        // Fibonacci hashing of the thread id spreads consecutive ids (pool threads) over the stripes.
        return (int) ((t.getId() * 0x9E3779B97F4A7C15L) >>> 40) & stripeMask;
    }
}

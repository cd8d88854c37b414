package io.clockwork.wheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * The hand-off from producer threads to a wheel's owner: multi-producer, single-consumer, intrusive (the entry's own
 * link carries it, so handing over allocates nothing). Thread-safe for {@link #offer}; {@link #drain} and
 * {@link #isEmpty} belong to the one consumer.
 *
 * <p>A lock-free stack (Treiber, 1986): producers CAS the head; the consumer swaps the whole stack out and reverses
 * it, so entries reach it in offer order (per producer, and globally for offers ordered by happens-before).
 *
 * @param <E> the entry type
 */
public final class MpscInbox<E extends WheelEntry> {

    private static final VarHandle HEAD;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(MpscInbox.class, "head", WheelEntry.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through HEAD
    private volatile WheelEntry head;

    /**
     * Hands an entry to the consumer. Lock-free; any thread.
     *
     * @param entry an entry in no wheel and in no inbox
     */
    public void offer(E entry) {
        WheelEntry h;
        do {
            h = head;
            entry.next = h;
        } while (!HEAD.weakCompareAndSet(this, h, entry));
    }

    /**
     * Tells whether nothing waits; a volatile read, so a consumer that publishes its intent to sleep and then
     * finds the inbox empty cannot miss an offer that precedes a producer's check of that intent.
     *
     * @return true if no entry waits
     */
    public boolean isEmpty() {
        return head == null;
    }

    /**
     * Takes every waiting entry, in offer order. Consumer thread only.
     *
     * @param consumer receives each entry; it may link the entry into a wheel
     * @return how many entries were taken
     */
    @SuppressWarnings("unchecked")
    public int drain(Consumer<? super E> consumer) {
        if (head == null) {
            return 0;
        }
        WheelEntry e = (WheelEntry) HEAD.getAndSet(this, (WheelEntry) null);
        WheelEntry reversed = null;
        while (e != null) {
            WheelEntry next = e.next;
            e.next = reversed;
            reversed = e;
            e = next;
        }
        int count = 0;
        while (reversed != null) {
            WheelEntry next = reversed.next; // read before the consumer relinks the entry
            reversed.next = null;
            consumer.accept((E) reversed);
            reversed = next;
            count++;
        }
        return count;
    }
}

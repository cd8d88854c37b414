package io.clockwork.zookeeper;

import java.util.Arrays;

/**
 * The buckets of an {@link ExpiryQueue} on its poller's side: a ring of {@value #SLOTS} slots, one per interval
 * modulo {@value #SLOTS}, each an array list of filings (a key and a {@code long} tag), and one more list,
 * {@link #ARRIVALS}, for filings that arrived already due. Not thread-safe: owned by the queue's poll lock.
 *
 * <p>Why a ring of plain arrays: the queue keeps each element's state in its table, not in a node, so a bucket needs
 * to hold only the key and what the poller needs to find and check it again (the tag). A filing costs 12 bytes in
 * an array instead of a linked node. A slot holds every filing whose time falls on it in any lap of the ring, as in
 * Netty's {@code HashedWheelTimer}; the poller keeps the ones not yet due. So the number of buckets is fixed, and an
 * element whose timeout spans many laps is looked at once per lap, which the long intervals of session expiry make
 * rare. Slots shrink when most of their filings have gone, so an expiry storm does not hold its memory for ever.
 */
final class KeyRing {

    static final int SLOTS = 64;
    /** The list of filings that arrived already due; {@link #slotOf} never returns it. */
    static final int ARRIVALS = SLOTS;
    private static final int MIN_LENGTH = 8;

    private final Object[][] keys = new Object[SLOTS + 1][];
    private final long[][] tags = new long[SLOTS + 1][];
    private final int[] sizes = new int[SLOTS + 1];
    private long filings;

    KeyRing() {
        for (int s = 0; s <= SLOTS; s++) {
            keys[s] = new Object[MIN_LENGTH];
            tags[s] = new long[MIN_LENGTH];
        }
    }

    /** The slot of a time that is a multiple of {@code intervalMs}. */
    static int slotOf(long timeMs, long intervalMs) {
        return (int) ((timeMs / intervalMs) & (SLOTS - 1));
    }

    /** Files a key in a slot. */
    void add(int slot, Object key, long tag) {
        int n = sizes[slot];
        if (n == keys[slot].length) {
            keys[slot] = Arrays.copyOf(keys[slot], n * 2);
            tags[slot] = Arrays.copyOf(tags[slot], n * 2);
        }
        keys[slot][n] = key;
        tags[slot][n] = tag;
        sizes[slot] = n + 1;
        filings++;
    }

    /** @return the number of filings in every slot, including stale ones the poller has not met yet */
    long size() {
        return filings;
    }

    /** @return the number of filings in a slot */
    int size(int slot) {
        return sizes[slot];
    }

    /** Drops every filing of every slot. */
    void clear() {
        for (int s = 0; s <= SLOTS; s++) {
            if (keys[s].length > MIN_LENGTH) {
                keys[s] = new Object[MIN_LENGTH];
                tags[s] = new long[MIN_LENGTH];
            } else {
                Arrays.fill(keys[s], 0, sizes[s], null);
            }
            sizes[s] = 0;
        }
        filings = 0;
    }

    /** Decides what happens to a filing met in its slot. */
    interface Sorter {
        /**
         * @return true to keep the filing in the slot; false when it is done with (expired, stale) or was filed
         *         in another slot through {@link #add}
         */
        boolean keep(Object key, long tag);
    }

    /**
     * Offers every filing of a slot to the sorter, in filing order, and keeps the ones it keeps. The sorter may
     * {@link #add} to any other slot meanwhile, never to this one.
     */
    void sort(int slot, Sorter sorter) {
        Object[] k = keys[slot];
        long[] t = tags[slot];
        int n = sizes[slot];
        int kept = 0;
        for (int i = 0; i < n; i++) {
            Object key = k[i];
            long tag = t[i];
            if (sorter.keep(key, tag)) {
                k[kept] = key;
                t[kept] = tag;
                kept++;
            }
        }
        Arrays.fill(k, kept, n, null); // let the keys that left be collected
        sizes[slot] = kept;
        filings -= n - kept;
        if (k.length > MIN_LENGTH && kept < k.length / 4) {
            int length = Math.max(MIN_LENGTH, Integer.highestOneBit(Math.max(1, kept)) * 2);
            keys[slot] = Arrays.copyOf(k, length);
            tags[slot] = Arrays.copyOf(t, length);
        }
    }
}

package io.clockwork.zookeeper;

import io.clockwork.engine.LinePadded;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A concurrent hash table from object keys to one {@code long} state each, stored inline: the key and its state sit
 * at the same index of two parallel arrays, found by open addressing. Thread-safe: lookups take no lock, states
 * change by compare-and-set without a lock, and insertions, removals and resizes lock one of {@value #SEGMENTS}
 * independent segments.
 *
 * <h2>Why</h2>
 * {@code ExpiryQueue.update} on an element that stays in its bucket is a lookup and a comparison. In a table of
 * nodes ({@link NodeTable}) that is two dependent cache misses once the table is larger than the caches: the table
 * slot, then the node it points to. Here the key and the state are at the same index of two arrays, so the CPU loads
 * both at once and the second miss overlaps the first ({@code ExpiryQueueTouchBenchmark} compares the two designs;
 * see {@code docs/benchmarks.md}). An entry costs 16 bytes per slot (key, hash and state); a segment grows at 3/4
 * full and shrinks below 1/8, so a key has 1.33 to 8 slots.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Segments.</b> The low {@value #SEGMENT_BITS} bits of the hash pick a segment; Fibonacci hashing of the
 *       whole hash picks the home index inside it, and probing is linear. A segment's arrays ({@link Slots}) are
 *       replaced as a whole when it grows, shrinks or sheds removed entries; readers read them from a volatile
 *       field.</li>
 *   <li><b>States</b> are non-negative longs owned by the caller; the table reserves two negative values:
 *       {@link #REMOVED} and {@link #MOVING}. A key is published by a release store after its hash and state, so a
 *       reader that sees the key sees its state.</li>
 *   <li><b>Removal</b> (under the segment lock) swaps the state to {@link #REMOVED}, so that every later CAS on it
 *       fails, then replaces the key with a tombstone. Tombstones are never reused in place: a key inserted again
 *       lands further along its probe sequence, past the removed one, which readers skip. They go when the segment
 *       is rebuilt.</li>
 *   <li><b>Rebuild</b> (under the segment lock) freezes each state by CAS to {@link #MOVING} and copies the frozen
 *       value, so an update racing the copy either lands before it (and is copied) or fails and retries on the new
 *       arrays once they are published. A reader that meets {@code MOVING} waits for that publication.</li>
 *   <li><b>Fresh keys.</b> Each segment logs the index of every key inserted since its owner last asked
 *       ({@link #drainFresh}), under the lock the insertion holds anyway: 4 bytes per new key, where a message to
 *       the owner would cost an object. A rebuild maps the logged indexes to the new arrays.</li>
 * </ul>
 */
final class KeyStateTable {

    /** The state of a removed key; terminal. */
    static final long REMOVED = Long.MIN_VALUE;
    /** The state of a key whose segment is being rebuilt: retry on the new arrays. */
    static final long MOVING = Long.MIN_VALUE + 1;

    static final int SEGMENT_BITS = 5;
    static final int SEGMENTS = 1 << SEGMENT_BITS;

    private static final int MIN_CAPACITY = 16;
    private static final int MIN_FRESH = 8;
    private static final int MAX_CAPACITY = 1 << 26;
    private static final Object TOMBSTONE = new Object();
    private static final VarHandle KEY = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final VarHandle STATE = MethodHandles.arrayElementVarHandle(long[].class);

    private final Segment[] segments = new Segment[SEGMENTS];

    KeyStateTable() {
        for (int s = 0; s < SEGMENTS; s++) {
            segments[s] = new Segment();
        }
    }

    /** The table hash of a key's {@code hashCode()}. */
    static int hash(Object key) {
        int h = key.hashCode();
        return h ^ (h >>> 16);
    }

    /**
     * The arrays of the segment of a hash. Lock-free; they may be replaced at any time, which {@link #MOVING}
     * states announce.
     */
    Slots slots(int hash) {
        return segments[hash & (SEGMENTS - 1)].slots;
    }

    /**
     * Finds a key that is not removed. Lock-free.
     *
     * @return its index in {@code a}, or -1
     */
    static int indexOf(Slots a, Object key, int hash) {
        Object[] keys = a.keys;
        for (int i = a.home(hash); ; i = (i + 1) & a.mask) {
            Object k = KEY.getAcquire(keys, i);
            if (k == null) {
                return -1;
            }
            if ((k == key || (a.hashes[i] == hash && k != TOMBSTONE && key.equals(k)))
                    && (long) STATE.getVolatile(a.states, i) != REMOVED) {
                return i;
            }
        }
    }

    /** The state at an index: the caller's, or {@link #REMOVED} or {@link #MOVING}. */
    static long state(Slots a, int i) {
        return (long) STATE.getVolatile(a.states, i);
    }

    static boolean cas(Slots a, int i, long expected, long update) {
        return STATE.compareAndSet(a.states, i, expected, update);
    }

    /**
     * Waits until the segment of {@code stale} has published its new arrays, after a {@link #MOVING} state.
     *
     * @return the new arrays
     */
    Slots awaitRebuilt(Slots stale, int hash) {
        Slots now;
        while ((now = slots(hash)) == stale) {
            Thread.onSpinWait(); // the rebuild copies one segment, at most a few million entries
        }
        return now;
    }

    /**
     * Inserts a key unless it is present.
     *
     * @param state its state, not negative
     * @return true if inserted, false if the key was present (nothing changed)
     * @throws IllegalStateException if the key's segment is full (about 50 million keys)
     */
    boolean insert(Object key, int hash, long state) {
        Segment seg = segments[hash & (SEGMENTS - 1)];
        synchronized (seg) {
            Slots a = seg.slots;
            if (indexOf(a, key, hash) >= 0) {
                return false;
            }
            if (seg.used + 1 > a.maxUsed()) {
                a = seg.rebuild(a, seg.live + 1);
                if (seg.used + 1 > a.maxUsed()) { // at MAX_CAPACITY: probing needs empty slots to end
                    throw new IllegalStateException("table full: a segment holds at most " + a.maxUsed()
                            + " keys, " + (long) a.maxUsed() * SEGMENTS + " in all");
                }
            }
            int i = a.home(hash);
            while (a.keys[i] != null) {
                i = (i + 1) & a.mask;
            }
            a.hashes[i] = hash;
            STATE.setRelease(a.states, i, state);
            KEY.setRelease(a.keys, i, key);
            seg.used++;
            seg.live++;
            seg.logFresh(i);
            return true;
        }
    }

    /**
     * Removes a key.
     *
     * @return the state it had, or {@link #REMOVED} if it was absent
     */
    long remove(Object key, int hash) {
        Segment seg = segments[hash & (SEGMENTS - 1)];
        synchronized (seg) {
            Slots a = seg.slots; // never MOVING: rebuilds hold this lock
            int i = indexOf(a, key, hash);
            if (i < 0) {
                return REMOVED;
            }
            long previous = (long) STATE.getAndSet(a.states, i, REMOVED);
            KEY.setRelease(a.keys, i, TOMBSTONE);
            seg.live--;
            if (seg.live < a.mask >>> 3 && a.mask >= MIN_CAPACITY * 2) {
                seg.rebuild(a, seg.live); // shrink: a drained segment gives its memory back
            }
            return previous;
        }
    }

    /** The number of keys: exact when no insertion or removal is in progress. */
    int size() {
        long sum = 0;
        for (Segment seg : segments) {
            sum += seg.live;
        }
        return (int) Math.min(Integer.MAX_VALUE, sum);
    }

    /** @return how many keys were inserted since {@link #drainFresh} last ran; a moment's estimate */
    long freshCount() {
        long sum = 0;
        for (Segment seg : segments) {
            sum += seg.freshCount;
        }
        return sum;
    }

    /**
     * Visits the place of every key inserted since the last call (or since a {@link #scan} that forgot them) and is
     * still present, then forgets them; one segment at a time, holding its lock.
     */
    void drainFresh(SlotVisitor visitor) {
        for (Segment seg : segments) {
            synchronized (seg) {
                Slots a = seg.slots;
                for (int k = 0; k < seg.freshCount; k++) {
                    int i = seg.fresh[k];
                    Object key = a.keys[i];
                    if (key != TOMBSTONE) { // removed since
                        visitor.visit(a, i, key, a.hashes[i]);
                    }
                }
                seg.forgetFresh();
            }
        }
    }

    /** Receives a key and its state. */
    interface Visitor {
        void visit(Object key, long state);
    }

    /**
     * Visits every key with its state, one segment at a time, holding that segment's lock (states may still change
     * by CAS meanwhile). O(capacity): for snapshots and diagnostics.
     */
    void forEach(Visitor visitor) {
        scan((a, i, key, hash) -> {
            long s = state(a, i);
            if (s >= 0) {
                visitor.visit(key, s);
            }
        }, false);
    }

    /** Receives the place of a key: its arrays and index, where its state may be read and CASed. */
    interface SlotVisitor {
        void visit(Slots a, int i, Object key, int hash);
    }

    /**
     * Visits the place of every key, one segment at a time in memory order, holding that segment's lock: no key is
     * inserted, removed or moved in it meanwhile, but states may change by CAS. O(capacity), and sequential, so a
     * pass over a large table costs far less per key than as many lookups.
     *
     * @param forgetFresh whether to forget the fresh keys of each segment scanned (see {@link #drainFresh}), for an
     *                    owner that learns about every key from the scan
     */
    void scan(SlotVisitor visitor, boolean forgetFresh) {
        for (Segment seg : segments) {
            synchronized (seg) {
                if (forgetFresh) {
                    seg.forgetFresh();
                }
                Slots a = seg.slots;
                for (int i = 0; i <= a.mask; i++) {
                    Object k = a.keys[i];
                    if (k != null && k != TOMBSTONE) {
                        visitor.visit(a, i, k, a.hashes[i]);
                    }
                }
            }
        }
    }

    /** @return the longest distance of a key from its home index, in slots; for tests */
    int longestProbe() {
        int longest = 0;
        for (Segment seg : segments) {
            synchronized (seg) {
                Slots a = seg.slots;
                for (int i = 0; i <= a.mask; i++) {
                    Object k = a.keys[i];
                    if (k != null && k != TOMBSTONE) {
                        longest = Math.max(longest, (i - a.home(a.hashes[i])) & a.mask);
                    }
                }
            }
        }
        return longest;
    }

    /** @return the number of slots, for tests */
    int capacity() {
        int sum = 0;
        for (Segment seg : segments) {
            sum += seg.slots.mask + 1;
        }
        return sum;
    }

    /** One segment's arrays, replaced whole by a rebuild. Immutable references; the elements are shared. */
    static final class Slots {
        final Object[] keys;
        final int[] hashes;
        final long[] states;
        final int mask;
        private final int shift;
        private final int seed;

        Slots(int capacity) {
            keys = new Object[capacity];
            hashes = new int[capacity];
            states = new long[capacity];
            mask = capacity - 1;
            shift = 32 - Integer.numberOfTrailingZeros(capacity);
            seed = ThreadLocalRandom.current().nextInt();
        }

        /**
         * The home index of a hash: Fibonacci hashing, so that keys of one segment spread over all its slots, of the
         * hash mixed with a seed drawn for these arrays. Without the seed, a key's home in smaller arrays would be its
         * old home scaled down; after removals in table order (an expiry storm's, removed as polled) the keys left
         * sit at one end of the old arrays, would land in one cluster of the new ones, and linear probing through it
         * would cost quadratic time. XOR with a seed then one multiplication is not enough: a product's top bits
         * depend on the low bits of its factor, so keys that met at the top of the old arrays still crowd together
         * under some seeds; a multiply and an xorshift first spread every bit of the seeded hash over all bits.
         */
        int home(int hash) {
            int h = (hash ^ seed) * 0x85EBCA6B;
            h ^= h >>> 15;
            return (h * 0x9E3779B9) >>> shift;
        }

        /** Keys and tombstones allowed before a rebuild: three quarters of the slots, so probes stay short. */
        int maxUsed() {
            return (mask + 1) - ((mask + 1) >>> 2);
        }
    }

    /**
     * A lock, its arrays and its counts. Padded ({@link LinePadded}), so that the volatile {@code slots} that every
     * lookup reads does not share a line with the previous segment's counts, which insertions write.
     */
    private static final class Segment extends LinePadded {
        volatile Slots slots = new Slots(MIN_CAPACITY);
        int used; // keys and tombstones; guarded by this
        int live; // keys; guarded by this
        int[] fresh = new int[MIN_FRESH]; // indexes of keys inserted since the last drain; guarded by this
        int freshCount;                    // guarded by this

        void logFresh(int i) {
            if (freshCount == fresh.length) {
                fresh = Arrays.copyOf(fresh, freshCount * 2);
            }
            fresh[freshCount++] = i;
        }

        void forgetFresh() {
            freshCount = 0;
            if (fresh.length > MIN_FRESH) {
                fresh = new int[MIN_FRESH]; // a burst of insertions does not hold its log's memory
            }
        }

        /**
         * Copies the live keys into arrays sized for {@code keys} of them at most half full, freezing each state
         * on the way (see the class comment), and publishes them. Caller holds this lock.
         */
        Slots rebuild(Slots old, int keys) {
            int capacity = MIN_CAPACITY;
            while (capacity < MAX_CAPACITY && capacity < 2 * keys) {
                capacity <<= 1;
            }
            Slots next = new Slots(capacity);
            int[] moved = freshCount > 0 ? new int[old.mask + 1] : null; // old index to new, for the fresh log
            for (int i = 0; i <= old.mask; i++) {
                Object k = old.keys[i];
                if (k == null || k == TOMBSTONE) {
                    continue;
                }
                long s;
                do {
                    s = state(old, i);
                } while (!cas(old, i, s, MOVING));
                if (s == REMOVED) {
                    continue;
                }
                int j = next.home(old.hashes[i]);
                while (next.keys[j] != null) {
                    j = (j + 1) & next.mask;
                }
                next.keys[j] = k;
                next.hashes[j] = old.hashes[i];
                next.states[j] = s;
                if (moved != null) {
                    moved[i] = j + 1; // 0: not copied
                }
            }
            if (moved != null) {
                int kept = 0;
                for (int k = 0; k < freshCount; k++) {
                    int j = moved[fresh[k]] - 1;
                    if (j >= 0) {
                        fresh[kept++] = j;
                    }
                }
                freshCount = kept;
            }
            used = live;
            slots = next; // publishes the copied entries
            return next;
        }
    }
}

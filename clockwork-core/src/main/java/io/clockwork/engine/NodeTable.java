package io.clockwork.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A concurrent hash table whose entries are the structure's own nodes (intrusive chaining: the node carries its
 * key, its hash and its bucket link). Thread-safe: lookups take no lock and write nothing; insertions and removals
 * lock one of {@value #STRIPES} stripes of buckets; the table doubles without stopping lookups. Subclasses say where
 * a node keeps its hash and link and how its key compares: {@code ExpiryNodeTable} for ZooKeeper's expiry nodes
 * (keyed by {@code long} session ids in {@code SessionTrackerImpl}, or by objects), and {@code RotatingMap}'s table of
 * its entries.
 *
 * <h2>Why</h2>
 * A {@code ConcurrentHashMap<K, Node>} costs a 32-byte {@code CHM.Node} per entry on top of our node, an extra
 * dependent load per lookup, and boxing for {@code long} keys (a 16-byte {@code Long} retained per session, 24 bytes
 * allocated per session touch). Here the node's {@code hash} and {@code chain} fields fill what was alignment
 * padding in most node layouts, so an entry costs 0 to 8 bytes more than the node alone, plus its share of the
 * table (4 bytes per slot with compressed references, one slot per entry at most). The slots are split into
 * segments of at most 65,536, so that no array is a G1 "humongous" object: a single array of 2^20 slots is 16 bytes
 * over 4 MiB and would occupy two 4 MiB regions, adding 4 bytes per entry at a million entries.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Lookups</b> read the table, the bucket head and the chain links with acquire loads, and compare hashes
 *       before keys. A node is published by a release store of the bucket head (or of its predecessor's link) after
 *       its fields are set, so a reader that sees it sees it whole. Removal unlinks a node but leaves its own
 *       {@code chain} intact, so a reader standing on it walks on; removed nodes are never re-inserted.</li>
 *   <li><b>Writes</b> lock the stripe {@code hash & (STRIPES - 1)}. The table length is a power of two, at least
 *       {@code STRIPES}, so a bucket's stripe is the same in every table: one lock covers a bucket for ever.</li>
 *   <li><b>Resize</b> (when a stripe holds more entries than it has buckets, and the table is half full) doubles it,
 *       moving nodes rather than copying them, which breaks the old chains under concurrent readers; so, as in
 *       {@code ConcurrentHashMap}'s transfer (Lea, JSR 166) but without copying, each old bucket is first set to
 *       {@link #MOVING}, its nodes are split in order into the two new buckets, and the old bucket is set to a
 *       forwarding marker to the new table. A reader that missed re-reads its bucket head: if it is unchanged, no
 *       link it followed had been rewritten (every rewrite is a release store after the {@code MOVING} store, so a
 *       reader that saw one sees {@code MOVING}), and the miss stands; otherwise it retries, following the
 *       forwarding marker. A reader that meets {@code MOVING} waits for the one bucket being split, a few nodes.
 *       Rewritten links only ever point to nodes later in the old chain, so even a reader that mixes old and new
 *       links reaches the end of its walk. Writers meet only forwarding markers (the resizer holds the stripe lock
 *       while a bucket is {@code MOVING}), and follow them.</li>
 * </ul>
 * The table never shrinks, as {@code ConcurrentHashMap}'s; {@link #clear()} replaces it with a small one.
 *
 * @param <N> the node type
 */
public abstract class NodeTable<N> {

    /** Lock stripes; a power of two, and the smallest table length. */
    public static final int STRIPES = 32;

    private static final int MAX_CAPACITY = 1 << 30;
    private static final int INITIAL_CAPACITY = STRIPES * 2;
    /** Slots per segment, at most: 256 KiB with compressed references, far below a G1 region (1 to 32 MiB). */
    private static final int SEGMENT_BITS = 16;
    private static final int SEGMENT_MASK = (1 << SEGMENT_BITS) - 1;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final Marker MOVING = new Marker(null);

    private volatile Object[][] table = newTable(INITIAL_CAPACITY);
    private final Stripe[] stripes = new Stripe[STRIPES];
    private final ReentrantLock resizeLock = new ReentrantLock();

    protected NodeTable() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
    }

    /** @return the node's hash, as given by {@link #hash(int)} or {@link #hash(long)} */
    protected abstract int hashOf(N node);

    /** @return the next node of the node's bucket, read with acquire semantics */
    protected abstract N chainOf(N node);

    /** Sets the next node of the node's bucket, with release semantics. */
    protected abstract void chain(N node, N next);

    /** @return whether the node's key equals the given object key; tables of object keys override it */
    protected boolean hasKey(N node, Object key) {
        return false;
    }

    /** @return whether the node's key is the given {@code long} key; tables of {@code long} keys override it */
    protected boolean hasKey(N node, long key) {
        return false;
    }

    /** @return whether two nodes have the same key */
    protected abstract boolean sameKey(N node, N other);

    /** A table of {@code length} slots (a power of two) in segments of at most {@code 2^SEGMENT_BITS}. */
    private static Object[][] newTable(int length) {
        int segment = Math.min(length, 1 << SEGMENT_BITS);
        Object[][] t = new Object[length / segment][];
        for (int s = 0; s < t.length; s++) {
            t[s] = new Object[segment];
        }
        return t;
    }

    /** The number of slots of a table, minus one. */
    private static int mask(Object[][] t) {
        return t.length > 1 ? (t.length << SEGMENT_BITS) - 1 : t[0].length - 1;
    }

    private static Object slot(Object[][] t, int i) {
        return SLOT.getAcquire(t[i >>> SEGMENT_BITS], i & SEGMENT_MASK);
    }

    private static void setSlot(Object[][] t, int i, Object value) {
        SLOT.setRelease(t[i >>> SEGMENT_BITS], i & SEGMENT_MASK, value);
    }

    /** The table hash of an object key's {@code hashCode()}: high bits folded in, as {@code HashMap} does. */
    public static int hash(int hashCode) {
        return hashCode ^ (hashCode >>> 16);
    }

    /** The table hash of a {@code long} key. */
    public static int hash(long key) {
        return hash(Long.hashCode(key));
    }

    /**
     * Finds the node of an object key. Lock-free.
     *
     * @param key  the key
     * @param hash {@link #hash(int) hash}{@code (key.hashCode())}
     * @return the node, or null
     */
    @SuppressWarnings("unchecked")
    public final N get(Object key, int hash) {
        Object[][] t = table;
        while (true) {
            int i = hash & mask(t);
            Object first = slot(t, i);
            if (first == null) {
                return null;
            }
            if (first instanceof Marker) {
                t = follow(t, (Marker) first);
                continue;
            }
            for (N n = (N) first; n != null; n = chainOf(n)) {
                if (hashOf(n) == hash && hasKey(n, key)) {
                    return n;
                }
            }
            if (slot(t, i) == first) {
                return null;
            }
        }
    }

    /**
     * Finds the node of a {@code long} key, without boxing it. Lock-free.
     *
     * <p>The same walk as {@link #get(Object, int)}, written out again on purpose: sharing it through a key
     * predicate would allocate or box per lookup (or make the call megamorphic), which this variant exists to avoid
     * on {@code SessionTrackerImpl}'s touch path.
     *
     * @param key  the key
     * @param hash {@link #hash(long) hash}{@code (key)}
     * @return the node, or null
     */
    @SuppressWarnings("unchecked")
    public final N get(long key, int hash) {
        Object[][] t = table;
        while (true) {
            int i = hash & mask(t);
            Object first = slot(t, i);
            if (first == null) {
                return null;
            }
            if (first instanceof Marker) {
                t = follow(t, (Marker) first);
                continue;
            }
            for (N n = (N) first; n != null; n = chainOf(n)) {
                if (hashOf(n) == hash && hasKey(n, key)) {
                    return n;
                }
            }
            if (slot(t, i) == first) {
                return null;
            }
        }
    }

    /** The table to look in next after meeting a marker in {@code t}: the same one while a bucket is moving. */
    private static Object[][] follow(Object[][] t, Marker marker) {
        if (marker == MOVING) {
            Thread.onSpinWait();
            return t;
        }
        return marker.next;
    }

    /**
     * Inserts a node unless a node with the same key is present.
     *
     * @param node a node never inserted before
     * @return the node already present for that key (the table is unchanged), or null if {@code node} was inserted
     */
    @SuppressWarnings("unchecked")
    public final N putIfAbsent(N node) {
        int hash = hashOf(node);
        Stripe stripe = stripes[hash & (STRIPES - 1)];
        int length;
        synchronized (stripe) {
            Object[][] t = table;
            int i;
            Object first;
            while ((first = slot(t, i = hash & mask(t))) instanceof Marker) {
                t = ((Marker) first).next; // never MOVING: the resizer holds this stripe while a bucket moves
            }
            for (N n = (N) first; n != null; n = chainOf(n)) {
                if (hashOf(n) == hash && sameKey(node, n)) {
                    return n;
                }
            }
            chain(node, (N) first);
            setSlot(t, i, node);
            length = mask(t) + 1;
            if (++stripe.count <= length / STRIPES || length >= MAX_CAPACITY) {
                return null;
            }
        }
        grow(length);
        return null;
    }

    /**
     * Removes a node.
     *
     * @param node the node
     * @return true if this call removed it, false if it was not in the table
     */
    @SuppressWarnings("unchecked")
    public final boolean remove(N node) {
        int hash = hashOf(node);
        Stripe stripe = stripes[hash & (STRIPES - 1)];
        synchronized (stripe) {
            Object[][] t = table;
            int i;
            Object first;
            while ((first = slot(t, i = hash & mask(t))) instanceof Marker) {
                t = ((Marker) first).next;
            }
            N previous = null;
            for (N n = (N) first; n != null; previous = n, n = chainOf(n)) {
                if (n == node) {
                    N next = chainOf(n); // n keeps its link: a reader standing on it walks on
                    if (previous == null) {
                        setSlot(t, i, next);
                    } else {
                        chain(previous, next);
                    }
                    stripe.count--;
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Returns the number of nodes: exact when no write is in progress, else a moment's estimate.
     *
     * @return the number of nodes
     */
    public final int size() {
        long sum = 0;
        for (Stripe stripe : stripes) {
            sum += stripe.count;
        }
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, sum));
    }

    /**
     * Visits every node, with writers held off for the duration (lookups go on). O(n + capacity): for diagnostics
     * and snapshots.
     *
     * @param action receives each node; it must not write to this table
     */
    @SuppressWarnings("unchecked")
    public final void forEach(Consumer<? super N> action) {
        withAllLocks(() -> {
            Object[][] t = table; // no resize runs (we hold its lock), so no bucket of the current table is a marker
            for (int i = 0, length = mask(t) + 1; i < length; i++) {
                for (N n = (N) slot(t, i); n != null; n = chainOf(n)) {
                    action.accept(n);
                }
            }
        });
    }

    /**
     * Removes every node, with writers held off meanwhile; lookups that started before see the old nodes. The table
     * goes back to its initial size.
     */
    public final void clear() {
        withAllLocks(() -> {
            table = newTable(INITIAL_CAPACITY);
            for (Stripe stripe : stripes) {
                stripe.count = 0;
            }
        });
    }

    private void withAllLocks(Runnable action) {
        resizeLock.lock();
        try {
            lockStripesFrom(0, action);
        } finally {
            resizeLock.unlock();
        }
    }

    private void lockStripesFrom(int s, Runnable action) {
        if (s < STRIPES) {
            synchronized (stripes[s]) {
                lockStripesFrom(s + 1, action);
            }
        } else {
            action.run();
        }
    }

    /** @return the number of buckets; for tests */
    public final int capacity() {
        return mask(table) + 1;
    }

    /** Doubles the table if it still has the length that overflowed, unless another thread is doing it. */
    private void grow(int overflowedLength) {
        if (!resizeLock.tryLock()) {
            return; // a resize is running; the next insertion into a full stripe checks again
        }
        try {
            Object[][] old = table;
            int n = mask(old) + 1;
            // One stripe overflows before the table is full by chance, or for ever when hash codes collide (doubling
            // cannot separate equal hashes): grow only when the table as a whole is at least half full.
            if (n != overflowedLength || n >= MAX_CAPACITY || size() <= n >> 1) {
                return;
            }
            Object[][] next = newTable(n << 1);
            Marker forward = new Marker(next);
            for (int s = 0; s < STRIPES; s++) {
                synchronized (stripes[s]) {
                    for (int i = s; i < n; i += STRIPES) {
                        split(old, i, next, forward);
                    }
                }
            }
            table = next;
        } finally {
            resizeLock.unlock();
        }
    }

    /** Moves bucket {@code i} of {@code old} into buckets {@code i} and {@code i + old.length} of {@code next}. */
    @SuppressWarnings("unchecked")
    private void split(Object[][] old, int i, Object[][] next, Marker forward) {
        int n = mask(old) + 1;
        N first = (N) slot(old, i);
        setSlot(old, i, MOVING); // before any link is rewritten: see the class comment
        N loHead = null;
        N loTail = null;
        N hiHead = null;
        N hiTail = null;
        for (N e = first; e != null; ) {
            N following = chainOf(e);
            if ((hashOf(e) & n) == 0) {
                if (loTail == null) {
                    loHead = e;
                } else {
                    chain(loTail, e);
                }
                loTail = e;
            } else {
                if (hiTail == null) {
                    hiHead = e;
                } else {
                    chain(hiTail, e);
                }
                hiTail = e;
            }
            e = following;
        }
        if (loTail != null) {
            chain(loTail, null);
        }
        if (hiTail != null) {
            chain(hiTail, null);
        }
        setSlot(next, i, loHead);
        setSlot(next, i + n, hiHead);
        setSlot(old, i, forward); // publishes the new buckets to readers that follow it
    }

    @Override
    public String toString() {
        return "NodeTable[size=" + size() + ", capacity=" + capacity() + "]";
    }

    /** A bucket head that is no node: {@link #MOVING}, or a forward to the table that replaced this one. */
    private static final class Marker {
        final Object[][] next;

        Marker(Object[][] next) {
            this.next = next;
        }
    }

    /** One lock stripe and its entry count, padded ({@link LinePadded}) so that two stripes rarely share a line. */
    private static final class Stripe extends LinePadded {
        int count; // guarded by this
    }
}

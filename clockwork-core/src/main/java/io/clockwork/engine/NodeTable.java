package io.clockwork.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A concurrent hash table whose entries are the structure's own nodes (intrusive chaining: the node carries its
 * key, its hash and its bucket link). Thread-safe: lookups take no lock and write nothing; an insertion or removal
 * holds the lock of its one bucket, a byte beside the bucket, for a few stores; the table doubles without stopping
 * lookups. Subclasses say where a node keeps its hash and link and how its key compares: {@code ExpiryNodeTable} for
 * ZooKeeper's expiry nodes (keyed by {@code long} session ids in {@code SessionTrackerImpl}, or by objects),
 * {@code RotatingMap}'s table of its entries, and the in-memory delayed queue's messages by id.
 *
 * <h2>Why</h2>
 * A {@code ConcurrentHashMap<K, Node>} costs a 32-byte {@code CHM.Node} per entry on top of our node, an extra
 * dependent load per lookup, and boxing for {@code long} keys (a 16-byte {@code Long} retained per session, 24 bytes
 * allocated per session touch). Here the node's {@code hash} and {@code chain} fields fill what was alignment
 * padding in most node layouts, so an entry costs 0 to 8 bytes more than the node alone, plus its share of the
 * table (5 bytes per slot with compressed references: the slot and its lock byte, one slot per entry at most). The
 * slots are split into segments of at most 65,536, so that no array is a G1 "humongous" object: a single array of
 * 2^20 slots is 16 bytes over 4 MiB and would occupy two 4 MiB regions, adding 4 bytes per entry at a million
 * entries.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Lookups</b> read the table, the bucket head and the chain links with acquire loads, and compare hashes
 *       before keys. A node is published by a release store of the bucket head (or of its predecessor's link) after
 *       its fields are set, so a reader that sees it sees it whole. Removal unlinks a node but leaves its own
 *       {@code chain} intact, so a reader standing on it walks on; removed nodes are never re-inserted.</li>
 *   <li><b>Writes</b> lock their bucket: a compare-and-set of the bucket's lock byte, held for the walk of that one
 *       chain and a store or two, then a release store of zero. A lock per bucket rather than per stripe of buckets
 *       matters on a machine with fewer cores than threads: a writer preempted while it holds a lock holds it for
 *       the rest of a scheduler time slice (milliseconds), and a stripe covering 1/32 of the table stalls nearly
 *       every other writer within a few operations, while a bucket stalls only writers of the same bucket, about one
 *       in the table's capacity. A writer that finds its bucket locked spins briefly, then yields its core so that a
 *       preempted holder can run. Writers hold one lock at a time, so no order among locks is needed.</li>
 *   <li><b>Resize</b> (when a stripe of {@value #STRIPES} counts more entries than it has buckets, and the table is
 *       half full) doubles it, moving nodes rather than copying them, which breaks the old chains under concurrent
 *       readers; so, as in {@code ConcurrentHashMap}'s transfer (Lea, JSR 166) but without copying, each old bucket
 *       is locked, set to {@link #MOVING}, its nodes are split in order into the two new buckets, and the old bucket
 *       is set to a forwarding marker to the new table and unlocked. A reader that missed re-reads its bucket head:
 *       if it is unchanged, no link it followed had been rewritten (every rewrite is a release store after the
 *       {@code MOVING} store, so a reader that saw one sees {@code MOVING}), and the miss stands; otherwise it
 *       retries, following the forwarding marker. A reader that meets {@code MOVING} waits for the one bucket being
 *       split, a few nodes. Rewritten links only ever point to nodes later in the old chain, so even a reader that
 *       mixes old and new links reaches the end of its walk. Writers never meet {@code MOVING} (the resizer holds the
 *       bucket's lock while it moves); they meet forwarding markers, release the old bucket and follow them. No
 *       writer reaches a new bucket before the forwarding marker that leads to it is stored.</li>
 * </ul>
 * The table never shrinks, as {@code ConcurrentHashMap}'s; {@link #clear()} replaces it with a small one.
 *
 * @param <N> the node type
 */
public abstract class NodeTable<N> {

    /** Entry-count stripes; a power of two, and the smallest table length. */
    public static final int STRIPES = 32;

    private static final int MAX_CAPACITY = 1 << 30;
    private static final int INITIAL_CAPACITY = STRIPES * 2;
    /** Slots per segment, at most: 256 KiB with compressed references, far below a G1 region (1 to 32 MiB). */
    private static final int SEGMENT_BITS = 16;
    private static final int SEGMENT_MASK = (1 << SEGMENT_BITS) - 1;
    /** Failed lock attempts spent spinning before a writer starts yielding its core to the lock's holder. */
    private static final int SPINS = 64;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final VarHandle LOCK = MethodHandles.arrayElementVarHandle(byte[].class);
    private static final VarHandle COUNT;
    private static final Marker MOVING = new Marker(null);

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(Stripe.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Table table = new Table(INITIAL_CAPACITY);
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
        Table t = table;
        while (true) {
            int i = hash & t.mask;
            Object first = t.slot(i);
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
            if (t.slot(i) == first) {
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
        Table t = table;
        while (true) {
            int i = hash & t.mask;
            Object first = t.slot(i);
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
            if (t.slot(i) == first) {
                return null;
            }
        }
    }

    /** The table to look in next after meeting a marker in {@code t}: the same one while a bucket is moving. */
    private static Table follow(Table t, Marker marker) {
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
        Table t = table;
        int i;
        while (true) {
            i = hash & t.mask;
            t.lock(i);
            Object first = t.slot(i);
            if (first instanceof Marker) { // a forward: the resizer holds the lock while a bucket is MOVING
                t.unlock(i);
                t = ((Marker) first).next;
                continue;
            }
            for (N n = (N) first; n != null; n = chainOf(n)) {
                if (hashOf(n) == hash && sameKey(node, n)) {
                    t.unlock(i);
                    return n;
                }
            }
            chain(node, (N) first);
            t.setSlot(i, node);
            break;
        }
        // Counted before the unlock, so that clear(), which holds every lock, sees every count it resets.
        int count = (int) COUNT.getAndAdd(stripe, 1) + 1;
        t.unlock(i);
        int length = t.mask + 1;
        if (count > length / STRIPES && length < MAX_CAPACITY) {
            grow(length);
        }
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
        Table t = table;
        while (true) {
            int i = hash & t.mask;
            t.lock(i);
            Object first = t.slot(i);
            if (first instanceof Marker) {
                t.unlock(i);
                t = ((Marker) first).next;
                continue;
            }
            N previous = null;
            for (N n = (N) first; n != null; previous = n, n = chainOf(n)) {
                if (n == node) {
                    N next = chainOf(n); // n keeps its link: a reader standing on it walks on
                    if (previous == null) {
                        t.setSlot(i, next);
                    } else {
                        chain(previous, next);
                    }
                    COUNT.getAndAdd(stripes[hash & (STRIPES - 1)], -1);
                    t.unlock(i);
                    return true;
                }
            }
            t.unlock(i);
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
            sum += (int) COUNT.getOpaque(stripe);
        }
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, sum));
    }

    /**
     * Visits every node, with writers held off for the duration (lookups go on). O(n + capacity): for diagnostics
     * and snapshots.
     *
     * @param action receives each node; it must not write to this table (its writers wait for this call to end)
     */
    @SuppressWarnings("unchecked")
    public final void forEach(Consumer<? super N> action) {
        withEveryBucketLocked(t -> {
            for (int i = 0; i <= t.mask; i++) {
                for (N n = (N) t.slot(i); n != null; n = chainOf(n)) {
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
        withEveryBucketLocked(old -> {
            Table fresh = new Table(INITIAL_CAPACITY);
            Marker forward = new Marker(fresh);
            for (int i = 0; i <= old.mask; i++) {
                old.setSlot(i, forward); // writers waiting on the old buckets go on to the new table
            }
            for (Stripe stripe : stripes) {
                COUNT.setOpaque(stripe, 0);
            }
            table = fresh;
        });
    }

    /**
     * Runs an action on the current table with no resize running and every bucket locked, so that no write is in
     * progress and none starts until it ends. Writers hold one bucket at a time, so taking them all in order cannot
     * deadlock.
     */
    private void withEveryBucketLocked(Consumer<Table> action) {
        resizeLock.lock();
        try {
            Table t = table; // no resize runs (we hold its lock), so no bucket of the current table is a marker
            for (int i = 0; i <= t.mask; i++) {
                t.lock(i);
            }
            try {
                action.accept(t);
            } finally {
                for (int i = 0; i <= t.mask; i++) {
                    t.unlock(i);
                }
            }
        } finally {
            resizeLock.unlock();
        }
    }

    /** @return the number of buckets; for tests */
    public final int capacity() {
        return table.mask + 1;
    }

    /** Doubles the table if it still has the length that overflowed, unless another thread is doing it. */
    private void grow(int overflowedLength) {
        if (!resizeLock.tryLock()) {
            return; // a resize is running; the next insertion into a full stripe checks again
        }
        try {
            Table old = table;
            int n = old.mask + 1;
            // One stripe overflows before the table is full by chance, or for ever when hash codes collide (doubling
            // cannot separate equal hashes): grow only when the table as a whole is at least half full.
            if (n != overflowedLength || n >= MAX_CAPACITY || size() <= n >> 1) {
                return;
            }
            Table next = new Table(n << 1);
            Marker forward = new Marker(next);
            for (int i = 0; i < n; i++) {
                old.lock(i);
                split(old, i, next, forward);
                old.unlock(i);
            }
            table = next;
        } finally {
            resizeLock.unlock();
        }
    }

    /** Moves bucket {@code i} of {@code old} into buckets {@code i} and {@code i + old.length} of {@code next}. */
    @SuppressWarnings("unchecked")
    private void split(Table old, int i, Table next, Marker forward) {
        int n = old.mask + 1;
        N first = (N) old.slot(i);
        old.setSlot(i, MOVING); // before any link is rewritten: see the class comment
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
        next.setSlot(i, loHead);
        next.setSlot(i + n, hiHead);
        old.setSlot(i, forward); // publishes the new buckets to readers and writers that follow it
    }

    @Override
    public String toString() {
        return "NodeTable[size=" + size() + ", capacity=" + capacity() + "]";
    }

    /**
     * One generation of the table: its buckets and a lock byte per bucket, both in segments of at most
     * {@code 2^SEGMENT_BITS}. Immutable apart from the array elements.
     */
    private static final class Table {
        final Object[][] slots;
        final byte[][] locks;
        final int mask;

        /** A table of {@code length} buckets, a power of two. */
        Table(int length) {
            int segment = Math.min(length, 1 << SEGMENT_BITS);
            slots = new Object[length / segment][];
            locks = new byte[length / segment][];
            for (int s = 0; s < slots.length; s++) {
                slots[s] = new Object[segment];
                locks[s] = new byte[segment];
            }
            mask = length - 1;
        }

        Object slot(int i) {
            return SLOT.getAcquire(slots[i >>> SEGMENT_BITS], i & SEGMENT_MASK);
        }

        void setSlot(int i, Object value) {
            SLOT.setRelease(slots[i >>> SEGMENT_BITS], i & SEGMENT_MASK, value);
        }

        /** Takes bucket {@code i}'s lock: spins a little, then yields its core between attempts. */
        void lock(int i) {
            byte[] segment = locks[i >>> SEGMENT_BITS];
            int j = i & SEGMENT_MASK;
            int attempts = 0;
            while (!LOCK.compareAndSet(segment, j, (byte) 0, (byte) 1)) {
                while ((byte) LOCK.getOpaque(segment, j) != 0) {
                    if (++attempts <= SPINS) {
                        Thread.onSpinWait();
                    } else {
                        Thread.yield(); // the holder may be waiting for this core
                    }
                }
            }
        }

        void unlock(int i) {
            LOCK.setRelease(locks[i >>> SEGMENT_BITS], i & SEGMENT_MASK, (byte) 0);
        }
    }

    /** A bucket head that is no node: {@link #MOVING}, or a forward to the table that replaced this one. */
    private static final class Marker {
        final Table next;

        Marker(Table next) {
            this.next = next;
        }
    }

    /** One entry-count stripe, padded ({@link LinePadded}) so that two stripes rarely share a line. */
    private static final class Stripe extends LinePadded {
        @SuppressWarnings("unused") // read and written through COUNT
        private int count;
    }
}

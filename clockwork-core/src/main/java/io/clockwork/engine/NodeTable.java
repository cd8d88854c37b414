package io.clockwork.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A concurrent hash table whose entries are the structure's own nodes (intrusive chaining: the node carries its
 * key, its hash and its bucket link). Thread-safe: lookups take no lock, write nothing and never wait for a writer;
 * an insertion is a compare-and-set of its bucket's head; a removal holds one lock byte, shared by few buckets, for
 * the walk of one chain and a store or two; the table doubles without stopping lookups. Subclasses say where a node
 * keeps its hash and link and how its key compares: {@code ExpiryNodeTable} for ZooKeeper's expiry nodes (keyed by
 * {@code long} session ids in {@code SessionTrackerImpl}, or by objects), {@code RotatingMap}'s table of its
 * entries, and the in-memory delayed queue's messages by id.
 *
 * <h2>Why</h2>
 * A {@code ConcurrentHashMap<K, Node>} costs a 32-byte {@code CHM.Node} per entry on top of our node, an extra
 * dependent load per lookup, and boxing for {@code long} keys (a 16-byte {@code Long} retained per session, 24 bytes
 * allocated per session touch). Here the node's {@code hash} and {@code chain} fields fill what was alignment
 * padding in most node layouts, so an entry costs 0 to 8 bytes more than the node alone, plus its share of the
 * table (4 bytes per slot with compressed references, one slot per entry at most, and a lock byte per slot up to
 * {@value #MAX_LOCKS} locks). The slots are split into segments of at most 65,536, so that no array is a G1
 * "humongous" object: a single array of 2^20 slots is 16 bytes over 4 MiB and would occupy two 4 MiB regions, adding
 * 4 bytes per entry at a million entries.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Lookups</b> read the table, the bucket head and the chain links with acquire loads, and compare hashes
 *       before keys. A node is published by a release store or compare-and-set of the bucket head (or a release
 *       store of its predecessor's link) after its fields are set, so a reader that sees it sees it whole. Removal
 *       unlinks a node but leaves its own {@code chain} intact, so a reader standing on it walks on; removed nodes
 *       are never re-inserted.</li>
 *   <li><b>Insertions</b> walk the bucket for the key, link the node to the head they walked from and
 *       compare-and-set the head from it to the node; a failure (another insertion, a removal of the head, a move)
 *       walks again. Nodes enter a bucket only at its head, so a head unchanged since the walk means the key is still
 *       absent. No lock: an insertion never waits for a writer, except for a bucket the resizer is splitting.</li>
 *   <li><b>Removals</b> lock their bucket's lock byte (bucket index modulo the number of locks: one lock per bucket
 *       up to {@value #MAX_LOCKS} buckets) by a compare-and-set, unlink the node, and let the lock go with a release
 *       store. The lock orders removals and moves of a bucket among themselves (two removals of neighbouring nodes
 *       would otherwise resurrect one); insertions only ever replace the head, so a removal of the head is a
 *       compare-and-set too, and on failure the node's new predecessor is among the heads pushed since. Many locks
 *       matter on a machine with fewer cores than threads: a writer preempted while it holds a lock holds it for
 *       the rest of a scheduler time slice (milliseconds); one lock for a stripe of 1/32 of the table stalled nearly
 *       every other writer within a few operations, while one of {@value #MAX_LOCKS} stalls another removal with a
 *       chance of a few in a hundred over such a slice. The locks are bytes in an array of their own: a store to
 *       them meets no garbage collector barrier (a lock kept in the slot itself, as a reference, made the collector
 *       refine the slot's card after every write), and {@value #MAX_LOCKS} of them (256 KiB) stay in the cache at
 *       ten million entries, where a byte per bucket would miss it on every removal. A remover that finds its lock
 *       taken spins briefly, then yields its core, so that a preempted holder can run. Removers hold one lock at a
 *       time, so no lock order is needed.</li>
 *   <li><b>Resize</b> (when a stripe of {@value #STRIPES} counts more entries than it has buckets, and the table is
 *       half full) doubles it, moving nodes rather than copying them, which breaks the old chains under concurrent
 *       readers; so, as in {@code ConcurrentHashMap}'s transfer (Lea, JSR 166) but without copying, each old bucket
 *       is locked, its head is replaced by {@link #MOVING} (a compare-and-set, against insertions), its nodes are
 *       split in order into the two new buckets, and the old bucket is set to a forwarding marker to the new table
 *       and unlocked. A reader that missed re-reads its bucket head: if it is unchanged, no link it followed had been
 *       rewritten (every rewrite is a release store after the {@code MOVING} store, so a reader that saw one sees
 *       {@code MOVING}), and the miss stands; otherwise it retries, following the forwarding marker. A reader or an
 *       insertion that meets {@code MOVING} waits for the one bucket being split, a few nodes. Rewritten links only
 *       ever point to nodes later in the old chain, so even a reader that mixes old and new links reaches the end of
 *       its walk. Removals never meet {@code MOVING} (the resizer holds the bucket's lock while it moves); they meet
 *       forwarding markers, let the old lock go and follow them. Each table has its own locks; nothing reaches a new
 *       bucket before the forwarding marker that leads to it.</li>
 * </ul>
 * The table never shrinks, as {@code ConcurrentHashMap}'s; {@link #clear()} replaces it with a small one.
 *
 * @param <N> the node type
 */
public abstract class NodeTable<N> {

    /** Entry-count stripes; a power of two, and the smallest table length. */
    public static final int STRIPES = 32;
    /** The most lock bytes a table has: one per bucket up to this many buckets. */
    public static final int MAX_LOCKS = 1 << 18;

    private static final int MAX_CAPACITY = 1 << 30;
    private static final int INITIAL_CAPACITY = STRIPES * 2;
    /** Slots per segment, at most: 256 KiB with compressed references, far below a G1 region (1 to 32 MiB). */
    private static final int SEGMENT_BITS = 16;
    private static final int SEGMENT_MASK = (1 << SEGMENT_BITS) - 1;
    /** Waits for a taken lock spent spinning before a remover starts yielding its core to the lock's holder. */
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

    /**
     * The table: its segments of slots, then one more element, a one-element array holding its lock bytes (kept in
     * the same array, so that a lookup loads no more than the segments and a writer finds the locks of the table it
     * read).
     */
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

    /** A table of {@code length} slots (a power of two) in segments of at most {@code 2^SEGMENT_BITS}, and locks. */
    private static Object[][] newTable(int length) {
        int segment = Math.min(length, 1 << SEGMENT_BITS);
        int segments = length / segment;
        Object[][] t = new Object[segments + 1][];
        for (int s = 0; s < segments; s++) {
            t[s] = new Object[segment];
        }
        t[segments] = new Object[] {new byte[Math.min(length, MAX_LOCKS)]};
        return t;
    }

    /** The number of slots of a table, minus one. */
    private static int mask(Object[][] t) {
        return t.length > 2 ? ((t.length - 1) << SEGMENT_BITS) - 1 : t[0].length - 1;
    }

    private static byte[] locks(Object[][] t) {
        return (byte[]) t[t.length - 1][0];
    }

    private static Object slot(Object[][] t, int i) {
        return SLOT.getAcquire(t[i >>> SEGMENT_BITS], i & SEGMENT_MASK);
    }

    private static void setSlot(Object[][] t, int i, Object value) {
        SLOT.setRelease(t[i >>> SEGMENT_BITS], i & SEGMENT_MASK, value);
    }

    private static boolean casSlot(Object[][] t, int i, Object expected, Object value) {
        return SLOT.compareAndSet(t[i >>> SEGMENT_BITS], i & SEGMENT_MASK, expected, value);
    }

    /** Takes the lock of bucket {@code i}: spins a little, then yields its core between attempts. */
    private static void lock(byte[] locks, int i) {
        int j = i & (locks.length - 1);
        int waits = 0;
        while (!LOCK.compareAndSet(locks, j, (byte) 0, (byte) 1)) {
            while ((byte) LOCK.getOpaque(locks, j) != 0) {
                if (++waits <= SPINS) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield(); // the holder may be waiting for this core
                }
            }
        }
    }

    private static void unlock(byte[] locks, int i) {
        LOCK.setRelease(locks, i & (locks.length - 1), (byte) 0);
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
     * Inserts a node unless a node with the same key is present. Lock-free: a compare-and-set of the bucket head.
     *
     * @param node a node never inserted before
     * @return the node already present for that key (the table is unchanged), or null if {@code node} was inserted
     */
    @SuppressWarnings("unchecked")
    public final N putIfAbsent(N node) {
        int hash = hashOf(node);
        Object[][] t = table;
        while (true) {
            int i = hash & mask(t);
            Object first = slot(t, i);
            if (first instanceof Marker) {
                t = follow(t, (Marker) first);
                continue;
            }
            for (N n = (N) first; n != null; n = chainOf(n)) {
                if (hashOf(n) == hash && sameKey(node, n)) {
                    return n;
                }
            }
            chain(node, (N) first);
            // Succeeds only if the head is still the one walked from: nodes are added only at the head, so no node
            // of this key came in meanwhile, and no resize began on this bucket (it replaces the head first).
            if (casSlot(t, i, first, node)) {
                int count = (int) COUNT.getAndAdd(stripes[hash & (STRIPES - 1)], 1) + 1;
                int length = mask(t) + 1;
                if (count > length / STRIPES && length < MAX_CAPACITY) {
                    grow(length);
                }
                return null;
            }
        }
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
        Object[][] t = table;
        while (true) {
            int i = hash & mask(t);
            byte[] locks = locks(t);
            lock(locks, i);
            Object first = slot(t, i);
            if (first instanceof Marker) { // a forward: the resizer holds the lock while a bucket is MOVING
                unlock(locks, i);
                t = ((Marker) first).next;
                continue;
            }
            N previous = null;
            for (N n = (N) first; n != null; previous = n, n = chainOf(n)) {
                if (n == node) {
                    unlink(t, i, previous, n);
                    COUNT.getAndAdd(stripes[hash & (STRIPES - 1)], -1);
                    unlock(locks, i);
                    return true;
                }
            }
            unlock(locks, i);
            return false;
        }
    }

    /**
     * Unlinks node {@code n}, found after {@code previous} (null: it was the head) in bucket {@code i}; the bucket's
     * lock is held, so no other removal or move rewrites its links, but insertions may still push new heads.
     */
    @SuppressWarnings("unchecked")
    private void unlink(Object[][] t, int i, N previous, N n) {
        N next = chainOf(n); // n keeps its link: a reader standing on it walks on
        if (previous == null) {
            if (casSlot(t, i, n, next)) {
                return;
            }
            // Insertions pushed new heads in front of n: find its predecessor among them (they link only to it).
            previous = (N) slot(t, i);
            while (chainOf(previous) != n) {
                previous = chainOf(previous);
            }
        }
        chain(previous, next);
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
     * Visits every node present throughout the call, once, with removals and resizes held off for its duration
     * (lookups go on, and so do insertions, which it may or may not see). O(n + capacity): for diagnostics and
     * snapshots.
     *
     * @param action receives each node; it must not remove from this table (removals wait for this call to end)
     */
    @SuppressWarnings("unchecked")
    public final void forEach(Consumer<? super N> action) {
        withEveryLockTaken(t -> {
            for (int i = 0, length = mask(t) + 1; i < length; i++) {
                for (N n = (N) slot(t, i); n != null; n = chainOf(n)) {
                    action.accept(n);
                }
            }
        });
    }

    /**
     * Removes every node, with removals held off meanwhile; lookups that started before see the old nodes, and an
     * insertion concurrent with it lands in the old table (and is cleared) or the new one. The table goes back to its
     * initial size.
     */
    @SuppressWarnings("unchecked")
    public final void clear() {
        withEveryLockTaken(old -> {
            Object[][] fresh = newTable(INITIAL_CAPACITY);
            table = fresh;
            Marker forward = new Marker(fresh);
            int[] cleared = new int[STRIPES];
            for (int i = 0, length = mask(old) + 1; i < length; i++) {
                Object first;
                do {
                    first = slot(old, i);
                } while (!casSlot(old, i, first, forward)); // insertions that come later go on to the new table
                for (N n = (N) first; n != null; n = chainOf(n)) {
                    cleared[hashOf(n) & (STRIPES - 1)]++;
                }
            }
            // Taken off rather than zeroed: an insertion into the old table may add its count after this.
            for (int s = 0; s < STRIPES; s++) {
                COUNT.getAndAdd(stripes[s], -cleared[s]);
            }
        });
    }

    /**
     * Runs an action on the current table with no resize running and every lock of it taken, so that no removal is
     * in progress and none starts until it ends. Removers hold one lock at a time, so taking them all in order cannot
     * deadlock.
     */
    private void withEveryLockTaken(Consumer<Object[][]> action) {
        resizeLock.lock();
        try {
            Object[][] t = table; // no resize runs (we hold its lock), so no bucket of the current table forwards
            byte[] locks = locks(t);
            for (int j = 0; j < locks.length; j++) {
                lock(locks, j);
            }
            try {
                action.accept(t);
            } finally {
                for (int j = 0; j < locks.length; j++) {
                    unlock(locks, j);
                }
            }
        } finally {
            resizeLock.unlock();
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
            byte[] locks = locks(old);
            for (int i = 0; i < n; i++) {
                lock(locks, i);
                split(old, i, next, forward);
                unlock(locks, i);
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
        Object head;
        do {
            head = slot(old, i);
        } while (!casSlot(old, i, head, MOVING)); // before any link is rewritten: see the class comment
        N first = (N) head;
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
        setSlot(old, i, forward); // publishes the new buckets to readers and writers that follow it
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

    /** One entry-count stripe, padded ({@link LinePadded}) so that two stripes rarely share a line. */
    private static final class Stripe extends LinePadded {
        @SuppressWarnings("unused") // read and written through COUNT
        private int count;
    }
}

package io.clockwork.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A concurrent hash table whose entries are the structure's own nodes (intrusive chaining: the node carries its
 * key, its hash and its bucket link). Thread-safe: lookups take no lock, write nothing and never wait for a writer;
 * an insertion or removal holds its one bucket for a few stores; the table doubles without stopping lookups.
 * Subclasses say where a node keeps its hash and link and how its key compares: {@code ExpiryNodeTable} for
 * ZooKeeper's expiry nodes (keyed by {@code long} session ids in {@code SessionTrackerImpl}, or by objects),
 * {@code RotatingMap}'s table of its entries, and the in-memory delayed queue's messages by id.
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
 *   <li><b>Writes</b> hold their bucket: a compare-and-set of the bucket's slot from its head to a fresh
 *       {@link Held} that carries the head, so lookups walk on from it as from the head, then the walk of that one
 *       chain, a link store or two, and a release store of the new head, which lets the bucket go. The lock is the
 *       slot itself: no lock word to miss in the cache beside the slot at ten million entries, and one bucket per
 *       lock. That matters on a machine with fewer cores than threads: a writer preempted while it holds a lock
 *       holds it for the rest of a scheduler time slice (milliseconds); a lock covering a stripe of 1/32 of the
 *       table stalled nearly every other writer within a few operations, a bucket stalls only writers of the same
 *       bucket, about one in the table's capacity. A writer that finds its bucket held spins briefly, then yields
 *       its core, so that a preempted holder can run. Writers hold one bucket at a time, so no lock order is
 *       needed. A write allocates its {@code Held} (16 bytes, dead when the write returns).</li>
 *   <li><b>Resize</b> (when a stripe of {@value #STRIPES} counts more entries than it has buckets, and the table is
 *       half full) doubles it, moving nodes rather than copying them, which breaks the old chains under concurrent
 *       readers; so, as in {@code ConcurrentHashMap}'s transfer (Lea, JSR 166) but without copying, each old bucket
 *       is taken as a writer takes it, but set to {@link #MOVING}, its nodes are split in order into the two new
 *       buckets, and the old bucket is set to a forwarding marker to the new table. A reader that missed re-reads
 *       its bucket slot: if it is unchanged, no link it followed had been rewritten (every rewrite is a release
 *       store after the {@code MOVING} store, so a reader that saw one sees {@code MOVING}), and the miss stands;
 *       otherwise it retries, following the forwarding marker. A reader or writer that meets {@code MOVING} waits
 *       for the one bucket being split, a few nodes. Rewritten links only ever point to nodes later in the old
 *       chain, so even a reader that mixes old and new links reaches the end of its walk. No writer reaches a new
 *       bucket before the forwarding marker that leads to it is stored.</li>
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
    /** Waits for a held bucket spent spinning before a writer starts yielding its core to the bucket's holder. */
    private static final int SPINS = 64;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final VarHandle COUNT;
    private static final Marker MOVING = new Marker(null);

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(Stripe.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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

    private static boolean casSlot(Object[][] t, int i, Object expected, Object value) {
        return SLOT.compareAndSet(t[i >>> SEGMENT_BITS], i & SEGMENT_MASK, expected, value);
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
            Object head = slot(t, i);
            Object first = head;
            if (head instanceof Held) {
                first = ((Held) head).first;
            } else if (head instanceof Marker) {
                t = follow(t, (Marker) head);
                continue;
            }
            for (N n = (N) first; n != null; n = chainOf(n)) {
                if (hashOf(n) == hash && hasKey(n, key)) {
                    return n;
                }
            }
            if (slot(t, i) == head) {
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
            Object head = slot(t, i);
            Object first = head;
            if (head instanceof Held) {
                first = ((Held) head).first;
            } else if (head instanceof Marker) {
                t = follow(t, (Marker) head);
                continue;
            }
            for (N n = (N) first; n != null; n = chainOf(n)) {
                if (hashOf(n) == hash && hasKey(n, key)) {
                    return n;
                }
            }
            if (slot(t, i) == head) {
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
     * Takes bucket {@code i} of {@code t}, as a writer (replacing its head by {@code held}, which then carries the
     * head) or as the resizer ({@code held} null: replacing it by {@link #MOVING}), waiting while another thread
     * holds it or moves it.
     *
     * @return {@code held}, or the head {@code MOVING} replaced (a node, or null); or the forwarding marker the bucket
     *         holds, in which case nothing was taken
     */
    private static Object take(Object[][] t, int i, Held held) {
        for (int waits = 0; ; ) {
            Object head = slot(t, i);
            if (head instanceof Held || head == MOVING) {
                if (++waits <= SPINS) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield(); // the holder may be waiting for this core
                }
            } else if (head instanceof Marker) {
                return head;
            } else if (held == null) {
                if (casSlot(t, i, head, MOVING)) {
                    return head;
                }
            } else {
                held.first = head; // not yet published: only the CAS below publishes it
                if (casSlot(t, i, head, held)) {
                    return held;
                }
            }
        }
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
        Held held = new Held();
        Object[][] t = table;
        int count;
        while (true) {
            int i = hash & mask(t);
            Object taken = take(t, i, held);
            if (taken != held) {
                t = ((Marker) taken).next;
                continue;
            }
            N first = (N) held.first;
            for (N n = first; n != null; n = chainOf(n)) {
                if (hashOf(n) == hash && sameKey(node, n)) {
                    setSlot(t, i, first);
                    return n;
                }
            }
            chain(node, first);
            // Counted before the bucket is let go, so that clear(), which holds every bucket, sees every count.
            count = (int) COUNT.getAndAdd(stripes[hash & (STRIPES - 1)], 1) + 1;
            setSlot(t, i, node);
            break;
        }
        int length = mask(t) + 1;
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
        Held held = new Held();
        Object[][] t = table;
        while (true) {
            int i = hash & mask(t);
            Object taken = take(t, i, held);
            if (taken != held) {
                t = ((Marker) taken).next;
                continue;
            }
            N first = (N) held.first;
            N previous = null;
            for (N n = first; n != null; previous = n, n = chainOf(n)) {
                if (n == node) {
                    N next = chainOf(n); // n keeps its link: a reader standing on it walks on
                    COUNT.getAndAdd(stripes[hash & (STRIPES - 1)], -1);
                    if (previous == null) {
                        setSlot(t, i, next);
                    } else {
                        chain(previous, next);
                        setSlot(t, i, first);
                    }
                    return true;
                }
            }
            setSlot(t, i, first);
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
        withEveryBucketHeld((t, heads) -> {
            try {
                for (Object first : heads) {
                    for (N n = (N) first; n != null; n = chainOf(n)) {
                        action.accept(n);
                    }
                }
            } finally {
                for (int i = 0; i < heads.length; i++) {
                    setSlot(t, i, heads[i]);
                }
            }
        });
    }

    /**
     * Removes every node, with writers held off meanwhile; lookups that started before see the old nodes. The table
     * goes back to its initial size.
     */
    public final void clear() {
        withEveryBucketHeld((old, heads) -> {
            Object[][] fresh = newTable(INITIAL_CAPACITY);
            for (Stripe stripe : stripes) {
                COUNT.setOpaque(stripe, 0);
            }
            table = fresh;
            Marker forward = new Marker(fresh);
            for (int i = 0; i < heads.length; i++) {
                setSlot(old, i, forward); // writers waiting on the old buckets go on to the new table
            }
        });
    }

    /** An action on a table whose every bucket this thread holds, given the heads they had. */
    private interface HeldTable {
        void run(Object[][] t, Object[] heads);
    }

    /**
     * Runs an action on the current table with no resize running and every bucket held, so that no write is in
     * progress and none starts until the action lets the buckets go, which it must. Writers hold one bucket at a
     * time, so taking them all in order cannot deadlock.
     */
    private void withEveryBucketHeld(HeldTable action) {
        resizeLock.lock();
        try {
            Object[][] t = table; // no resize runs (we hold its lock), so no bucket of the current table forwards
            Object[] heads = new Object[mask(t) + 1];
            for (int i = 0; i < heads.length; i++) {
                Held held = new Held();
                take(t, i, held);
                heads[i] = held.first;
            }
            action.run(t, heads);
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
            for (int i = 0; i < n; i++) {
                split(old, i, next, forward);
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
        N first = (N) take(old, i, null); // MOVING before any link is rewritten: see the class comment
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

    /**
     * A bucket slot's value while a writer holds the bucket: the head it had, which lookups walk from. Written before
     * the compare-and-set that publishes it, never after.
     */
    private static final class Held {
        Object first;
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

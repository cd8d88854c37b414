package io.clockwork.expiry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A concurrent hash table whose entries are the {@link ExpiryNode}s themselves (intrusive chaining: the node carries
 * its key, its hash and its bucket link). Thread-safe: lookups take no lock and write nothing; insertions and
 * removals lock one of {@value #STRIPES} stripes of buckets; the table doubles without stopping lookups.
 *
 * <h2>Why</h2>
 * A {@code ConcurrentHashMap<K, Node>} costs a 32-byte {@code CHM.Node} per entry on top of our node, and boxing
 * for {@code long} keys (a 16-byte {@code Long} retained per session, 24 bytes allocated per session touch). Here
 * the node's {@code hash} and {@code chain} fields fill what was alignment padding in most node layouts, so an entry
 * costs 0 to 8 bytes more than the node alone, plus its share of the table (4 bytes per slot with compressed
 * references, one slot per entry at most).
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
 * The table never shrinks, as {@code ConcurrentHashMap}'s.
 *
 * @param <N> the node type
 */
final class NodeTable<N extends ExpiryNode> {

    /** Lock stripes; a power of two, and the smallest table length. */
    static final int STRIPES = 32;

    private static final int MAX_CAPACITY = 1 << 30;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(ExpiryNode[].class);
    private static final Marker MOVING = new Marker(null);

    private volatile ExpiryNode[] table = new ExpiryNode[STRIPES * 2];
    private final Stripe[] stripes = new Stripe[STRIPES];
    private final ReentrantLock resizeLock = new ReentrantLock();

    NodeTable() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
    }

    /** The table hash of an object key's {@code hashCode()}: high bits folded in, as {@code HashMap} does. */
    static int hash(int hashCode) {
        return hashCode ^ (hashCode >>> 16);
    }

    /** The table hash of a {@code long} key. */
    static int hash(long key) {
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
    N get(Object key, int hash) {
        ExpiryNode[] t = table;
        while (true) {
            int i = hash & (t.length - 1);
            ExpiryNode first = (ExpiryNode) SLOT.getAcquire(t, i);
            if (first == null) {
                return null;
            }
            if (first instanceof Marker) {
                t = follow(t, (Marker) first);
                continue;
            }
            for (ExpiryNode n = first; n != null; n = n.chain()) {
                if (n.hash == hash && n.hasKey(key)) {
                    return (N) n;
                }
            }
            if (SLOT.getAcquire(t, i) == first) {
                return null;
            }
        }
    }

    /**
     * Finds the node of a {@code long} key, without boxing it. Lock-free.
     *
     * @param key  the key
     * @param hash {@link #hash(long) hash}{@code (key)}
     * @return the node, or null
     */
    @SuppressWarnings("unchecked")
    N get(long key, int hash) {
        ExpiryNode[] t = table;
        while (true) {
            int i = hash & (t.length - 1);
            ExpiryNode first = (ExpiryNode) SLOT.getAcquire(t, i);
            if (first == null) {
                return null;
            }
            if (first instanceof Marker) {
                t = follow(t, (Marker) first);
                continue;
            }
            for (ExpiryNode n = first; n != null; n = n.chain()) {
                if (n.hash == hash && n.hasKey(key)) {
                    return (N) n;
                }
            }
            if (SLOT.getAcquire(t, i) == first) {
                return null;
            }
        }
    }

    /** The table to look in next after meeting a marker in {@code t}: the same one while a bucket is moving. */
    private static ExpiryNode[] follow(ExpiryNode[] t, Marker marker) {
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
    N putIfAbsent(N node) {
        int hash = node.hash;
        Stripe stripe = stripes[hash & (STRIPES - 1)];
        int length;
        synchronized (stripe) {
            ExpiryNode[] t = table;
            int i;
            ExpiryNode first;
            while ((first = (ExpiryNode) SLOT.getAcquire(t, i = hash & (t.length - 1))) instanceof Marker) {
                t = ((Marker) first).next; // never MOVING: the resizer holds this stripe while a bucket moves
            }
            for (ExpiryNode n = first; n != null; n = n.chain()) {
                if (n.hash == hash && node.sameKey(n)) {
                    return (N) n;
                }
            }
            node.chain(first);
            SLOT.setRelease(t, i, node);
            length = t.length;
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
    boolean remove(N node) {
        int hash = node.hash;
        Stripe stripe = stripes[hash & (STRIPES - 1)];
        synchronized (stripe) {
            ExpiryNode[] t = table;
            int i;
            ExpiryNode first;
            while ((first = (ExpiryNode) SLOT.getAcquire(t, i = hash & (t.length - 1))) instanceof Marker) {
                t = ((Marker) first).next;
            }
            ExpiryNode previous = null;
            for (ExpiryNode n = first; n != null; previous = n, n = n.chain()) {
                if (n == node) {
                    ExpiryNode next = n.chain(); // n keeps its link: a reader standing on it walks on
                    if (previous == null) {
                        SLOT.setRelease(t, i, next);
                    } else {
                        previous.chain(next);
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
    int size() {
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
    void forEach(Consumer<? super N> action) {
        resizeLock.lock();
        try {
            lockStripesFrom(0, action);
        } finally {
            resizeLock.unlock();
        }
    }

    @SuppressWarnings("unchecked")
    private void lockStripesFrom(int s, Consumer<? super N> action) {
        if (s < STRIPES) {
            synchronized (stripes[s]) {
                lockStripesFrom(s + 1, action);
            }
            return;
        }
        ExpiryNode[] t = table; // no resize runs (we hold its lock), so no bucket of the current table is a marker
        for (int i = 0; i < t.length; i++) {
            for (ExpiryNode n = (ExpiryNode) SLOT.getAcquire(t, i); n != null; n = n.chain()) {
                action.accept((N) n);
            }
        }
    }

    /** @return the number of buckets; for tests */
    int capacity() {
        return table.length;
    }

    /** Doubles the table if it still has the length that overflowed, unless another thread is doing it. */
    private void grow(int overflowedLength) {
        if (!resizeLock.tryLock()) {
            return; // a resize is running; the next insertion into a full stripe checks again
        }
        try {
            ExpiryNode[] old = table;
            int n = old.length;
            // One stripe overflows before the table is full by chance, or for ever when hash codes collide (doubling
            // cannot separate equal hashes): grow only when the table as a whole is at least half full.
            if (n != overflowedLength || n >= MAX_CAPACITY || size() <= n >> 1) {
                return;
            }
            ExpiryNode[] next = new ExpiryNode[n << 1];
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
    private static void split(ExpiryNode[] old, int i, ExpiryNode[] next, Marker forward) {
        int n = old.length;
        ExpiryNode first = (ExpiryNode) SLOT.getAcquire(old, i);
        SLOT.setRelease(old, i, MOVING); // before any link is rewritten: see the class comment
        ExpiryNode loHead = null;
        ExpiryNode loTail = null;
        ExpiryNode hiHead = null;
        ExpiryNode hiTail = null;
        for (ExpiryNode e = first; e != null; ) {
            ExpiryNode following = e.chain();
            if ((e.hash & n) == 0) {
                if (loTail == null) {
                    loHead = e;
                } else {
                    loTail.chain(e);
                }
                loTail = e;
            } else {
                if (hiTail == null) {
                    hiHead = e;
                } else {
                    hiTail.chain(e);
                }
                hiTail = e;
            }
            e = following;
        }
        if (loTail != null) {
            loTail.chain(null);
        }
        if (hiTail != null) {
            hiTail.chain(null);
        }
        SLOT.setRelease(next, i, loHead);
        SLOT.setRelease(next, i + n, hiHead);
        SLOT.setRelease(old, i, forward); // publishes the new buckets to readers that follow it
    }

    @Override
    public String toString() {
        return "NodeTable[size=" + size() + ", capacity=" + capacity() + "]";
    }

    /**
     * A bucket head that is no entry: {@link #MOVING}, or a forward to the table that replaced this one.
     */
    private static final class Marker extends ExpiryNode {
        final ExpiryNode[] next;

        Marker(ExpiryNode[] next) {
            super(0L, 0);
            this.next = next;
        }

        @Override
        boolean sameKey(ExpiryNode other) {
            return false;
        }
    }

    /** One lock stripe and its entry count, padded so that two stripes' lock words rarely share a cache line. */
    @SuppressWarnings("unused")
    private static final class Stripe {
        long p1;
        long p2;
        long p3;
        long p4;
        long p5;
        long p6;
        long p7;
        int count; // guarded by this
    }
}

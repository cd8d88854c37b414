package io.clockwork.storm;

import io.clockwork.engine.NodeTable;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/**
 * A map whose entries expire after a number of {@link #rotate()} calls without a {@code put}, with the API and
 * semantics of Storm's {@code org.apache.storm.utils.RotatingMap}. Thread-safe.
 *
 * <p>The map has {@code numBuckets} generations. {@code put} moves a key to the newest; {@code rotate()} drops the
 * oldest, calls the callback for each entry in it and returns them. So an entry survives {@code numBuckets - 1}
 * rotations after its last {@code put} and is expired by the next one.
 *
 * <h2>Design</h2>
 * Storm keeps one {@code HashMap} per generation and searches them all, so its lookups are O(numBuckets) and it is
 * not thread-safe. Here each key has one entry, which records the generation of its last {@code put} and is itself
 * the entry of a lock-free-read concurrent hash table ({@code NodeTable}: no map node beside it), so {@code get},
 * {@code containsKey}, {@code put} and {@code remove} are O(1), and an entry costs about what Storm's
 * {@code HashMap} node does. Expiry is lazy:
 * each generation keeps a lock-free stack of the entries filed in it; a {@code put} on a present key only updates
 * its entry's generation and value, and when the generation an entry is filed in rotates out, the entry is either
 * expired (its last put is too old) or re-filed in the generation of its last put. Each entry's generation, value
 * and liveness change under that entry's own monitor, so a {@code put} racing a rotation either revives the entry
 * or finds it expired and inserts a new one, and each expired entry is reported exactly once. There is no global
 * lock: rotations serialise among themselves only, and callbacks run after every lock is released.
 *
 * <h2>Storm's behaviour, kept and left out</h2>
 * Kept: the constructors and methods of Storm 2.7's class (plus {@code getOrDefault}, {@code keyset} and
 * {@code peekOldestBucket} of later Storm versions); null keys and null values, as in Storm's {@code HashMap}s; a
 * null callback, which means none; any {@code numBuckets} of at least 2. Left out: Storm's lookups and puts, which
 * search every generation (O(numBuckets)), and its lack of thread-safety. Different: a callback that throws is
 * logged and the other expired entries are still reported (Storm's {@code rotate()} throws and skips them), and
 * {@code rotate()} returns a new map rather than the retired generation itself.
 *
 * <p>The class is not final, as Storm's is not: users mock it with any Mockito mock maker (the subclassing one
 * included) and subclass it as they subclass Storm's. No method calls another overridable one, so an override
 * changes only what it overrides.
 *
 * @param <K> the key type; null is a key, as in Storm
 * @param <V> the value type; null values are allowed, as in Storm
 */
public class RotatingMap<K, V> {

    /** The number of generations when none is given: entries live at most 50% past their expiration. */
    public static final int DEFAULT_NUM_BUCKETS = 3;

    private static final System.Logger LOG = System.getLogger(RotatingMap.class.getName());
    private static final long DEAD = Long.MIN_VALUE;
    private static final int STRIPES = 4;
    /** Slots between two stripes' heads: 64 bytes even with 4-byte compressed references. */
    private static final int SPACING = 16;
    private static final int MAX_STRIPED_BUCKETS = 64;

    private final Entries<K, V> entries = new Entries<>();
    /**
     * Stack heads: generation {@code g} files into stack {@code (g % numBuckets) * stride + stripe * spacing}, the
     * stripe chosen by the pushing thread, so that threads inserting new keys at once do not bounce one cache line
     * between their cores on every insertion (as {@code MpscInbox}'s stripes). Maps with many generations, which
     * rotate often and hold few entries per generation, get one stripe and no padding.
     */
    private final AtomicReferenceArray<Entry<K, V>> buckets;
    private final int stripeMask;
    private final int spacing;
    private final int numBuckets;
    private final ExpiredCallback<K, V> callback;            // null: none
    private final ReentrantLock rotateLock = new ReentrantLock();
    private volatile long generation;
    /** Entries expired by rotations; written under {@link #rotateLock} only, read by any thread. */
    private volatile long expiredCount;

    /**
     * Creates a map.
     *
     * @param numBuckets the number of generations, at least 2
     * @param callback   called once for each expired entry; null for none
     * @throws IllegalArgumentException if {@code numBuckets} is less than 2
     */
    public RotatingMap(int numBuckets, ExpiredCallback<K, V> callback) {
        this.numBuckets = checkNumBuckets(numBuckets);
        this.callback = callback;
        int stripes = numBuckets <= MAX_STRIPED_BUCKETS ? STRIPES : 1;
        this.stripeMask = stripes - 1;
        this.spacing = stripes == 1 ? 1 : SPACING;
        this.buckets = new AtomicReferenceArray<>(numBuckets * stripes * spacing);
    }

    /**
     * Creates a map with {@value #DEFAULT_NUM_BUCKETS} generations.
     *
     * @param callback called once for each expired entry; null for none
     */
    public RotatingMap(ExpiredCallback<K, V> callback) {
        this(DEFAULT_NUM_BUCKETS, callback);
    }

    /**
     * Creates a map without a callback.
     *
     * @param numBuckets the number of generations, at least 2
     * @throws IllegalArgumentException if {@code numBuckets} is less than 2
     */
    public RotatingMap(int numBuckets) {
        this(numBuckets, null);
    }

    static int checkNumBuckets(int numBuckets) {
        if (numBuckets < 2) {
            throw new IllegalArgumentException("numBuckets must be >= 2, was " + numBuckets);
        }
        return numBuckets;
    }

    /** The table hash of a key; null, which Storm's {@code HashMap}s accept, hashes to 0 as in {@code HashMap}. */
    private static int hashOf(Object key) {
        return key == null ? 0 : NodeTable.hash(key.hashCode());
    }

    /**
     * Drops the oldest generation and calls the callback for each entry in it, after releasing every lock.
     *
     * @return the expired entries, in a new map the caller owns
     */
    public Map<K, V> rotate() {
        List<Entry<K, V>> expired = rotateCollect(true);
        Map<K, V> dead = new HashMap<>(Math.max(16, (int) (expired.size() / .75f) + 1));
        for (Entry<K, V> e : expired) {
            dead.put(e.key, e.value);
        }
        if (callback != null) {
            notifyExpired(expired, callback::expire, LOG);
        }
        return dead;
    }

    /**
     * Rotates once, without calling the callback.
     *
     * @param collect whether to return the expired entries (a map without a callback has no use for them)
     * @return the expired entries, or an empty list if not collected
     */
    List<Entry<K, V>> rotateCollect(boolean collect) {
        List<Entry<K, V>> expired = collect ? new ArrayList<>() : List.of();
        long died = 0;
        rotateLock.lock();
        try {
            long newGeneration = generation + 1;
            int slot = slot(newGeneration);
            // The slot of the oldest generation becomes the newest. Publish the new generation first, then take the
            // slot's stacks: a put that already files into the new generation may land in a stack taken here, and is
            // simply re-filed below (its generation is recent); and a put that pushes after the take, yet read an old
            // generation, is bound to see the new one when it re-reads it after its push (see put).
            generation = newGeneration;
            @SuppressWarnings("unchecked")
            Entry<K, V>[] stacks = new Entry[stripeMask + 1];
            for (int stripe = 0; stripe <= stripeMask; stripe++) {
                stacks[stripe] = buckets.getAndSet(slot + stripe * spacing, null);
            }
            long oldestLive = newGeneration - numBuckets + 1;
            for (Entry<K, V> e : stacks) {
                while (e != null) {
                    Entry<K, V> next = e.next;
                    e.next = null;
                    long filedIn = expireOrKeep(e, oldestLive);
                    if (filedIn == DEAD) {
                        entries.remove(e);
                        died++;
                        if (collect) {
                            expired.add(e);
                        }
                    } else if (filedIn != Long.MAX_VALUE) {
                        push(e, filedIn);
                    }
                    e = next;
                }
            }
            expiredCount += died; // the lock serialises writers; volatile publishes the count to readers
        } finally {
            rotateLock.unlock();
        }
        return expired;
    }

    /** @return DEAD if this call expired it, MAX_VALUE if it was removed already, else the generation to refile in */
    private long expireOrKeep(Entry<K, V> e, long oldestLive) {
        // Most entries met here are kept. A generation only grows until the entry dies, so one that is recent enough
        // now stays so: re-file it without the lock (if a removal kills it meanwhile, the next rotation drops it).
        long recent = e.gen;
        if (recent == DEAD) {
            return Long.MAX_VALUE;
        }
        if (recent - oldestLive >= 0) {
            return recent;
        }
        synchronized (e) {
            long g = e.gen;
            if (g == DEAD) {
                return Long.MAX_VALUE;
            }
            if (g - oldestLive >= 0) {
                return g;
            }
            e.gen = DEAD; // its value stays, for the callback: nothing writes a dead entry
            return DEAD;
        }
    }

    static <K, V> void notifyExpired(List<Entry<K, V>> expired, BiConsumer<K, V> callback, System.Logger log) {
        for (Entry<K, V> e : expired) {
            try {
                callback.accept(e.key, e.value);
            } catch (RuntimeException ex) {
                log.log(Level.ERROR, "ExpiredCallback failed for key " + e.key + "; the map goes on", ex);
            }
        }
    }

    /**
     * Tells whether a key is present.
     *
     * @param key the key
     * @return true if present
     */
    public boolean containsKey(K key) {
        Entry<K, V> e = entries.get(key, hashOf(key));
        return e != null && e.gen != DEAD;
    }

    /**
     * Returns the value of a key.
     *
     * @param key the key
     * @return the value, or null if absent (or if null was put)
     */
    public V get(K key) {
        return lookup(key, null);
    }

    /**
     * Returns the value of a key, or a default.
     *
     * @param key          the key
     * @param defaultValue returned when the key is absent
     * @return the value, or {@code defaultValue} if absent
     */
    public V getOrDefault(K key, V defaultValue) {
        return lookup(key, defaultValue);
    }

    private V lookup(K key, V defaultValue) {
        Entry<K, V> e = entries.get(key, hashOf(key));
        if (e == null) {
            return defaultValue;
        }
        V value = e.value;
        return e.gen == DEAD ? defaultValue : value;
    }

    /**
     * Puts a value and moves the key to the newest generation.
     *
     * @param key   the key
     * @param value the value, may be null
     */
    public void put(K key, V value) {
        int hash = hashOf(key);
        while (true) {
            Entry<K, V> e = entries.get(key, hash);
            if (e == null) {
                long g = generation;
                Entry<K, V> created = new Entry<>(key, value, g, hash);
                e = entries.putIfAbsent(created);
                if (e == null) {
                    push(created, g);
                    long now = generation;
                    if (now != g) {
                        // Rotations ran while this put was in flight: its stack may already have been taken and its
                        // slot recycled, so it would be met a whole cycle late. Count the put as made now instead.
                        synchronized (created) {
                            if (created.gen != DEAD && created.gen - now < 0) {
                                created.gen = now;
                            }
                        }
                    }
                    return;
                }
            }
            // Already in the newest generation with this very value (a repeated put within one rotation period):
            // nothing to write, and skipping the lock and two volatile writes keeps the entry's cache line shared
            // between cores. The value is read before the entry's generation, which only grows until it is DEAD (set
            // before a removal clears the value): if it still is the newest one, the value read was current then,
            // and this put takes effect at that read, before any rotation or removal racing it.
            long g = generation;
            if (e.value == value && e.gen == g) {
                return;
            }
            synchronized (e) {
                if (e.gen != DEAD) {
                    e.gen = generation;
                    e.value = value;
                    return;
                }
            }
            entries.remove(e); // expired or removed concurrently: help unlink it, then insert afresh
        }
    }

    /**
     * Removes a key.
     *
     * @param key the key
     * @return its value, or null if absent
     */
    public V remove(K key) {
        int hash = hashOf(key);
        while (true) {
            Entry<K, V> e = entries.get(key, hash);
            if (e == null) {
                return null;
            }
            V value = null;
            boolean removed = false;
            synchronized (e) {
                if (e.gen != DEAD) {
                    e.gen = DEAD;
                    value = e.value;
                    e.value = null;
                    removed = true;
                }
            }
            entries.remove(e);
            if (removed) {
                return value;
            }
        }
    }

    /**
     * Returns the number of entries.
     *
     * @return the number of keys present (a moment's estimate while other threads write)
     */
    public int size() {
        return entries.size();
    }

    /**
     * Counts the entries that expired, for metrics. Any thread.
     *
     * @return entries removed by rotations since the map was created (removals by {@link #remove} not included)
     */
    public long expiredCount() {
        return expiredCount;
    }

    /**
     * Returns the keys present.
     *
     * @return a snapshot, in a new set the caller owns
     */
    public Set<K> keyset() {
        Set<K> keys = new HashSet<>();
        entries.forEach(e -> {
            if (e.gen != DEAD) {
                keys.add(e.key);
            }
        });
        return keys;
    }

    /**
     * Returns the entries that the next {@link #rotate()} expires unless they are put again: those whose last put
     * is in the oldest generation, as Storm's {@code peekOldestBucket()} (of Storm versions after 2.7). Visits only
     * the entries filed in that generation.
     *
     * @return an unmodifiable snapshot (Storm's is an unmodifiable view; this one does not follow later changes)
     */
    public Map<K, V> peekOldestBucket() {
        Map<K, V> oldest = new HashMap<>();
        rotateLock.lock();
        try {
            long oldestLive = generation - numBuckets + 1;
            int slot = slot(oldestLive);
            for (int stripe = 0; stripe <= stripeMask; stripe++) {
                for (Entry<K, V> e = buckets.get(slot + stripe * spacing); e != null; e = e.next) {
                    // Entries filed here whose last put is newer are re-filed when this generation rotates out.
                    V value = e.value;
                    if (e.gen == oldestLive) {
                        oldest.put(e.key, value);
                    }
                }
            }
        } finally {
            rotateLock.unlock();
        }
        return Collections.unmodifiableMap(oldest);
    }

    int numBuckets() {
        return numBuckets;
    }

    /** The first stack head of a generation. */
    private int slot(long gen) {
        return (int) Long.remainderUnsigned(gen, numBuckets) * (stripeMask + 1) * spacing;
    }

    private void push(Entry<K, V> e, long gen) {
        // Fibonacci hashing of the thread id spreads consecutive ids over the stripes.
        int stripe = (int) ((Thread.currentThread().getId() * 0x9E3779B97F4A7C15L) >>> 40) & stripeMask;
        int slot = slot(gen) + stripe * spacing;
        Entry<K, V> head;
        do {
            head = buckets.get(slot);
            e.next = head;
        } while (!buckets.compareAndSet(slot, head, e));
    }

    @Override
    public String toString() {
        return "RotatingMap[buckets=" + numBuckets + ", size=" + entries.size() + "]";
    }

    /**
     * Receives expired entries, as Storm's {@code RotatingMap.ExpiredCallback}. Need not be thread-safe unless
     * several threads call {@link #rotate()}: the rotating thread calls it.
     *
     * @param <K> the key type
     * @param <V> the value type
     */
    @FunctionalInterface
    public interface ExpiredCallback<K, V> {
        /**
         * Called once for each expired entry, outside any lock; a throw is logged and the map goes on.
         *
         * @param key the key
         * @param val its last value
         */
        void expire(K key, V val);
    }

    /**
     * One key's record: the generation of its last put and its value, changed under its monitor; also its entry in
     * the hash table. 40 bytes with compressed references.
     */
    static final class Entry<K, V> {
        private static final VarHandle CHAIN;

        static {
            try {
                CHAIN = MethodHandles.lookup().findVarHandle(Entry.class, "chain", Entry.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final K key;
        final int hash;
        volatile V value;
        volatile long gen;
        Entry<K, V> next;    // link in its generation's stack
        @SuppressWarnings("unused") // through CHAIN
        private Entry<K, V> chain; // link in its hash table bucket

        Entry(K key, V value, long gen, int hash) {
            this.key = key;
            this.hash = hash;
            this.value = value;
            this.gen = gen;
        }
    }

    /** The hash table of the entries, keyed by {@code equals}. Thread-safe. */
    private static final class Entries<K, V> extends NodeTable<Entry<K, V>> {

        @Override
        protected int hashOf(Entry<K, V> e) {
            return e.hash;
        }

        @Override
        @SuppressWarnings("unchecked")
        protected Entry<K, V> chainOf(Entry<K, V> e) {
            return (Entry<K, V>) Entry.CHAIN.getAcquire(e);
        }

        @Override
        protected void chain(Entry<K, V> e, Entry<K, V> next) {
            Entry.CHAIN.setRelease(e, next);
        }

        @Override
        protected boolean hasKey(Entry<K, V> e, Object key) {
            return key == e.key || key != null && key.equals(e.key);
        }

        @Override
        protected boolean sameKey(Entry<K, V> e, Entry<K, V> other) {
            return hasKey(other, e.key);
        }
    }
}

package io.clockwork.storm;

import io.clockwork.time.Nanos;
import io.clockwork.engine.SharedDriver;
import io.clockwork.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A map whose entries expire when not {@code put} for a while, with the API and semantics of Storm's
 * {@code org.apache.storm.utils.TimeCacheMap}. Thread-safe.
 *
 * <p>An entry expires between {@code expiration} and {@code expiration * (1 + 1 / (numBuckets - 1))} after its
 * last {@code put}: the map is a {@link RotatingMap} rotated every {@code expiration / (numBuckets - 1)} (rounded up
 * to the nanosecond), on a grid that starts when the map is created. The callback is called once for each expired
 * entry, outside any lock, on the engine's driver thread; a null callback means none, as in Storm.
 *
 * <h2>Design</h2>
 * Storm starts one cleaner thread per map and takes one lock for every operation, whose lookups search every
 * generation (O(numBuckets) under that lock). Here lookups and puts are those of the lock-free, O(1)
 * {@link RotatingMap}, and a map has no thread: each rotation is a task on the engine's shared driver for the map's
 * {@link Ticker}, which runs every face's timed work and stops when no face needs it.
 *
 * <p>The driver runs tasks on a one-millisecond tick, never before they are due, and a run performs every rotation
 * due by then (at most {@code numBuckets}: after that many, everything put before has expired). So a rotation period
 * under a millisecond, such as {@code new TimeCacheMap<>(1, 2000)}'s (1 s over 1999 periods), is kept on average:
 * each run performs the one or more rotations that fell due since the last, and an entry still expires within the
 * bounds above, late by at most the driver's tick, as with any period. A run that comes late by several periods
 * likewise rotates as many times as were due, so entries are never kept longer because of it.
 *
 * <h2>Life cycle</h2>
 * {@link #cleanup()}, as Storm's, stops expiry and leaves the map usable: the rotation task is cancelled and the
 * lease on the driver released, {@code put}, {@code get}, {@code containsKey}, {@code remove} and {@code size} keep
 * working, and nothing expires any more. A rotation already under way completes, and its callbacks may run after
 * {@code cleanup()} returns, as with Storm's cleaner thread. {@link #close()} is the same, for try-with-resources;
 * both are idempotent.
 *
 * <h2>Storm's behaviour, kept and left out</h2>
 * Kept: the constructors and methods, null keys, null values and a null callback. Left out: the O(numBuckets)
 * lookups under one lock and the thread per map (above); Storm's cleaner dies when a callback throws, silently
 * ending expiry, where here the failure is logged and the map goes on. Different: {@code remove} returns {@code V}
 * (Storm's returns {@code Object}); {@code expirationSecs} below 1 is rejected (Storm's cleaner would rotate without
 * pause); a late rotation catches up with every one that was due, where Storm's cleaner measures its next sleep from
 * its late wake-up, so its rotations drift later.
 *
 * <p>The class is not final, as Storm's is not: users mock it with any Mockito mock maker (the subclassing one
 * included) and subclass it as they subclass Storm's. No method calls another overridable one, so an override
 * changes only what it overrides.
 *
 * @param <K> the key type; null is a key, as in Storm
 * @param <V> the value type; null values are allowed, as in Storm
 */
public class TimeCacheMap<K, V> implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TimeCacheMap.class.getName());

    private final RotatingMap<K, V> map;
    private final ExpiredCallback<K, V> callback; // null: none
    private final Ticker ticker;
    private final long periodNanos;
    private final ReentrantLock expiryLock = new ReentrantLock();
    private long nextRotation;                    // guarded by expiryLock
    /** A reading before which no rotation is due and every callback of earlier rotations has returned. */
    private volatile long quietUntil;
    private volatile boolean stopped;
    /** The engine's driver of this map's ticker; null when tests drive the map by hand. */
    private final SharedDriver scheduler;
    private SharedDriver.Task nextRotationTask;       // guarded by expiryLock

    /**
     * Creates a map on the system ticker.
     *
     * @param expirationSecs how long an entry lives after its last put, in seconds, at least 1
     * @param numBuckets     the number of generations, at least 2; more means tighter expiry and more rotations
     * @param callback       called once for each expired entry; null for none
     */
    public TimeCacheMap(int expirationSecs, int numBuckets, ExpiredCallback<K, V> callback) {
        this(seconds(expirationSecs), numBuckets, callback, Ticker.system(), true);
    }

    /**
     * Creates a map on the system ticker with {@value RotatingMap#DEFAULT_NUM_BUCKETS} generations.
     *
     * @param expirationSecs how long an entry lives after its last put, in seconds, at least 1
     * @param callback       called once for each expired entry; null for none
     */
    public TimeCacheMap(int expirationSecs, ExpiredCallback<K, V> callback) {
        this(seconds(expirationSecs), RotatingMap.DEFAULT_NUM_BUCKETS, callback, Ticker.system(), true);
    }

    /**
     * Creates a map on the system ticker without a callback.
     *
     * @param expirationSecs how long an entry lives after its last put, in seconds, at least 1
     * @param numBuckets     the number of generations, at least 2
     */
    public TimeCacheMap(int expirationSecs, int numBuckets) {
        this(seconds(expirationSecs), numBuckets, null, Ticker.system(), true);
    }

    /**
     * Creates a map on the system ticker, without a callback, with {@value RotatingMap#DEFAULT_NUM_BUCKETS}
     * generations.
     *
     * @param expirationSecs how long an entry lives after its last put, in seconds, at least 1
     */
    public TimeCacheMap(int expirationSecs) {
        this(seconds(expirationSecs), RotatingMap.DEFAULT_NUM_BUCKETS, null, Ticker.system(), true);
    }

    /**
     * Creates a map with any expiration and time source.
     *
     * @param expiration how long an entry lives after its last put, positive
     * @param numBuckets the number of generations, at least 2
     * @param callback   called once for each expired entry; null for none
     * @param ticker     the time source
     */
    public TimeCacheMap(Duration expiration, int numBuckets, ExpiredCallback<K, V> callback, Ticker ticker) {
        this(expiration, numBuckets, callback, ticker, true);
    }

    /** With {@code shared == false} no scheduler drives the map: tests call {@link #expireDue()}. */
    TimeCacheMap(Duration expiration, int numBuckets, ExpiredCallback<K, V> callback, Ticker ticker,
            boolean shared) {
        Objects.requireNonNull(expiration, "expiration");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        RotatingMap.checkNumBuckets(numBuckets);
        if (expiration.isNegative() || expiration.isZero()) {
            throw new IllegalArgumentException("expiration must be positive, was " + expiration);
        }
        long expirationNanos = Nanos.saturated(expiration);
        long period = expirationNanos / (numBuckets - 1);
        // Rounded up, so that an entry never expires before its expiration.
        this.periodNanos = period * (numBuckets - 1) == expirationNanos ? period : period + 1;
        this.map = new RotatingMap<>(numBuckets);
        this.callback = callback;
        this.nextRotation = ticker.read() + periodNanos;
        this.quietUntil = nextRotation;
        this.scheduler = shared ? SharedDriver.acquire(ticker) : null;
        if (scheduler != null) {
            expiryLock.lock();
            try {
                nextRotationTask = scheduler.scheduleAt(this::rotateWhenDue, nextRotation);
            } finally {
                expiryLock.unlock();
            }
        }
    }

    private static Duration seconds(int expirationSecs) {
        if (expirationSecs < 1) {
            throw new IllegalArgumentException("expirationSecs must be at least 1, was " + expirationSecs);
        }
        return Duration.ofSeconds(expirationSecs);
    }

    /**
     * Tells whether a key is present.
     *
     * @param key the key
     * @return true if present
     */
    public boolean containsKey(K key) {
        return map.containsKey(key);
    }

    /**
     * Returns the value of a key.
     *
     * @param key the key
     * @return the value, or null if absent
     */
    public V get(K key) {
        return map.get(key);
    }

    /**
     * Puts a value; the entry expires {@code expiration} (up to {@code expiration / (numBuckets - 1)} more) from now.
     *
     * @param key   the key
     * @param value the value, may be null
     */
    public void put(K key, V value) {
        map.put(key, value);
    }

    /**
     * Removes a key; its callback is not called.
     *
     * @param key the key
     * @return its value, or null if absent
     */
    public V remove(K key) {
        return map.remove(key);
    }

    /**
     * Returns the number of entries.
     *
     * @return the number of keys present
     */
    public int size() {
        return map.size();
    }

    /**
     * Counts the entries that expired, for metrics. Any thread.
     *
     * @return entries expired since the map was created (removals by {@link #remove} not included)
     */
    public long expiredCount() {
        return map.expiredCount();
    }

    /**
     * Stops expiry, as Storm's {@code cleanup()}: nothing expires any more, and the map stays usable. Idempotent.
     */
    public void cleanup() {
        stopExpiry();
    }

    /**
     * Stops expiry, as {@link #cleanup()} does, for try-with-resources: the map stays usable. Idempotent.
     */
    @Override
    public void close() {
        stopExpiry();
    }

    /**
     * Tells whether expiry is stopped.
     *
     * @return true once {@link #cleanup()} or {@link #close()} has been called
     */
    public boolean isClosed() {
        return stopped;
    }

    private void stopExpiry() {
        expiryLock.lock();
        try {
            if (stopped) {
                return;
            }
            stopped = true;
            if (nextRotationTask != null) {
                nextRotationTask.cancel();
                nextRotationTask = null;
                scheduler.release();
            }
        } finally {
            expiryLock.unlock();
        }
    }

    /** The scheduled step: rotates what is due and schedules the next rotation, unless expiry stopped meanwhile. */
    private void rotateWhenDue() {
        long next;
        try {
            next = expireDue();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "rotating " + this + " failed; it is retried next period", e);
            next = ticker.read() + periodNanos;
        }
        expiryLock.lock();
        try {
            if (!stopped) {
                nextRotationTask = scheduler.scheduleAt(this::rotateWhenDue, next);
            }
        } finally {
            expiryLock.unlock();
        }
    }

    /**
     * Performs every rotation that is due, then calls the callback for the expired entries outside any lock.
     *
     * @return the ticker reading of the next rotation
     */
    long expireDue() {
        List<RotatingMap.Entry<K, V>> expired = null;
        long next;
        expiryLock.lock();
        try {
            long now = ticker.read();
            int rotations = 0;
            while (now - nextRotation >= 0 && !stopped) {
                // After numBuckets rotations everything is expired: skip the rest instead of looping over them.
                if (rotations < map.numBuckets()) {
                    List<RotatingMap.Entry<K, V>> batch = map.rotateCollect(callback != null);
                    if (expired == null) {
                        expired = batch;
                    } else if (!batch.isEmpty()) {
                        expired.addAll(batch); // the first batch is a mutable list whenever batches are collected
                    }
                    rotations++;
                    nextRotation += periodNanos;
                } else {
                    nextRotation += ((now - nextRotation) / periodNanos + 1) * periodNanos;
                }
            }
            next = nextRotation;
        } finally {
            expiryLock.unlock();
        }
        if (expired != null && callback != null) {
            RotatingMap.notifyExpired(expired, callback::expire, LOG);
        }
        quietUntil = next;
        return next;
    }

    /**
     * Tells whether every rotation due has been performed and its callbacks have returned, or expiry is stopped;
     * tests wait for it after moving a manual ticker.
     */
    boolean isQuiet() {
        return stopped || quietUntil - ticker.read() > 0;
    }

    @Override
    public String toString() {
        return "TimeCacheMap[period=" + Duration.ofNanos(periodNanos) + ", buckets=" + map.numBuckets()
                + ", size=" + map.size() + (stopped ? ", stopped]" : "]");
    }

    /**
     * Receives expired entries, as Storm's {@code TimeCacheMap.ExpiredCallback}. Need not be thread-safe: one
     * rotation at a time calls it, on the engine's driver thread (in tests that drive a map by hand, on theirs).
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
}

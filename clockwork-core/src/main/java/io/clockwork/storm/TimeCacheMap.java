package io.clockwork.storm;

import io.clockwork.engine.Scheduler;
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
 * last {@code put}: the map is a {@link RotatingMap} rotated every {@code expiration / (numBuckets - 1)}. The
 * callback is called once for each expired entry, outside any lock, on the engine's driver thread.
 *
 * <h2>Design</h2>
 * Storm starts one cleaner thread per map and takes one lock for every operation. Here lookups and puts are those
 * of the lock-free, O(1) {@link RotatingMap}, and a map has no thread: each rotation is a task on the engine's
 * shared driver for the map's {@link Ticker}, which runs every face's timed work and stops when none is open. A map
 * is {@link AutoCloseable}: {@link #close()} (or Storm's {@link #cleanup()}) cancels its rotation and drops its
 * entries, so a closed map costs nothing; using it afterwards fails. A rotation that runs late by several periods
 * rotates as many times as were due (at most {@code numBuckets}), so entries are never kept longer because of it.
 *
 * @param <K> the key type
 * @param <V> the value type; null values are allowed, as in Storm
 */
public final class TimeCacheMap<K, V> implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TimeCacheMap.class.getName());
    private static final long MIN_PERIOD_NANOS = 1_000_000L;

    private final RotatingMap<K, V> map;
    private final ExpiredCallback<K, V> callback; // null: none
    private final Ticker ticker;
    private final long periodNanos;
    private final ReentrantLock expiryLock = new ReentrantLock();
    private long nextRotation;                    // guarded by expiryLock
    private volatile boolean closed;
    /** The engine's driver of this map's ticker; null when tests drive the map by hand. */
    private final Scheduler scheduler;
    private Scheduler.Task nextRotationTask;       // guarded by expiryLock

    /**
     * Creates a map on the system ticker.
     *
     * @param expirationSecs how long an entry lives after its last put, in seconds, at least 1
     * @param numBuckets     the number of generations, at least 2; more means tighter expiry and more rotations
     * @param callback       called once for each expired entry
     */
    public TimeCacheMap(int expirationSecs, int numBuckets, ExpiredCallback<K, V> callback) {
        this(seconds(expirationSecs), numBuckets, Objects.requireNonNull(callback, "callback"), Ticker.system(),
                true);
    }

    /**
     * Creates a map on the system ticker with {@value RotatingMap#DEFAULT_NUM_BUCKETS} generations.
     *
     * @param expirationSecs how long an entry lives after its last put, in seconds, at least 1
     * @param callback       called once for each expired entry
     */
    public TimeCacheMap(int expirationSecs, ExpiredCallback<K, V> callback) {
        this(expirationSecs, RotatingMap.DEFAULT_NUM_BUCKETS, callback);
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
        this(expirationSecs, RotatingMap.DEFAULT_NUM_BUCKETS);
    }

    /**
     * Creates a map with any expiration and time source.
     *
     * @param expiration how long an entry lives after its last put; {@code expiration / (numBuckets - 1)} must be
     *                   at least 1 ms
     * @param numBuckets the number of generations, at least 2
     * @param callback   called once for each expired entry
     * @param ticker     the time source
     */
    public TimeCacheMap(Duration expiration, int numBuckets, ExpiredCallback<K, V> callback, Ticker ticker) {
        this(expiration, numBuckets, Objects.requireNonNull(callback, "callback"), ticker, true);
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
        long expirationNanos = saturatedNanos(expiration);
        this.periodNanos = expirationNanos / (numBuckets - 1);
        if (periodNanos < MIN_PERIOD_NANOS) {
            throw new IllegalArgumentException("expiration / (numBuckets - 1) must be at least 1ms, was "
                    + Duration.ofNanos(periodNanos) + " (expiration " + expiration + ", numBuckets " + numBuckets
                    + ")");
        }
        this.map = new RotatingMap<>(numBuckets);
        this.callback = callback;
        this.nextRotation = ticker.read() + periodNanos;
        this.scheduler = shared ? Scheduler.acquire(ticker) : null;
        if (scheduler != null) {
            expiryLock.lock();
            try {
                nextRotationTask = scheduler.schedule(this::rotateWhenDue, periodNanos);
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

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Tells whether a key is present.
     *
     * @param key the key
     * @return true if present
     * @throws IllegalStateException if the map is closed
     */
    public boolean containsKey(K key) {
        checkOpen();
        return map.containsKey(key);
    }

    /**
     * Returns the value of a key.
     *
     * @param key the key
     * @return the value, or null if absent
     * @throws IllegalStateException if the map is closed
     */
    public V get(K key) {
        checkOpen();
        return map.get(key);
    }

    /**
     * Puts a value; the entry expires {@code expiration} (up to {@code expiration / (numBuckets - 1)} more) from now.
     *
     * @param key   the key
     * @param value the value, may be null
     * @throws IllegalStateException if the map is closed
     */
    public void put(K key, V value) {
        checkOpen();
        map.put(key, value);
    }

    /**
     * Removes a key; its callback is not called.
     *
     * @param key the key
     * @return its value, or null if absent
     * @throws IllegalStateException if the map is closed
     */
    public V remove(K key) {
        checkOpen();
        return map.remove(key);
    }

    /**
     * Returns the number of entries.
     *
     * @return the number of keys present
     * @throws IllegalStateException if the map is closed
     */
    public int size() {
        checkOpen();
        return map.size();
    }

    /** Storm's name for {@link #close()}. */
    public void cleanup() {
        close();
    }

    /**
     * Stops expiring this map and drops its entries (without callbacks). Idempotent; later use fails.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        expiryLock.lock();
        try {
            map.clear();
            if (nextRotationTask != null) {
                nextRotationTask.cancel();
                nextRotationTask = null;
                scheduler.release();
            }
        } finally {
            expiryLock.unlock();
        }
    }

    /** @return true once closed */
    public boolean isClosed() {
        return closed;
    }

    /** The scheduled step: rotates what is due and schedules the next rotation, unless closed meanwhile. */
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
            if (!closed) {
                nextRotationTask = scheduler.schedule(this::rotateWhenDue, next - ticker.read());
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
            while (now - nextRotation >= 0 && !closed) {
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
        return next;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("TimeCacheMap is closed");
        }
    }

    @Override
    public String toString() {
        return "TimeCacheMap[period=" + Duration.ofNanos(periodNanos) + ", buckets=" + map.numBuckets()
                + (closed ? ", closed]" : ", size=" + map.size() + "]");
    }

    /**
     * Receives expired entries, as Storm's {@code TimeCacheMap.ExpiredCallback}. Need not be thread-safe: one
     * rotation at a time calls it, on the engine's driver thread.
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

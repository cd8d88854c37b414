package io.clockwork.benchmarks.expiry;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.clockwork.storm.RotatingMap;
import io.clockwork.storm.TimeCacheMap;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One expiring map under test, over a fixed array of keys. Thread-safe as far as the map is ({@link #rotating}
 * rivals are used from one thread, as Storm's {@code RotatingMap} must be).
 *
 * <p>Settings, identical for every rival that expires: entries live {@code expirationSecs} after their last put.
 * The two {@code TimeCacheMap}s use {@code numBuckets} generations, so an entry expires between {@code expiration}
 * and {@code expiration * (1 + 1 / (numBuckets - 1))} after its last put, rotated in the background (Storm: a
 * thread per map; ours: a task on the engine's shared driver); Caffeine uses {@code expireAfterWrite(expiration)}
 * plus {@code Scheduler.systemScheduler()}, so that expired entries are evicted when due even without further
 * activity, not only lazily when looked up or during maintenance.
 */
abstract class MapRival {

    /** The value every put stores: the benchmarks measure the maps, not value allocation. */
    static final Object VALUE = Boolean.TRUE;

    final Long[] keys;

    MapRival(Long[] keys) {
        this.keys = keys;
    }

    /**
     * Opens a concurrent expiring map (benchmark 3).
     *
     * @param name one of {@link ExpiryRivals#TIME_CACHE_MAPS}
     */
    static MapRival timeCacheMap(String name, Long[] keys, int expirationSecs, int numBuckets) {
        switch (name) {
            case ExpiryRivals.CLOCKWORK:
                return new ClockworkTimeCacheMap(keys, expirationSecs, numBuckets);
            case ExpiryRivals.STORM:
                return new StormTimeCacheMap(keys, expirationSecs, numBuckets);
            case ExpiryRivals.CAFFEINE:
                return new CaffeineCache(keys, expirationSecs);
            case ExpiryRivals.CHM:
                return new PlainMap(keys);
            default:
                throw ExpiryRivals.unknown("map", name, ExpiryRivals.TIME_CACHE_MAPS);
        }
    }

    /**
     * Opens a rotating map, rotated by hand through {@link #rotate()}.
     *
     * @param name one of {@link ExpiryRivals#ROTATING_MAPS}
     */
    static MapRival rotating(String name, Long[] keys, int numBuckets) {
        switch (name) {
            case ExpiryRivals.CLOCKWORK:
                return new ClockworkRotatingMap(keys, numBuckets);
            case ExpiryRivals.STORM:
                return new StormRotatingMap(keys, numBuckets);
            default:
                throw ExpiryRivals.unknown("map", name, ExpiryRivals.ROTATING_MAPS);
        }
    }

    /** Puts every key. */
    final void fill() {
        for (int i = 0; i < keys.length; i++) {
            put(i);
        }
    }

    abstract Object get(int i);

    abstract void put(int i);

    /** Entries present (Caffeine's estimate, including entries expired but not yet evicted). */
    abstract long size();

    /** Rotates a rotating map once; unsupported by self-expiring maps. */
    int rotate() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " rotates itself");
    }

    /** Stops the map's threads, if any. */
    void close() {
    }

    static final class ClockworkTimeCacheMap extends MapRival {
        final TimeCacheMap<Long, Object> map;

        ClockworkTimeCacheMap(Long[] keys, int expirationSecs, int numBuckets) {
            super(keys);
            map = new TimeCacheMap<>(expirationSecs, numBuckets);
        }

        @Override
        Object get(int i) {
            return map.get(keys[i]);
        }

        @Override
        void put(int i) {
            map.put(keys[i], VALUE);
        }

        @Override
        long size() {
            return map.size();
        }

        @Override
        void close() {
            map.cleanup(); // as Storm's: stops expiry and releases the engine thread
        }
    }

    static final class StormTimeCacheMap extends MapRival {
        final org.apache.storm.utils.TimeCacheMap<Long, Object> map;

        StormTimeCacheMap(Long[] keys, int expirationSecs, int numBuckets) {
            super(keys);
            map = new org.apache.storm.utils.TimeCacheMap<>(expirationSecs, numBuckets);
        }

        @Override
        Object get(int i) {
            return map.get(keys[i]);
        }

        @Override
        void put(int i) {
            map.put(keys[i], VALUE);
        }

        @Override
        long size() {
            return map.size();
        }

        @Override
        void close() {
            map.cleanup();
        }
    }

    static final class CaffeineCache extends MapRival {
        final Cache<Long, Object> cache;

        CaffeineCache(Long[] keys, int expirationSecs) {
            super(keys);
            cache = Caffeine.newBuilder()
                    .expireAfterWrite(Duration.ofSeconds(expirationSecs))
                    .scheduler(Scheduler.systemScheduler())
                    .build();
        }

        @Override
        Object get(int i) {
            return cache.getIfPresent(keys[i]);
        }

        @Override
        void put(int i) {
            cache.put(keys[i], VALUE);
        }

        @Override
        long size() {
            return cache.estimatedSize();
        }

        @Override
        void close() {
            cache.invalidateAll();
            cache.cleanUp();
        }
    }

    static final class PlainMap extends MapRival {
        final ConcurrentHashMap<Long, Object> map = new ConcurrentHashMap<>();

        PlainMap(Long[] keys) {
            super(keys);
        }

        @Override
        Object get(int i) {
            return map.get(keys[i]);
        }

        @Override
        void put(int i) {
            map.put(keys[i], VALUE);
        }

        @Override
        long size() {
            return map.size();
        }
    }

    static final class ClockworkRotatingMap extends MapRival {
        final RotatingMap<Long, Object> map;

        ClockworkRotatingMap(Long[] keys, int numBuckets) {
            super(keys);
            map = new RotatingMap<>(numBuckets);
        }

        @Override
        Object get(int i) {
            return map.get(keys[i]);
        }

        @Override
        void put(int i) {
            map.put(keys[i], VALUE);
        }

        @Override
        long size() {
            return map.size();
        }

        @Override
        int rotate() {
            return map.rotate().size();
        }
    }

    static final class StormRotatingMap extends MapRival {
        final org.apache.storm.utils.RotatingMap<Long, Object> map;

        StormRotatingMap(Long[] keys, int numBuckets) {
            super(keys);
            map = new org.apache.storm.utils.RotatingMap<>(numBuckets);
        }

        @Override
        Object get(int i) {
            return map.get(keys[i]);
        }

        @Override
        void put(int i) {
            map.put(keys[i], VALUE);
        }

        @Override
        long size() {
            return map.size();
        }

        @Override
        int rotate() {
            return map.rotate().size();
        }
    }
}

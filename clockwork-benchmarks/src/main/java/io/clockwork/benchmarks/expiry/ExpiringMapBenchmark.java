package io.clockwork.benchmarks.expiry;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import java.util.concurrent.TimeUnit;

/**
 * Expiry benchmark 3: expiring map, 2 threads, 80% {@code get} / 20% {@code put} of random keys among
 * 1,000,000: our {@code TimeCacheMap} against Storm's, Caffeine with {@code expireAfterWrite}, and a plain
 * {@code ConcurrentHashMap} with no expiry (the physical limit).
 *
 * <p>Why: Storm's spouts and bolts keep pending tuples in a {@code TimeCacheMap}, looked up far more often than
 * written; Storm's takes one lock for every operation and looks through every bucket.
 *
 * <p>Expiry is real: entries live {@code expirationSecs} = 1 s after their last put ({@code numBuckets} = 3, so
 * between 1 and 1.5 s for the {@code TimeCacheMap}s; exactly 1 s for Caffeine, whose scheduler evicts them when
 * due; see {@link MapRival}), while each key is put on average every {@code 1,000,000 / (0.2 * throughput)}
 * seconds, about 0.5 s at 10 ops/us. So a share of the keys expires between two puts and is re-inserted, and a share
 * of gets miss; the auxiliary counters {@code hits} and {@code misses} show it (the plain map never misses). The
 * threads that expire entries (ours: the engine's shared driver; Storm's: one per map; Caffeine's scheduler and the
 * common pool for its maintenance) run during the measurement, as they would in production; the map size at the end
 * is printed.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class ExpiringMapBenchmark {

    /** Share of operations that are puts, in 1/65536. */
    static final int PUT_SHARE = 13_107; // 20%

    /** The rival; see {@link ExpiryRivals}. */
    @Param({ExpiryRivals.CLOCKWORK, ExpiryRivals.STORM, ExpiryRivals.CAFFEINE, ExpiryRivals.CHM})
    public String map;

    /** Distinct keys. */
    @Param({"1000000"})
    public int keys;

    /** How long an entry lives after its last put. */
    @Param({"1"})
    public int expirationSecs;

    /** Generations of the TimeCacheMaps (Storm's default). */
    @Param({"3"})
    public int numBuckets;

    MapRival rival;

    /** Opens the map and puts every key. */
    @Setup(Level.Trial)
    public void open() {
        rival = MapRival.timeCacheMap(map, Keys.longs(keys), expirationSecs, numBuckets);
        rival.fill();
    }

    /** Prints the size at the end (so that expiry can be seen to happen) and closes the map. */
    @TearDown(Level.Trial)
    public void close() {
        System.out.println("# " + map + ": " + rival.size() + " of " + keys + " keys present at the end");
        rival.close();
    }

    /** One thread's random seed and its hit/miss counts. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Worker {
        long seed;
        /** Gets that found the key. */
        public long hits;
        /** Gets that did not (expired, not yet put again). */
        public long misses;

        /** Seeds this thread. */
        @Setup(Level.Trial)
        public void seed() {
            seed = System.nanoTime() | 1L;
        }

        /** Clears the counters for each iteration. */
        @Setup(Level.Iteration)
        public void clear() {
            hits = 0;
            misses = 0;
        }
    }

    /** @return the value found, or null after a put or a miss */
    @Benchmark
    @Threads(2)
    public Object getOrPut(Worker w) {
        return step(rival, w, keys);
    }

    static Object step(MapRival rival, Worker w, int keys) {
        long r = Keys.nextRandom(w.seed);
        w.seed = r;
        int i = Keys.index(r, keys);
        if ((r >>> 48) < PUT_SHARE) {
            rival.put(i);
            return null;
        }
        Object v = rival.get(i);
        if (v != null) {
            w.hits++;
        } else {
            w.misses++;
        }
        return v;
    }
}

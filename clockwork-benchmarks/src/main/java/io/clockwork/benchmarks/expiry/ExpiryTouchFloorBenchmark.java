package io.clockwork.benchmarks.expiry;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The floor under benchmark 1a ({@link ExpiryQueueTouchBenchmark}): what any {@code ExpiryQueue.update} must do
 * even when the element stays in its bucket, and nothing else. Same elements, threads, random choice and clock.
 *
 * <p>Each operation reads the clock, rounds {@code now + timeout} up to the interval (ZooKeeper's formula, with its
 * division) and finds the element in an {@link IdentityHashMap}: the element's header (its identity hash) and one
 * table slot, the fewest cache misses a hash lookup of a random element among 1,000,000 can take. It does not even
 * read a per-element expiry (any real queue must: one more dependent miss, on its node or its boxed value), so it is
 * not an expiry queue: it bounds from above what any queue's touch can reach on this machine, and the ratio between
 * two queues reads against the ratio between this floor and the slower one. The map is filled before the run and
 * only read during it (safe for concurrent readers).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class ExpiryTouchFloorBenchmark {

    /** Tracked elements, as in benchmark 1a. */
    @Param({"1000000"})
    public int elements;

    /** The bucket width, ms, as in benchmark 1a. */
    @Param({"2000"})
    public int intervalMs;

    /** The timeout of every touch, ms, as in benchmark 1a. */
    @Param({"10000"})
    public int timeoutMs;

    private Object[] keys;
    private static final Object PRESENT = new Object();

    private Map<Object, Object> records;
    private long origin;

    /** Builds the elements and puts each in the map. */
    @Setup(Level.Trial)
    public void open() {
        keys = Keys.elements(elements);
        records = new IdentityHashMap<>(elements);
        origin = System.nanoTime();
        for (Object k : keys) {
            records.put(k, PRESENT);
        }
    }

    /** One touching thread's random seed. */
    @State(Scope.Thread)
    public static class Toucher {
        long seed;

        /** Seeds this thread. */
        @Setup(Level.Trial)
        public void seed() {
            seed = System.nanoTime() | 1L;
        }
    }

    private long expiryAfter(int timeout) {
        long t = (System.nanoTime() - origin) / 1_000_000L + timeout;
        return (t / intervalMs + 1) * intervalMs;
    }

    /** @return the expiry, or -1 if the element was not found, so that neither is dead code */
    @Benchmark
    @Threads(2)
    public long touch(Toucher t) {
        long r = Keys.nextRandom(t.seed);
        t.seed = r;
        long expiry = expiryAfter(timeoutMs);
        return records.get(keys[Keys.index(r, elements)]) == PRESENT ? expiry : -1L;
    }
}

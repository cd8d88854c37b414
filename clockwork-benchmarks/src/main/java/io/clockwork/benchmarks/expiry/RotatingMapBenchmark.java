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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import java.util.concurrent.TimeUnit;

/**
 * Expiry benchmark 3b: rotating map, 80% {@code get} / 20% {@code put} of random keys among 1,000,000, rotated
 * every {@code rotationMs} by the same thread: our {@code RotatingMap} against Storm's.
 *
 * <p>One thread, because Storm's {@code RotatingMap} is not thread-safe: Storm uses it from the one executor thread
 * that owns it, rotating on a tick tuple, and so does this benchmark (two threads would corrupt Storm's
 * {@code HashMap}s, and Storm's thread-safe variant is its {@code TimeCacheMap}, measured in
 * {@link ExpiringMapBenchmark}). Every 1024 operations the thread reads the clock and rotates when
 * {@code rotationMs} has passed: with 3 buckets and 500 ms, an entry expires 1 to 1.5 s after its last put, the
 * settings of {@link ExpiringMapBenchmark}. Rotation is part of the measured work (ours re-files or expires the
 * entries of the oldest generation; Storm's drops its oldest {@code HashMap}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class RotatingMapBenchmark {

    /** The rival; see {@link ExpiryRivals}. */
    @Param({ExpiryRivals.CLOCKWORK, ExpiryRivals.STORM})
    public String map;

    /** Distinct keys. */
    @Param({"1000000"})
    public int keys;

    /** Generations. */
    @Param({"3"})
    public int numBuckets;

    /** The time between rotations, ms. */
    @Param({"500"})
    public int rotationMs;

    MapRival rival;
    long nextRotation;
    long rotations;
    long expired;

    /** Opens the map and puts every key. */
    @Setup(Level.Trial)
    public void open() {
        rival = MapRival.rotating(map, Keys.longs(keys), numBuckets);
        rival.fill();
        nextRotation = System.nanoTime() + rotationMs * 1_000_000L;
    }

    /** Prints the rotations done and entries expired, so that expiry can be seen to happen. */
    @TearDown(Level.Trial)
    public void close() {
        System.out.println("# " + map + ": " + rotations + " rotations, " + expired + " entries expired, "
                + rival.size() + " of " + keys + " keys present at the end");
    }

    /** @return the value found, or null after a put or a miss */
    @Benchmark
    @Threads(1)
    public Object getOrPut(ExpiringMapBenchmark.Worker w) {
        if ((w.seed & 1023) == 0) {
            long now = System.nanoTime();
            if (now - nextRotation >= 0) {
                nextRotation = now + rotationMs * 1_000_000L;
                rotations++;
                expired += rival.rotate();
            }
        }
        return ExpiringMapBenchmark.step(rival, w, keys);
    }
}

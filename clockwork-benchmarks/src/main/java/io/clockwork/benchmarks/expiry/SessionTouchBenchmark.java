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
 * Expiry benchmark 1b: session touches, 2 threads touching random sessions of 1,000,000, timeout 10 s: our
 * {@code SessionTrackerImpl.touchSession} against ZooKeeper's (both built standalone, expiry threads not started; see
 * {@link TrackerRival}).
 *
 * <p>Why: every request and ping of a ZooKeeper client touches its session; ZooKeeper's touch is
 * {@code synchronized} on the tracker, so touches from all request threads serialise there. The two tick times are
 * the two regimes of {@link ExpiryQueueTouchBenchmark}: with {@code 2000} most touches stay in their bucket, with
 * {@code 20} nearly all move.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class SessionTouchBenchmark {

    /** The rival; see {@link ExpiryRivals}. */
    @Param({ExpiryRivals.CLOCKWORK, ExpiryRivals.ZOOKEEPER})
    public String tracker;

    /** Tracked sessions. */
    @Param({"1000000"})
    public int sessions;

    /** The tick time (bucket width), ms. */
    @Param({"2000", "20"})
    public int tickTimeMs;

    /** The timeout of every touch, ms. */
    @Param({"10000"})
    public int timeoutMs;

    TrackerRival rival;

    /** Opens the rival and creates every session. */
    @Setup(Level.Trial)
    public void open() {
        rival = TrackerRival.open(tracker, tickTimeMs, sessions);
        rival.fill(timeoutMs);
    }

    /** Shuts the tracker down. */
    @TearDown(Level.Trial)
    public void close() {
        rival.shutdown();
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

    /** @return whether the session is alive (always, here) */
    @Benchmark
    @Threads(2)
    public boolean touchSession(Toucher t) {
        long r = Keys.nextRandom(t.seed);
        t.seed = r;
        return rival.touch(Keys.index(r, sessions), timeoutMs);
    }
}

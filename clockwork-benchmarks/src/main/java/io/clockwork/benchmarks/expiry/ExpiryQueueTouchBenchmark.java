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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * Expiry benchmark 1a: ExpiryQueue touches, 2 threads touching random elements of 1,000,000 tracked ones, timeout
 * 10 s: ours ({@code update}, and the primitive {@code updateExpiry}) against ZooKeeper's {@code update}.
 *
 * <p>Why: a ZooKeeper server touches a session's entry on every request and ping; what the queue costs is the cost
 * of that touch, with the queue far larger than the caches.
 *
 * <p>Two regimes, through {@code intervalMs}. Both rivals read the real monotonic clock (ZooKeeper's
 * {@code Time.currentElapsedTime()} cannot be injected, so ours is not given a fake one either) and get the same
 * interval and timeout, so they see the same buckets.
 * <ul>
 *   <li>{@code 2000} (the setting): at millions of touches per second over 1,000,000 elements each element
 *       is touched every 0.1 to 1 s, so most touches leave it in its 2 s bucket; only the first touch of an element
 *       after each boundary moves it.</li>
 *   <li>{@code 20}: the same touches, but now an element is touched far less often than once per interval, so
 *       nearly every touch moves it to a later bucket. That is the regime of a real ZooKeeper server, where a client
 *       pings every timeout / 3 (3.3 s for 10 s), more than a 2 s tick apart; the benchmark cannot touch 1,000,000
 *       elements only every 3 s and still measure millions of touches, so it shortens the interval instead.</li>
 * </ul>
 * The auxiliary counter {@code moved} counts touches that moved an element (per second, like the score), so the
 * share of moving touches is {@code moved / score}. Nothing polls during the run: with a 10 s timeout and every
 * element touched within a second, nothing would expire.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class ExpiryQueueTouchBenchmark {

    /** The rival; see {@link ExpiryRivals}. */
    @Param({ExpiryRivals.CLOCKWORK, ExpiryRivals.CLOCKWORK_PRIMITIVE, ExpiryRivals.ZOOKEEPER})
    public String queue;

    /** Tracked elements. */
    @Param({"1000000"})
    public int elements;

    /** The bucket width, ms. */
    @Param({"2000", "20"})
    public int intervalMs;

    /** The timeout of every touch, ms. */
    @Param({"10000"})
    public int timeoutMs;

    QueueRival rival;

    /** Opens the rival and tracks every element. */
    @Setup(Level.Trial)
    public void open() {
        rival = QueueRival.open(queue, intervalMs, Keys.elements(elements));
        rival.fill(timeoutMs);
    }

    /** One touching thread: its random seed and its count of moving touches. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Toucher {
        long seed;
        /** Touches that moved their element to another bucket. */
        public long moved;

        /** Seeds this thread. */
        @Setup(Level.Trial)
        public void seed() {
            seed = System.nanoTime() | 1L;
        }

        /** Clears the counter for each iteration. */
        @Setup(Level.Iteration)
        public void clear() {
            moved = 0;
        }
    }

    /** @return whether the element moved */
    @Benchmark
    @Threads(2)
    public boolean touch(Toucher t, Blackhole hole) {
        long r = Keys.nextRandom(t.seed);
        t.seed = r;
        boolean moved = rival.touch(Keys.index(r, elements), timeoutMs, hole);
        if (moved) {
            t.moved++;
        }
        return moved;
    }
}

package io.clockwork.benchmarks.expiry;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Expiry benchmark 2: expiry storm. 100,000 elements are due in the same bucket; the time to expire them all,
 * one shot per fresh queue: ours against ZooKeeper's {@code ExpiryQueue}.
 *
 * <p>Why: after a network partition heals, or when a large batch of clients was connected at once, a whole bucket
 * of sessions comes due together, and the expiry thread must hand every one of them to the server.
 *
 * <p>Setup, not measured: a fresh queue (200 ms interval) is created just after an interval boundary on the real
 * monotonic clock (the one both read), every element is updated with a 1 ms timeout within that interval (retried
 * until all land in one bucket), and the setup sleeps until that bucket is due. Measured:
 * <ul>
 *   <li>{@code poll}: {@code poll()} and a visit of every returned element, i.e. what the expiry thread must do
 *       before it can act on them. ZooKeeper's {@code poll()} hands over the bucket's set, prepared by the updates;
 *       ours advances its wheel, takes the elements in from its inbox and expires each with a CAS, and builds a new
 *       set.</li>
 *   <li>{@code pollAndRemove}: the same, then {@code remove} of every expired element, as a session tracker does
 *       once the session is closed: the full cycle.</li>
 * </ul>
 * Each measurement fails if it does not get exactly {@code elements} elements.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 20)
@Fork(1)
@State(Scope.Benchmark)
public class ExpiryStormBenchmark {

    /** The rival; see {@link ExpiryRivals}. */
    @Param({ExpiryRivals.CLOCKWORK_PRIMITIVE, ExpiryRivals.ZOOKEEPER})
    public String queue;

    /** Elements due in the one bucket. */
    @Param({"100000"})
    public int elements;

    /** The bucket width, ms; the setup must update every element within one interval. */
    @Param({"200"})
    public int intervalMs;

    QueueRival rival;

    /**
     * Builds a fresh queue whose {@code elements} elements are all in the bucket due first, and waits until it is
     * due.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    @Setup(Level.Invocation)
    public void prepare() throws InterruptedException {
        Object[] all = Keys.elements(elements);
        for (int attempt = 1; ; attempt++) {
            long start = alignToIntervalStart();
            rival = QueueRival.open(queue, intervalMs, all);
            rival.fill(1);
            long tookMs = System.nanoTime() / 1_000_000L - start;
            if (tookMs < intervalMs - 2 && rival.buckets() == 1) {
                break;
            }
            if (attempt == 20) {
                throw new IllegalStateException("could not update " + elements + " elements within one "
                        + intervalMs + " ms interval; last try took " + tookMs + " ms");
            }
        }
        long wait;
        while ((wait = rival.waitTime()) > 0) {
            Thread.sleep(wait);
        }
        Thread.sleep(1); // both round to whole milliseconds: let the boundary pass for certain
    }

    /** Sleeps until just after an interval boundary on ZooKeeper's clock; returns the time then, ms. */
    private long alignToIntervalStart() throws InterruptedException {
        long now = System.nanoTime() / 1_000_000L;
        long into = now % intervalMs;
        if (into > 2) {
            Thread.sleep(intervalMs - into);
        }
        return System.nanoTime() / 1_000_000L;
    }

    /** @return the number of elements expired */
    @Benchmark
    public int poll(Blackhole hole) {
        Set<Object> expired = rival.poll();
        for (Object e : expired) {
            hole.consume(e);
        }
        return check(expired.size());
    }

    /** @return the number of elements expired and removed */
    @Benchmark
    public int pollAndRemove() {
        Set<Object> expired = rival.poll();
        int removed = 0;
        for (Object e : expired) {
            if (rival.remove(((Keys.Element) e).id)) {
                removed++;
            }
        }
        return check(removed);
    }

    private int check(int expired) {
        if (expired != elements) {
            throw new IllegalStateException(queue + " expired " + expired + " of " + elements);
        }
        return expired;
    }
}

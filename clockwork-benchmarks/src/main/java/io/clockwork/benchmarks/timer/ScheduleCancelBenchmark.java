package io.clockwork.benchmarks.timer;

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
 * Benchmark 1: throughput of schedule+cancel pairs while 1,000,000 timers are pending in the background.
 *
 * <p>Why: a request timeout is scheduled and, almost always, cancelled soon after; what a timer costs a server is
 * mostly the cost of that pair, measured while the timer is already large (its buckets, heap or lists do not fit in
 * cache). Each operation schedules a 1 h timer with a shared no-op task and cancels it at once. The background
 * timers are due between 1 h and 2 h, so nothing fires during the run; the rivals' own threads still run (Netty's
 * worker walks a bucket every tick, Kafka's reaper and our driver wake as they see fit), as they would in a server.
 *
 * <p>{@code oneProducer} and {@code twoProducers} run the pair from one and two threads on one shared timer.
 * Agrona's wheel is not thread-safe, so with two threads each thread owns a wheel with its own 1,000,000
 * background timers: the ideal of a sharded, hand-off-free timer. Run with {@code -prof gc} for
 * {@code gc.alloc.rate.norm}, the bytes allocated per pair (every thread's allocations, the timers' own included).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class ScheduleCancelBenchmark {

    /** The rival; see {@link Rivals}. */
    @Param({Rivals.CLOCKWORK, Rivals.CLOCKWORK_KAFKA, Rivals.KAFKA, Rivals.NETTY, Rivals.JDK, Rivals.AGRONA})
    public String timer;

    /** Timers pending in the background (per thread for Agrona). */
    @Param({"1000000"})
    public int pending;

    TimerRival rival;

    /** Opens the rival and fills its background. */
    @Setup(Level.Trial)
    public void open() {
        rival = Rivals.open(timer);
        if (rival.shared()) {
            Workloads.fillBackground(rival.lane(0), pending);
        }
    }

    /** Closes the rival. */
    @TearDown(Level.Trial)
    public void close() {
        rival.close();
    }

    /** One producer thread's lane. */
    @State(Scope.Thread)
    public static class Producer {
        Lane lane;

        /** Opens this thread's lane (and, for a rival that is not shared, its background). */
        @Setup(Level.Trial)
        public void open(ScheduleCancelBenchmark benchmark) {
            lane = benchmark.rival.lane(1);
            if (!benchmark.rival.shared()) {
                Workloads.fillBackground(lane, benchmark.pending);
            }
        }
    }

    /** @return the cancel result, so the pair is not dead code */
    @Benchmark
    @Threads(1)
    public boolean oneProducer(Producer producer) {
        return pair(producer.lane);
    }

    /** @return the cancel result, so the pair is not dead code */
    @Benchmark
    @Threads(2)
    public boolean twoProducers(Producer producer) {
        return pair(producer.lane);
    }

    static boolean pair(Lane lane) {
        lane.schedule(0, Workloads.HOUR_NANOS);
        return lane.cancel(0);
    }
}

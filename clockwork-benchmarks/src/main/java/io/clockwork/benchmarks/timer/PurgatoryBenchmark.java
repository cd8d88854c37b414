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
 * Benchmark 2: the purgatory workload, Kafka's reason for its timer. Each operation schedules a timer with a random
 * delay from 1 ms to 60 s and, for 90% of timers, cancels it {@value #IN_FLIGHT} operations later (the response
 * arrived); the other 10% stay and expire. Throughput is schedules per microsecond.
 *
 * <p>Why: unlike benchmark 1, deadlines spread over the whole range, timers live for a while before their cancel,
 * and some do expire, so the timer does the work of a real request-timeout load: placing timers at every level,
 * cascading, dropping cancelled ones and running the expired. Delays and cancel decisions are pre-generated with a
 * fixed seed; no random numbers are drawn in the measured loop.
 *
 * <p>Each iteration gets a fresh timer, so the 10% that never get cancelled (mostly due tens of seconds later) do
 * not pile up across iterations and the faster rivals are not charged for a larger timer.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Threads(1)
public class PurgatoryBenchmark {

    /** Timers between a schedule and its cancel. */
    static final int IN_FLIGHT = 4096;
    private static final int INPUTS = 1 << 20;
    private static final long[] DELAYS =
            Workloads.uniformDelays(INPUTS, TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(60),
                    Workloads.SEED);
    private static final boolean[] CANCELS = Workloads.flags(INPUTS, 0.9, Workloads.SEED + 1);

    /** The rival; see {@link Rivals}. */
    @Param({Rivals.CLOCKWORK, Rivals.CLOCKWORK_KAFKA, Rivals.KAFKA, Rivals.NETTY, Rivals.JDK, Rivals.AGRONA})
    public String timer;

    private TimerRival rival;
    private Lane lane;
    private final boolean[] toCancel = new boolean[IN_FLIGHT];
    private int op;

    /** Opens a fresh rival. */
    @Setup(Level.Iteration)
    public void open() {
        rival = Rivals.open(timer);
        lane = rival.lane(IN_FLIGHT);
        java.util.Arrays.fill(toCancel, false);
    }

    /** Closes the rival with whatever is pending. */
    @TearDown(Level.Iteration)
    public void close() {
        rival.close();
    }

    /** @return the slot used, so the loop is not dead code */
    @Benchmark
    public int scheduleThenMostlyCancel() {
        int i = op++;
        int slot = i & (IN_FLIGHT - 1);
        int input = i & (INPUTS - 1);
        Lane lane = this.lane;
        if (toCancel[slot]) {
            lane.cancel(slot);
        }
        lane.schedule(slot, DELAYS[input]);
        toCancel[slot] = CANCELS[input];
        return slot;
    }
}

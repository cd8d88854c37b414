package io.clockwork.benchmarks.timer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
 * arrived); the other 10% stay and expire. The score is the time per operation: each iteration (a single shot) runs
 * {@value #OPS} operations on a fresh timer.
 *
 * <p>Why: unlike benchmark 1, deadlines spread over the whole range, timers live for a while before their cancel,
 * and some do expire, so the timer does the work of a real request-timeout load: placing timers at every level,
 * cascading, dropping cancelled ones and running the expired. Delays and cancel decisions are pre-generated with a
 * fixed seed; no random numbers are drawn in the measured loop.
 *
 * <p>Why the same number of operations for every rival, not the same time: the timers that are not cancelled (one
 * in ten, due up to a minute later) pile up, and what a collection costs depends on them. In a fixed time a faster
 * rival builds a larger timer, and a slower one may finish its iteration before a collection ever copies its
 * survivors twice, as it would in a broker that runs for hours: with 2 s iterations Kafka's timer spent 4 to 9 ns
 * per operation in collection pauses (0 to 14 from one iteration to the next) and ours 10 to 12; with equal work,
 * 11 to 14 and 8 to 11 ({@link PurgatoryCostHarness} measures both designs). With
 * equal work every rival holds the same timers when it is collected, and {@value #OPS} operations are enough for
 * several young collections in every rival, so each survivor is copied as often as in a long run. Each iteration
 * gets a fresh timer, so survivors do not pile up across iterations either.
 *
 * <p>JVM flags: the defaults, plus a larger initial G1 marking stack for every rival. Netty's stopped timer is
 * finalizable and holds the set of timeouts its {@code stop()} returned (millions here); when G1 marks through it
 * while processing references, a marking stack of the default initial size overflows, which JDK 17 treats as fatal
 * ("Overflow during reference processing"), and Netty's fork died in most runs. The stack is only used by G1's
 * concurrent marking, so the flag changes no rival's throughput.
 */
@Fork(jvmArgsAppend = "-XX:MarkStackSize=32M")
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(PurgatoryBenchmark.OPS)
@State(Scope.Thread)
@Threads(1)
public class PurgatoryBenchmark {

    /** Operations per iteration, the same for every rival. */
    static final int OPS = 1 << 25;
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

    /** @return the sum of the slots used, so the loop is not dead code */
    @Benchmark
    public int scheduleThenMostlyCancel() {
        int sum = 0;
        for (int i = 0; i < OPS; i++) {
            sum += operation();
        }
        return sum;
    }

    /**
     * One operation: cancels the timer scheduled {@value #IN_FLIGHT} operations ago if it is one of the 90%, then
     * schedules the next.
     *
     * @return the slot used
     */
    int operation() {
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

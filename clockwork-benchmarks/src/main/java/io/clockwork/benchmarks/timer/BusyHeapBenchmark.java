package io.clockwork.benchmarks.timer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark 1 in a busy heap: schedule+cancel pairs while 1,000,000 timers are pending, in a JVM that also holds
 * {@code residents} long-lived objects, as a broker holds its caches beside its timers.
 *
 * <p>Why: alone in its JVM a timer's garbage is all the collector sees. Beside a large live old generation the
 * collector runs concurrent marking cycles (G1 starts one whenever the old generation passes its initiating
 * occupancy), which take a core away from the producers on a small machine and turn on the marking write barrier for
 * every reference store; young collections scan the remembered sets of a larger old generation. How much a timer
 * loses there depends on how many objects and reference stores it makes per operation, which is the point of this
 * variant. The residents ({@link Residents}) are built before the rival, survive the whole trial, and are touched
 * by no benchmark thread, so every rival pays the same for them. A full collection after the setup settles the
 * residents and the background timers in the old generation: promoting 30,000,000 new objects takes young pauses of
 * half a second for several seconds, which would otherwise fall in the warm-up of one fork and the measurement of
 * the next, depending on the machine's load.
 *
 * <p>With {@code -p neighbours=all} the JVM is busier still: every rival of {@link #NEIGHBOURS} is open, each with
 * {@code pending} timers of its own and its threads running (Netty's worker ticking, Kafka's and our face's reapers,
 * our driver), as one broker holds several timers; the measured rival is the one named by {@code timer}. Every
 * rival then lives beside the same others' timers, built in the same order after the residents.
 *
 * <p>Each fork gets a fixed heap large enough for the residents and the rivals ({@code -Xms2g -Xmx2g}: the
 * 30,000,000 residents fill about half of it, above G1's default initiating occupancy of 45%), as servers run: with a
 * growing heap, how often marking runs would depend on the heap's resizing more than on the timer.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Fork(jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class BusyHeapBenchmark {

    /** The rivals {@code -p neighbours=all} opens together. */
    static final List<String> NEIGHBOURS = List.of(Rivals.CLOCKWORK, Rivals.CLOCKWORK_KAFKA, Rivals.KAFKA,
            Rivals.NETTY);

    /** The rival; see {@link Rivals}. */
    @Param({Rivals.CLOCKWORK, Rivals.CLOCKWORK_KAFKA, Rivals.KAFKA, Rivals.NETTY})
    public String timer;

    /** Timers pending in the background. */
    @Param({"1000000"})
    public int pending;

    /** Long-lived objects beside the timer, in {@link Residents}' cache-like graph. */
    @Param({"0", "30000000"})
    public int residents;

    /**
     * Which rivals live in the JVM: {@code none} (the measured one alone) or {@code all} (every one of
     * {@link #NEIGHBOURS}, each with its own pending timers).
     */
    @Param({"none"})
    public String neighbours;

    Residents heap;
    TimerRival rival;
    final List<TimerRival> opened = new ArrayList<>();

    /** Builds the residents, then opens the rival (and its neighbours) and fills their backgrounds. */
    @Setup(Level.Trial)
    public void open() {
        heap = Residents.build(residents);
        List<String> names = switch (neighbours) {
            case "none" -> List.of(timer);
            case "all" -> NEIGHBOURS;
            default -> throw new IllegalArgumentException("neighbours must be none or all, was '" + neighbours + "'");
        };
        if (!names.contains(timer)) {
            throw new IllegalArgumentException("timer '" + timer + "' is not among " + names);
        }
        for (String name : names) {
            TimerRival r = Rivals.open(name);
            opened.add(r);
            Workloads.fillBackground(r.lane(0), pending);
            if (name.equals(timer)) {
                rival = r;
            }
        }
        System.gc();
    }

    /** Closes the rivals and checks that the residents are still all there. */
    @TearDown(Level.Trial)
    public void close() {
        for (TimerRival r : opened) {
            r.close();
        }
        opened.clear();
        heap.verify();
    }

    /** One producer thread's lane. */
    @State(Scope.Thread)
    public static class Producer {
        Lane lane;

        /** Opens this thread's lane. */
        @Setup(Level.Trial)
        public void open(BusyHeapBenchmark benchmark) {
            lane = benchmark.rival.lane(1);
        }
    }

    /** @return the cancel result, so the pair is not dead code */
    @Benchmark
    @Threads(1)
    public boolean oneProducer(Producer producer) {
        return ScheduleCancelBenchmark.pair(producer.lane);
    }

    /** @return the cancel result, so the pair is not dead code */
    @Benchmark
    @Threads(2)
    public boolean twoProducers(Producer producer) {
        return ScheduleCancelBenchmark.pair(producer.lane);
    }
}

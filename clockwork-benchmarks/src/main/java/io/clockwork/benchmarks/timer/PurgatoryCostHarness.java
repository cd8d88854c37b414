package io.clockwork.benchmarks.timer;

import io.clockwork.benchmarks.Harness;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where a purgatory operation's time goes: runs {@link PurgatoryBenchmark}'s own operation (the same class, inputs
 * and fresh timer per round) and splits each operation's wall time into the producer thread's CPU time, the time the
 * JVM spent in collection pauses, and the rest (the producer waiting: descheduled, or blocked on a lock). It also
 * reports the CPU time of the whole process per operation (the rival's own threads and the collector included)
 * and, once per JVM, what one {@code System.nanoTime()} costs, since every rival reads the clock per schedule.
 *
 * <p>Why: the throughput benchmark says how fast each rival is; this says why, in terms a reader can check. It is a
 * diagnostic, not the figure to quote: the ratios to quote come from the JMH run. One fresh JVM per rival (as JMH
 * forks one per parameter) with this JVM's flags: run it with {@code -XX:MarkStackSize=32M}, as the benchmark's
 * forks are (see {@link PurgatoryBenchmark}), or Netty's child may die. The first rounds are warm-up and not
 * reported.
 *
 * <p>A round is {@code --ops} operations, as an iteration of the benchmark is; with {@code --seconds} it is that many
 * seconds instead, the design the benchmark had before, kept here to show what it did to the comparison (see
 * {@link PurgatoryBenchmark} for why).
 *
 * <p>Usage: {@code java -XX:MarkStackSize=32M -cp benchmarks.jar io.clockwork.benchmarks.timer.PurgatoryCostHarness
 * [--timer clockwork,kafka,netty] [--warmup 3] [--rounds 5] [--ops 33554432 | --seconds 2]}
 */
public final class PurgatoryCostHarness {

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("timer", String.join(",", Rivals.CLOCKWORK, Rivals.KAFKA, Rivals.NETTY));
        DEFAULTS.put("warmup", "3");
        DEFAULTS.put("rounds", "5");
        DEFAULTS.put("ops", String.valueOf(PurgatoryBenchmark.OPS));
        DEFAULTS.put("seconds", "0");
        DEFAULTS.put("child", "false");
    }

    /** Operations between two looks at the clock, so that the clock reads of the loop itself cost nothing. */
    private static final int BATCH = 4096;

    private PurgatoryCostHarness() {
    }

    /**
     * Runs the harness; see the class comment for options.
     *
     * @param args options
     * @throws Exception if a child JVM fails
     */
    public static void main(String[] args) throws Exception {
        Harness h = new Harness(args, DEFAULTS);
        if (Boolean.parseBoolean(h.get("child"))) {
            Round median = measure(h.list("timer").get(0), h.getInt("warmup"), h.getInt("rounds"),
                    TimeUnit.SECONDS.toNanos(h.getInt("seconds")), h.getInt("ops"));
            System.out.println(Harness.ROW + h.get("timer") + "\t" + median.row() + "\t"
                    + String.format("%.1f", nanoTimeCost()));
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        for (String rival : h.list("timer")) {
            System.out.println("# purgatory cost: " + rival);
            List<String> childArgs = new ArrayList<>(Arrays.asList(args));
            childArgs.addAll(List.of("--timer", rival, "--child"));
            try {
                for (String[] r : Harness.fork(PurgatoryCostHarness.class, childArgs)) {
                    rows.add(Arrays.asList(r));
                }
            } catch (IllegalStateException childFailed) {
                // Without -XX:MarkStackSize=32M Netty's JVM died in G1 ("Overflow during reference processing"; see
                // PurgatoryBenchmark): report a dead child in the table and go on with the other rivals.
                rows.add(List.of(rival, "failed: " + childFailed.getMessage().replace('|', '/'), "", "", "", "", "",
                        ""));
            }
        }
        System.out.println(h.getInt("seconds") > 0 ? "Rounds of " + h.get("seconds") + " s each, medians:"
                : "Rounds of " + h.get("ops") + " operations each, medians:");
        Harness.printTable(List.of("timer", "ops/µs", "wall ns/op", "producer CPU ns/op", "GC pause ns/op",
                "rest ns/op", "process CPU ns/op", "one nanoTime() ns"), rows);
    }

    /**
     * One measured round: how many operations, and per operation the times in nanoseconds. The process's CPU time
     * is read in the operating system's clock ticks (10 ms on Linux), so it means something over long rounds only.
     */
    record Round(long ops, double opsPerMicro, double wall, double producerCpu, double gcPause, double processCpu) {

        String row() {
            return String.format("%.2f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f", opsPerMicro, wall, producerCpu, gcPause,
                    Math.max(0, wall - producerCpu - gcPause), processCpu);
        }
    }

    /**
     * @param roundNanos how long a round lasts, or 0 to run {@code roundOps} operations per round
     * @return the round with the median throughput
     */
    static Round measure(String rival, int warmup, int rounds, long roundNanos, long roundOps) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        List<Round> measured = new ArrayList<>();
        for (int round = 0; round < warmup + rounds; round++) {
            PurgatoryBenchmark loop = new PurgatoryBenchmark();
            loop.timer = rival;
            loop.open();
            long ops = 0;
            int sink = 0;
            long gc0 = gcPauseMillis();
            long process0 = os.getProcessCpuTime();
            long cpu0 = threads.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            long wall;
            do {
                for (int i = 0; i < BATCH; i++) {
                    sink += loop.operation();
                }
                ops += BATCH;
                wall = System.nanoTime() - start;
            } while (roundNanos > 0 ? wall < roundNanos : ops < roundOps);
            long cpu = threads.getCurrentThreadCpuTime() - cpu0;
            long process = os.getProcessCpuTime() - process0;
            long gc = TimeUnit.MILLISECONDS.toNanos(gcPauseMillis() - gc0);
            loop.close();
            if (sink == 42) {
                System.out.println(); // keeps the loop's result alive
            }
            if (round >= warmup) {
                Round r = new Round(ops, ops * 1e3 / wall, (double) wall / ops, (double) cpu / ops, (double) gc / ops,
                        (double) process / ops);
                System.out.println("round " + (round - warmup + 1) + ": " + r.row().replace('\t', ' '));
                measured.add(r);
            }
        }
        measured.sort((a, b) -> Double.compare(a.opsPerMicro(), b.opsPerMicro()));
        return measured.get(measured.size() / 2);
    }

    /**
     * @return milliseconds of collection pauses so far: G1's young bean counts its evacuation pauses (young and
     *         mixed), its old bean full collections; the short remark and cleanup pauses of a concurrent cycle are
     *         not counted (on JDK 17 no bean reports them)
     */
    private static long gcPauseMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    /** @return nanoseconds per {@code System.nanoTime()} call, measured in a tight loop */
    static double nanoTimeCost() {
        long sink = 0;
        double best = Double.MAX_VALUE;
        for (int r = 0; r < 5; r++) {
            int calls = 5_000_000;
            long t0 = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                sink += System.nanoTime();
            }
            best = Math.min(best, (System.nanoTime() - t0) / (double) calls);
        }
        if (sink == 42) {
            System.out.println();
        }
        return best;
    }
}

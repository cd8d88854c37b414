package io.clockwork.benchmarks.timer;

import io.clockwork.benchmarks.Harness;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;

/**
 * Benchmark 1 in a busy JVM, rivals side by side: schedule+cancel pairs ({@link ScheduleCancelBenchmark}'s) on
 * each rival in turn, every rival open in the same JVM with {@code --pending} timers of its own, their threads
 * running (Kafka's and our Kafka face's reapers, Netty's worker, our driver), optionally beside
 * {@code --residents} long-lived objects ({@link Residents}). Not thread-safe; a {@code main}.
 *
 * <p>Why a harness beside {@link BusyHeapBenchmark}'s {@code -p neighbours=all}: JMH measures one rival per fork,
 * one after another, so on a shared machine whose load changes from minute to minute the rivals are measured under
 * different loads and their ratio moves with it. Here each round runs every rival for {@code --millis}, in a rotated
 * order, so rivals compared in a round were measured within a second of each other; the ratios are the medians of
 * the per-round ratios. Each rival's loop ({@link PairLoop}) is its own copy of the class, loaded by its own class
 * loader, so that the JIT inlines each rival's calls as in a fork of its own.
 *
 * <p>Allocation per pair counts every thread's allocations during the rival's turn (as JMH's {@code -prof gc}), the
 * timers' own threads included.
 *
 * <p>Usage: {@code java -Xms2g -Xmx2g -cp benchmarks.jar io.clockwork.benchmarks.timer.BusyJvmHarness
 * [--timer clockwork,clockwork-kafka,kafka,netty] [--pending 1000000] [--residents 0] [--warmup 15] [--rounds 20]
 * [--millis 200] [--ratios clockwork-kafka/kafka,clockwork/netty,clockwork/kafka,clockwork-kafka/clockwork]}.
 */
public final class BusyJvmHarness {

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("timer", String.join(",", BusyHeapBenchmark.NEIGHBOURS));
        DEFAULTS.put("pending", "1000000");
        DEFAULTS.put("residents", "0");
        DEFAULTS.put("warmup", "15");
        DEFAULTS.put("rounds", "20");
        DEFAULTS.put("millis", "200");
        DEFAULTS.put("ratios", "clockwork-kafka/kafka,clockwork/netty,clockwork/kafka,clockwork-kafka/clockwork");
    }

    private BusyJvmHarness() {
    }

    /**
     * Runs the harness and prints its tables; see the class comment for options.
     *
     * @param args options
     * @throws Exception if a rival fails
     */
    public static void main(String[] args) throws Exception {
        Harness h = new Harness(args, DEFAULTS);
        List<String> names = h.list("timer");
        for (String name : names) {
            if (!Rivals.ALL.contains(name)) {
                throw new IllegalArgumentException("unknown timer '" + name + "', expected one of " + Rivals.ALL);
            }
        }
        int rounds = positive(h, "rounds");
        int warmup = h.getInt("warmup");
        long nanos = TimeUnit.MILLISECONDS.toNanos(positive(h, "millis"));
        List<String[]> ratios = new ArrayList<>();
        for (String ratio : h.list("ratios")) {
            String[] pair = ratio.split("/");
            if (pair.length != 2 || !names.contains(pair[0]) || !names.contains(pair[1])) {
                throw new IllegalArgumentException("ratios must be A/B with A and B among " + names + ", was '"
                        + ratio + "'");
            }
            ratios.add(pair);
        }

        Residents heap = Residents.build(h.getInt("residents"));
        List<TimerRival> rivals = new ArrayList<>();
        List<LongUnaryOperator> loops = new ArrayList<>();
        try {
            for (String name : names) {
                TimerRival rival = Rivals.open(name);
                rivals.add(rival);
                if (!rival.shared()) {
                    throw new IllegalArgumentException("timer '" + name + "' is not thread-safe; it has no place here");
                }
                Workloads.fillBackground(rival.lane(0), h.getInt("pending"));
                loops.add(isolatedLoop(rival.lane(1)));
            }
            System.out.printf("%d rivals open, %s pending each, %s residents, max heap %d MB%n", names.size(),
                    h.get("pending"), h.get("residents"), Runtime.getRuntime().maxMemory() >> 20);

            double[][] opsPerMicro = new double[names.size()][rounds];
            double[][] bytesPerPair = new double[names.size()][rounds];
            for (int round = -warmup; round < rounds; round++) {
                StringBuilder line = new StringBuilder(round < 0 ? "warm-up" : "round " + (round + 1));
                for (int k = 0; k < names.size(); k++) {
                    int i = Math.floorMod(round + k, names.size()); // a rotated order: no rival always goes first
                    long allocated = allocatedBytes();
                    long start = System.nanoTime();
                    long pairs = loops.get(i).applyAsLong(nanos);
                    long elapsed = System.nanoTime() - start;
                    long bytes = allocatedBytes() - allocated;
                    double rate = pairs * 1_000.0 / elapsed;
                    line.append(String.format("  %s %.2f", names.get(i), rate));
                    if (round >= 0) {
                        opsPerMicro[i][round] = rate;
                        bytesPerPair[i][round] = (double) bytes / pairs;
                    }
                }
                System.out.println(line);
            }

            List<List<String>> rows = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                double[] r = opsPerMicro[i].clone();
                Arrays.sort(r);
                rows.add(List.of(names.get(i), f(median(opsPerMicro[i])), f(r[0]) + "-" + f(r[r.length - 1]),
                        String.format("%.1f", median(bytesPerPair[i]))));
            }
            System.out.println();
            Harness.printTable(List.of("timer", "ops/µs (median)", "range", "bytes per pair"), rows);

            List<List<String>> ratioRows = new ArrayList<>();
            for (String[] pair : ratios) {
                double[] a = opsPerMicro[names.indexOf(pair[0])];
                double[] b = opsPerMicro[names.indexOf(pair[1])];
                double[] perRound = new double[rounds];
                for (int round = 0; round < rounds; round++) {
                    perRound[round] = a[round] / b[round];
                }
                double[] sorted = perRound.clone();
                Arrays.sort(sorted);
                ratioRows.add(List.of(pair[0] + " / " + pair[1], f(median(perRound)) + "x",
                        f(sorted[0]) + "-" + f(sorted[sorted.length - 1])));
            }
            System.out.println();
            Harness.printTable(List.of("ratio", "median of rounds", "range"), ratioRows);
            for (LongUnaryOperator loop : loops) {
                System.out.println(loop); // keeps every loop's cancel count alive
            }
        } finally {
            for (TimerRival rival : rivals) {
                rival.close();
            }
            heap.verify();
        }
    }

    private static int positive(Harness h, String key) {
        int value = h.getInt(key);
        if (value < 1) {
            throw new IllegalArgumentException(key + " must be at least 1, was " + value);
        }
        return value;
    }

    /** Loads a copy of {@link PairLoop} in a class loader of its own and builds it on {@code lane}. */
    static LongUnaryOperator isolatedLoop(Lane lane) throws ReflectiveOperationException, IOException {
        String name = PairLoop.class.getName();
        byte[] bytes;
        try (InputStream in = PairLoop.class.getResourceAsStream(PairLoop.class.getSimpleName() + ".class")) {
            if (in == null) {
                throw new IOException("class file of " + name + " not found");
            }
            bytes = in.readAllBytes();
        }
        ClassLoader loader = new ClassLoader(BusyJvmHarness.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
                if (!className.equals(name)) {
                    return super.loadClass(className, resolve);
                }
                synchronized (getClassLoadingLock(className)) {
                    Class<?> loaded = findLoadedClass(className);
                    return loaded != null ? loaded : defineClass(className, bytes, 0, bytes.length);
                }
            }
        };
        return (LongUnaryOperator) loader.loadClass(name).getConstructor(Lane.class).newInstance(lane);
    }

    /** @return bytes allocated so far by every live thread */
    private static long allocatedBytes() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(0L, bytes);
        }
        return sum;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String f(double value) {
        return String.format("%.2f", value);
    }
}

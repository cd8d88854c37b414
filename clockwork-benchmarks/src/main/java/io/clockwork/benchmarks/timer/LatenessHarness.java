package io.clockwork.benchmarks.timer;

import io.clockwork.benchmarks.Harness;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Benchmark 3: expiry lateness. Schedules 100,000 timers with delays drawn uniformly from whole milliseconds in
 * [1 ms, 1 s] (or [{@code min-delay-ms}, {@code min-delay-ms} + {@code window-ms}]), waits until all have run, and records for each timer the time it ran minus its deadline (the
 * {@link System#nanoTime()} just before the schedule call plus the delay). Reports p50, p99, p99.9 and max of all
 * measured rounds, and how many ran early (before their deadline).
 *
 * <p>Why: throughput says nothing about precision. A wheel trades precision for speed by rounding deadlines to
 * ticks; a timer that wakes late, sleeps in whole milliseconds or backs up behind expiry work shows here. Not a
 * throughput, so not a JMH benchmark: a plain harness that, like JMH, runs each rival in its own forked JVM with
 * warm-up rounds first. Tasks run on each timer's own thread (executor thread for Kafka); Agrona is polled in a
 * busy loop by the harness thread, so its lateness is when that loop finds the timer.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.clockwork.benchmarks.timer.LatenessHarness [--timers 100000]
 * [--window-ms 1000] [--min-delay-ms 1] [--warmup 2] [--rounds 5] [--timer clockwork,kafka,netty,jdk,agrona]}.
 * With {@code --min-delay-ms 15000} every delay is one that Clockwork's {@code WheelTimer} leaves to its driver to
 * date (at least 14.3 s with a 1 ms tick), so the table shows what that costs in lateness.
 */
public final class LatenessHarness {

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("timers", "100000");
        DEFAULTS.put("window-ms", "1000");
        DEFAULTS.put("min-delay-ms", "1");
        DEFAULTS.put("warmup", "2");
        DEFAULTS.put("rounds", "5");
        DEFAULTS.put("timer", String.join(",", Rivals.ALL));
        DEFAULTS.put("child", "false");
    }

    private LatenessHarness() {
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
            Result r = measure(h.list("timer").get(0), h.getInt("timers"), h.getInt("min-delay-ms"),
                    h.getInt("window-ms"), h.getInt("warmup"), h.getInt("rounds"));
            System.out.println(Harness.ROW + r.toRow());
            return;
        }
        List<Result> results = new ArrayList<>();
        for (String rival : h.list("timer")) {
            System.out.println("# lateness: " + rival);
            List<String> childArgs = new ArrayList<>(Arrays.asList(args));
            childArgs.addAll(List.of("--timer", rival, "--child"));
            for (String[] row : Harness.fork(LatenessHarness.class, childArgs)) {
                results.add(Result.fromRow(row));
            }
        }
        print(results);
    }

    static void print(List<Result> results) {
        Result ours = results.stream().filter(r -> r.rival.equals(Rivals.CLOCKWORK)).findFirst().orElse(null);
        List<List<String>> rows = new ArrayList<>();
        for (Result r : results) {
            rows.add(List.of(r.rival, ms(r.p50), ms(r.p99), ms(r.p999), ms(r.max), ms(r.min),
                    Long.toString(r.early), Long.toString(r.samples),
                    ours == null ? "-" : Harness.ratio(ours.p99, r.p99)));
        }
        Harness.printTable(List.of("timer", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "min ms", "early",
                "samples", "p99 ours/theirs"), rows);
    }

    private static String ms(long nanos) {
        return String.format("%.3f", nanos / 1e6);
    }

    /**
     * Measures one rival in this JVM.
     *
     * @return lateness statistics over the measured rounds
     */
    static Result measure(String name, int timers, int minDelayMs, int windowMs, int warmup, int rounds)
            throws InterruptedException {
        long[] pooled = new long[timers * rounds];
        try (TimerRival rival = Rivals.open(name)) {
            Lane lane = rival.lane(timers);
            for (int round = 0; round < warmup + rounds; round++) {
                long[] late = runRound(lane, timers, minDelayMs, windowMs, Workloads.SEED + round);
                if (round >= warmup) {
                    System.arraycopy(late, 0, pooled, (round - warmup) * timers, timers);
                }
            }
        }
        return Result.of(name, pooled);
    }

    /** @return per timer, the nanoseconds between its deadline and its run (negative: early) */
    static long[] runRound(Lane lane, int timers, int minDelayMs, int windowMs, long seed)
            throws InterruptedException {
        long[] delays = Workloads.uniformMillisDelays(timers, minDelayMs, minDelayMs + windowMs - 1L, seed);
        long[] deadlines = new long[timers];
        long[] late = new long[timers];
        AtomicInteger done = new AtomicInteger();
        Runnable[] probes = new Runnable[timers];
        for (int i = 0; i < timers; i++) {
            int index = i;
            probes[i] = () -> {
                late[index] = System.nanoTime() - deadlines[index];
                done.incrementAndGet();
            };
        }
        boolean polling = lane.needsPolling();
        for (int i = 0; i < timers; i++) {
            long now = System.nanoTime();
            deadlines[i] = now + delays[i];
            lane.schedule(i, delays[i], probes[i]);
            if (polling && (i & 255) == 0) {
                lane.poll(now);
            }
        }
        long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(minDelayMs + windowMs + 10_000L);
        while (done.get() < timers) {
            if (System.nanoTime() - giveUp > 0) {
                throw new IllegalStateException("only " + done.get() + " of " + timers + " timers ran");
            }
            if (polling) {
                lane.poll(System.nanoTime());
                Thread.onSpinWait();
            } else {
                Thread.sleep(5);
            }
        }
        return late;
    }

    /** Lateness percentiles of one rival. Immutable. */
    static final class Result {
        final String rival;
        final long p50;
        final long p99;
        final long p999;
        final long max;
        final long min;
        final long early;
        final long samples;

        Result(String rival, long p50, long p99, long p999, long max, long min, long early, long samples) {
            this.rival = rival;
            this.p50 = p50;
            this.p99 = p99;
            this.p999 = p999;
            this.max = max;
            this.min = min;
            this.early = early;
            this.samples = samples;
        }

        static Result of(String rival, long[] lateness) {
            long[] sorted = lateness.clone();
            Arrays.sort(sorted);
            long early = Arrays.stream(sorted).filter(l -> l < 0).count();
            return new Result(rival, rank(sorted, 0.50), rank(sorted, 0.99), rank(sorted, 0.999),
                    sorted[sorted.length - 1], sorted[0], early, sorted.length);
        }

        private static long rank(long[] sorted, double q) {
            int index = (int) Math.ceil(q * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
        }

        String toRow() {
            return String.join("\t", rival, Long.toString(p50), Long.toString(p99), Long.toString(p999),
                    Long.toString(max), Long.toString(min), Long.toString(early), Long.toString(samples));
        }

        static Result fromRow(String[] row) {
            return new Result(row[0], Long.parseLong(row[1]), Long.parseLong(row[2]), Long.parseLong(row[3]),
                    Long.parseLong(row[4]), Long.parseLong(row[5]), Long.parseLong(row[6]), Long.parseLong(row[7]));
        }
    }
}

package io.clockwork.benchmarks.scale;

import io.clockwork.benchmarks.Harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pauses this machine alone imposes on a busy thread: threads that do nothing but read the clock, one per core
 * or fewer, each recording its longest gap between two readings and, as the storm's {@link PauseProbe} does, that
 * gap less the time the thread was off its core ({@link OffCoreTime}). No library code runs, so whatever gap they
 * see is the floor under every pause figure measured here with the same number of busy threads: on a virtual
 * machine, a host that takes a busy virtual core for its time slice; on any machine, the OS's other threads.
 *
 * <p>Options: {@code --threads 1,2} (a run per count), {@code --seconds 20} (per run). Prints a Markdown table: per
 * run, the longest gap of any thread, its gaps over 1 ms and 5 ms, and the longest gap less time off core.
 *
 * <p>Time: {@link System#nanoTime()}; the off-core time is sampled every {@value #SAMPLE_EVERY} readings.
 */
public final class MachinePauses {

    private static final int SAMPLE_EVERY = 1024;
    private static final long MILLI = 1_000_000L;
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("threads", "1,2");
        DEFAULTS.put("seconds", "20");
    }

    private MachinePauses() {
    }

    /**
     * Runs the measurement and prints its table.
     *
     * @param args options; see the class comment
     * @throws InterruptedException if interrupted while the threads run
     */
    public static void main(String[] args) throws InterruptedException {
        Harness h = new Harness(args, DEFAULTS);
        long seconds = h.getInt("seconds");
        List<List<String>> rows = new ArrayList<>();
        for (String count : h.list("threads")) {
            int threads = Integer.parseInt(count);
            if (threads < 1) {
                throw new IllegalArgumentException("--threads: each count must be at least 1, got " + threads);
            }
            rows.add(run(threads, seconds));
        }
        System.out.printf(Locale.ROOT, "# %d cores, JDK %s, %d s per run%n%n",
                Runtime.getRuntime().availableProcessors(), Runtime.version(), seconds);
        Harness.printTable(List.of("spinning threads", "longest gap (ms)", "gaps over 1 ms", "gaps over 5 ms",
                "longest gap less time off core (ms)"), rows);
    }

    private static List<String> run(int threads, long seconds) throws InterruptedException {
        Spinner[] spinners = new Spinner[threads];
        Thread[] running = new Thread[threads];
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        for (int t = 0; t < threads; t++) {
            spinners[t] = new Spinner(end);
            running[t] = new Thread(spinners[t], "spinner-" + t);
            running[t].start();
        }
        long longest = 0;
        long over1 = 0;
        long over5 = 0;
        long lessOffCore = 0;
        for (int t = 0; t < threads; t++) {
            running[t].join();
            longest = Math.max(longest, spinners[t].longest);
            over1 += spinners[t].over1;
            over5 += spinners[t].over5;
            lessOffCore = Math.max(lessOffCore, spinners[t].lessOffCore);
        }
        return List.of(Integer.toString(threads), millis(longest), Long.toString(over1), Long.toString(over5),
                spinners[0].lessOffCore < 0 ? "not reported" : millis(lessOffCore));
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / (double) MILLI);
    }

    /** Reads the clock until the end instant; its fields are read after {@link Thread#join()}. */
    private static final class Spinner implements Runnable {
        private final long end;
        long longest;
        long over1;
        long over5;
        long lessOffCore = -1;

        Spinner(long end) {
            this.end = end;
        }

        @Override
        public void run() {
            OffCoreTime offCore = OffCoreTime.openForThisThread();
            long intervalGap = 0;
            long previous = System.nanoTime();
            for (long i = 1; previous - end < 0; i++) {
                long now = System.nanoTime();
                long gap = now - previous;
                longest = Math.max(longest, gap);
                intervalGap = Math.max(intervalGap, gap);
                over1 += gap > MILLI ? 1 : 0;
                over5 += gap > 5 * MILLI ? 1 : 0;
                if (offCore != null && i % SAMPLE_EVERY == 0) {
                    lessOffCore = Math.max(lessOffCore, Math.max(0, intervalGap - offCore.mark()));
                    intervalGap = 0;
                    now = System.nanoTime(); // the reading of the counters is not a pause of the machine
                }
                previous = now;
            }
            if (offCore != null) {
                offCore.close();
            }
        }
    }
}

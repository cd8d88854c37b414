package io.clockwork.benchmarks.queue;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options of the {@link QueueHarness}: every {@code --name value} it accepts with its default, and the parsing of
 * a command line. Not instantiable; {@link #DEFAULTS} is filled once, when the class loads, and only read after.
 */
final class HarnessOptions {

    /** Every option and its default. */
    static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("scenarios",
                "offer,delivery,offer-batch,offer-async,delivery-batch,lateness,backlog,cluster,cluster-batch");
        DEFAULTS.put("rounds", "5");
        DEFAULTS.put("warmup", "2");
        DEFAULTS.put("seconds", "5");
        DEFAULTS.put("jit-warmup", "5");
        DEFAULTS.put("offer-producers", "4");
        DEFAULTS.put("producers", "4");
        DEFAULTS.put("consumers", "4");
        DEFAULTS.put("max-backlog", "500");
        // The batch scenarios: values per batch call (Redisson: operations in flight per thread), and the most
        // offered-but-not-taken messages there (a batch needs room for several batches per consumer).
        DEFAULTS.put("batch", "100");
        DEFAULTS.put("batch-max-backlog", "2000");
        DEFAULTS.put("lateness-rate", "500");
        DEFAULTS.put("lateness-min-ms", "20");
        DEFAULTS.put("lateness-max-ms", "200");
        DEFAULTS.put("lateness-seconds", "10");
        DEFAULTS.put("backlog", "1000000");
        DEFAULTS.put("small-backlog", "1000");
        DEFAULTS.put("preload-threads", "16");
        DEFAULTS.put("drain-seconds", "30");
        DEFAULTS.put("masters", "3");
        // cluster-capped: the CPU quota per master, in cores, one run of the scenario per value.
        DEFAULTS.put("caps", "0.25,0.5");
        DEFAULTS.put("partitions", "12");
        // cluster-batch: a batch is split by partition, so fewer partitions keep batches large (one per master).
        DEFAULTS.put("batch-partitions", "3");
        DEFAULTS.put("cluster-producers", "4");
        DEFAULTS.put("cluster-consumers", "8");
        DEFAULTS.put("redis-server", "redis-server");
        // The offer scenario's BullMQ column (on: when node and npm are on the PATH; off: never).
        DEFAULTS.put("bullmq", "on");
        DEFAULTS.put("out", "");
        DEFAULTS.put("compact-after", "");
        // Headline figures in JMH's JSON result shape, so that `clockwork bench queue` reports and charts them like
        // the JMH suites: per scenario and rival, mode "thrpt" (higher is better) or "avgt" (lower is better).
        DEFAULTS.put("json", "");
    }

    private HarnessOptions() {
    }

    /**
     * Parses {@code --name value} pairs over the defaults; an unknown option or a missing value ends the JVM with
     * status 2 after naming the options.
     *
     * @param args the command line
     * @return every option, given or default, in {@link #DEFAULTS}' order
     */
    static Map<String, String> parse(String[] args) {
        Map<String, String> opts = new LinkedHashMap<>(DEFAULTS);
        for (int i = 0; i < args.length; i++) {
            String key = args[i].replaceFirst("^--", "");
            if (!DEFAULTS.containsKey(key) || i + 1 >= args.length) {
                System.err.println("unknown option or missing value: " + args[i] + "; options: " + DEFAULTS);
                System.exit(2);
            }
            opts.put(key, args[++i]);
        }
        return opts;
    }
}

package io.clockwork.benchmarks.scale;

import io.clockwork.benchmarks.Harness;
import io.clockwork.benchmarks.queue.RedisRates;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Ten million pending, in process: how Clockwork's {@code WheelTimer} and {@code InMemoryDelayedQueue}
 * hold up when a huge number of items wait far in the future, beside Netty's {@code HashedWheelTimer} and the JDK's
 * {@code ScheduledThreadPoolExecutor}. Not thread-safe; a {@code main}.
 *
 * <ol>
 *   <li><b>Rates</b> ({@link PendingRates}): schedule (offer), cancel and delivery rates with {@code --small} items
 *       pending 1-2 hours out and again with {@code --pending}, and the ratio of the two (the target: at least
 *       0.8x). A timer's delivery rate is how fast it runs a batch of tasks all due at one instant (first to last
 *       run); the queue's is {@code poll} + {@code ack} of a batch of due messages, its promotion included.</li>
 *   <li><b>Heap</b> per pending item, measured while filling from the small count to the huge one.</li>
 *   <li><b>Expiry storm</b> ({@link ExpiryStorm}): {@code --storm} items due in the same millisecond, while another
 *       thread keeps scheduling and cancelling ({@link PauseProbe}) and records the longest schedule call and the
 *       longest gap between its operations, shown beside the subject's tick; once with items scheduled seconds
 *       before they fall due (young) and once with items a full collection moved to the old generation first.</li>
 *   <li><b>Redis</b> ({@link RedisRates}): the same rates for {@code RedisDelayedQueue} on one {@code redis-server}
 *       this part starts, with {@code --small} and {@code --pending} messages pending, and {@code used_memory} per
 *       pending message.</li>
 * </ol>
 * Each part runs in a fresh JVM per subject, with this JVM's options (as JMH forks one per parameter), so that no
 * subject's garbage or compiled code weighs on another; the storm runs once per collector of {@code --collectors}
 * (default {@code G1,ZGC}: the JDK's default, aiming at 200 ms pauses, and one whose pauses stay under a
 * millisecond; {@link GarbageCollectors}), each in its own JVM with that collector. {@code --fork false} runs every
 * part in this JVM instead, with its collector (for tests). The tables show the median of {@code --rounds} rounds;
 * {@code --json FILE} also writes the headline figures in JMH's result shape, for {@code clockwork bench scale}.
 *
 * <p>Time: all durations are read from {@link System#nanoTime()}; background items are due 1 to 2 hours out, so none
 * comes due during a run. The heap must hold the huge count in one JVM, and the queue's messages are the largest
 * items (the harness warns when {@code -Xmx} looks too small for {@code --pending}); the full measurement:
 *
 * <pre>{@code java -Xms8g -Xmx8g -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.scale.ScaleHarness
 * [--pending 10000000] [--small 1000] [--rounds 5] [--warmup 3] [--ops 1000000] [--cycle 1000] [--due 200000]
 * [--storm 1000000] [--subjects clockwork,netty,jdk,clockwork-queue] [--parts rates,storm,redis]
 * [--collectors G1,ZGC] [--redis-server redis-server] [--json FILE]}</pre>
 */
public final class ScaleHarness {

    /** The part that measures the Redis queue; it has no in-process subject. */
    static final String REDIS = "redis";
    /** The part measured once per collector. */
    static final String STORM = "storm";
    /** The collectors the storm runs under unless {@code --collectors} says otherwise. */
    static final String STORM_COLLECTORS = "G1,ZGC";
    /** The parts, in the order they run. */
    static final List<String> PARTS = List.of("rates", STORM, REDIS);
    /** Bytes per pending item to plan the heap for: the queue's, with room for the garbage of a round. */
    private static final long PLANNED_BYTES_PER_ITEM = 300;

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("pending", "10000000");
        DEFAULTS.put("small", "1000");
        DEFAULTS.put("rounds", "5");
        DEFAULTS.put("warmup", "3");
        DEFAULTS.put("ops", "1000000");
        DEFAULTS.put("cycle", "1000");
        DEFAULTS.put("due", "200000");
        DEFAULTS.put("storm", "1000000");
        DEFAULTS.put("subjects", String.join(",", Subject.ALL));
        DEFAULTS.put("parts", String.join(",", PARTS));
        DEFAULTS.put("collectors", STORM_COLLECTORS);
        DEFAULTS.put("fork", "true");
        DEFAULTS.put("json", "");
        DEFAULTS.put("child", "");
        DEFAULTS.put("redis-server", "redis-server");
    }

    private ScaleHarness() {
    }

    /**
     * Runs the harness and prints its tables; see the class comment for options.
     *
     * @param args options
     * @throws Exception if a measurement or a child JVM fails
     */
    public static void main(String[] args) throws Exception {
        System.out.print(run(args));
    }

    /**
     * Runs the harness, printing progress, and returns the tables.
     *
     * @param args options, as for {@link #main}
     * @return the Markdown tables (empty in a child JVM, which prints its rows instead)
     * @throws Exception if a measurement or a child JVM fails
     */
    static String run(String[] args) throws Exception {
        Harness h = new Harness(args, DEFAULTS);
        ScaleSettings settings = ScaleSettings.of(h);
        List<String> subjects = h.list("subjects");
        List<String> parts = h.list("parts");
        check(subjects, Subject.ALL, "subject");
        check(parts, PARTS, "part");
        List<String> collectors = h.list("collectors");
        GarbageCollectors.check(collectors);
        if (!h.get("child").isEmpty()) {
            for (String[] row : measure(h.get("child"), subjects.get(0), settings, h.get("redis-server"))) {
                System.out.println(Harness.ROW + String.join("\t", row));
            }
            return "";
        }
        boolean fork = Boolean.parseBoolean(h.get("fork"));
        long maxHeap = Runtime.getRuntime().maxMemory();
        System.out.println(String.format(Locale.ROOT, "# scale: %,d against %,d pending; %d cores, JDK %s, max heap "
                + "%.1f GiB", settings.pending(), settings.small(), Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), maxHeap / (double) (1L << 30)));
        if (maxHeap < PLANNED_BYTES_PER_ITEM * settings.pending()) {
            System.out.println(String.format(Locale.ROOT, "# warning: %,d pending may need about %.1f GiB of heap; "
                    + "run with a larger -Xmx (e.g. -Xmx8g for 10,000,000)", settings.pending(),
                    PLANNED_BYTES_PER_ITEM * settings.pending() / (double) (1L << 30)));
        }
        List<String[]> rows = new ArrayList<>();
        for (String part : parts) {
            for (String subject : part.equals(REDIS) ? List.of(RedisRates.SUBJECT) : subjects) {
                System.out.println("# " + part + ": " + subject);
                if (fork) {
                    List<String> childArgs = new ArrayList<>(Arrays.asList(args));
                    childArgs.addAll(List.of("--child", part, "--json", ""));
                    if (!part.equals(REDIS)) {
                        childArgs.addAll(List.of("--subjects", subject));
                    }
                    if (part.equals(STORM)) {
                        for (String collector : collectors) {
                            System.out.println("#   under " + collector);
                            rows.addAll(Harness.fork(ScaleHarness.class,
                                    List.of(GarbageCollectors.option(collector)), childArgs));
                        }
                    } else {
                        rows.addAll(Harness.fork(ScaleHarness.class, childArgs));
                    }
                } else {
                    rows.addAll(measure(part, subject, settings, h.get("redis-server")));
                }
            }
        }
        ScaleReport report = new ScaleReport(settings, rows);
        if (!h.get("json").isEmpty()) {
            Files.writeString(Path.of(h.get("json")), "[\n" + String.join(",\n", report.json()) + "\n]\n",
                    StandardCharsets.UTF_8);
        }
        return report.markdown();
    }

    private static List<String[]> measure(String part, String subject, ScaleSettings settings, String redisServer)
            throws Exception {
        switch (part) {
            case "rates":
                return PendingRates.measure(subject, settings);
            case STORM:
                return ExpiryStorm.measure(subject, settings);
            default:
                return RedisRates.measure(redisServer, settings.pending(), settings.small(), settings.rounds(),
                        settings.ops(), settings.due());
        }
    }

    private static void check(List<String> given, List<String> known, String what) {
        for (String g : given) {
            if (!known.contains(g)) {
                throw new IllegalArgumentException("unknown " + what + " '" + g + "', expected one of " + known);
            }
        }
    }
}

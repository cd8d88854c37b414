package io.clockwork.benchmarks.scale;

import io.clockwork.benchmarks.queue.RedisRates;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns the rows of the scale harness's measurements into its Markdown tables and into headline figures in JMH's
 * JSON result shape (for {@code clockwork bench scale}). Each figure is the median of its rounds. Not thread-safe;
 * built and read by one thread.
 */
final class ScaleReport {

    /** The target: a rate at the huge pending count is at least this share of the rate at the small. */
    static final double TARGET = 0.8;

    private final ScaleSettings settings;
    /** subject -> operation -> pending -> per-round rates. */
    private final Map<String, Map<String, Map<Integer, List<Double>>>> rates = new LinkedHashMap<>();
    /** subject -> {bytes per item, pending reported}. */
    private final Map<String, String[]> bytes = new LinkedHashMap<>();
    /** {used_memory bytes per pending message, pending reported} of the Redis queue, or null. */
    private String[] redisBytes;
    /**
     * {subject, collector} -> the items' age ({@link ExpiryStorm#YOUNG}, {@link ExpiryStorm#TENURED}) -> per-round
     * storm rows.
     */
    private final Map<List<String>, Map<String, List<String[]>>> storms = new LinkedHashMap<>();
    /** The same for the control rows: the same items due an hour out, nothing falling due. */
    private final Map<List<String>, Map<String, List<String[]>>> controls = new LinkedHashMap<>();

    /**
     * @param settings the sizes measured
     * @param rows     the measurements' rows, as {@link PendingRates} and {@link ExpiryStorm} make them
     */
    ScaleReport(ScaleSettings settings, List<String[]> rows) {
        this.settings = settings;
        for (String[] r : rows) {
            switch (r[0]) {
                case "rate":
                    rates.computeIfAbsent(r[1], k -> new LinkedHashMap<>())
                            .computeIfAbsent(r[3], k -> new LinkedHashMap<>())
                            .computeIfAbsent(Integer.parseInt(r[2]), k -> new ArrayList<>())
                            .add(Double.parseDouble(r[4]));
                    break;
                case "bytes":
                    bytes.put(r[1], new String[] {r[2], r[3]});
                    break;
                case "redis-bytes":
                    redisBytes = new String[] {r[2], r[3]};
                    break;
                case "storm":
                    byAge(storms, r).add(r);
                    break;
                case "storm-control":
                    byAge(controls, r).add(r);
                    break;
                default:
                    throw new IllegalArgumentException("unknown row '" + String.join("\t", r) + "'");
            }
        }
    }

    /** @return the tables, each after a line saying what it shows */
    String markdown() {
        StringBuilder md = new StringBuilder();
        if (!rates.isEmpty()) {
            md.append(String.format(Locale.ROOT, "%nRates with %,d and with %,d items pending 1-2 h out (per second, "
                    + "median of %d rounds; target %.1fx):%n%n", settings.small(), settings.pending(),
                    settings.rounds(), TARGET));
            md.append(String.format(Locale.ROOT, "| subject | operation | at %,d | at %,d | ratio | meets %.1fx |%n",
                    settings.small(), settings.pending(), TARGET));
            md.append("| --- | --- | ---: | ---: | ---: | --- |\n");
            rates.forEach((subject, ops) -> ops.forEach((op, byPending) -> {
                double atSmall = median(byPending.get(settings.small()));
                double atPending = median(byPending.get(settings.pending()));
                double ratio = atPending / atSmall;
                md.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %,.0f | %.2fx | %s |%n", subject, op,
                        atSmall, atPending, ratio, ratio >= TARGET ? "yes" : "**no**"));
            }));
        }
        if (!bytes.isEmpty()) {
            md.append(String.format(Locale.ROOT, "%nHeap retained per pending item, filling from %,d to %,d "
                    + "(used heap after full GCs; the queue's values are one shared object):%n%n",
                    settings.small(), settings.pending()));
            md.append("| subject | B per pending item | pending reported | ours/theirs |\n");
            md.append("| --- | ---: | ---: | ---: |\n");
            String[] ours = bytes.get(Subject.CLOCKWORK);
            bytes.forEach((subject, b) -> {
                boolean timerRival = !subject.equals(Subject.CLOCKWORK) && !subject.equals(Subject.QUEUE);
                String ratio = ours != null && timerRival ? String.format(Locale.ROOT, "%.2f",
                        Double.parseDouble(ours[0]) / Double.parseDouble(b[0])) : "-";
                md.append(String.format(Locale.ROOT, "| %s | %.1f | %,d | %s |%n", subject, Double.parseDouble(b[0]),
                        Long.parseLong(b[1]), ratio));
            });
        }
        if (redisBytes != null) {
            md.append(String.format(Locale.ROOT, "%nRedis used_memory per pending message, filling from %,d to %,d "
                    + "(100-byte values):%n%n| subject | B per pending message | beyond the payload | pending "
                    + "reported |%n| --- | ---: | ---: | ---: |%n| %s | %.1f | %.1f | %,d |%n", settings.small(),
                    settings.pending(), RedisRates.SUBJECT, Double.parseDouble(redisBytes[0]),
                    Double.parseDouble(redisBytes[0]) - 100, Long.parseLong(redisBytes[1])));
        }
        if (!storms.isEmpty()) {
            md.append(String.format(Locale.ROOT, "%nExpiry storm: %,d items due in the same millisecond while another "
                    + "thread schedules and cancels (median of %d rounds, worst in brackets; ms):%n%n",
                    settings.storm(), settings.rounds()));
            md.append("| subject | collector | items | tick | storm delivered in | items/s | longest schedule call | "
                    + "longest gap between operations | less time off core | probe operations in window | GC in "
                    + "window | control: longest gap | control: less time off core | control: GC |\n");
            md.append("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
                    + "\n");
            storms.forEach((key, ages) -> ages.forEach((age, rounds) -> {
                double span = median(column(rounds, 3)) / 1e6;
                List<String[]> control = controls.getOrDefault(key, Map.of()).getOrDefault(age, List.of());
                md.append(String.format(Locale.ROOT,
                        "| %s | %s | %s | %s | %.1f | %,.0f | %s | %s | %s | %,.0f | %.0f | %s | %s | %s |%n",
                        key.get(0), key.get(1), age, rounds.get(0)[8], span, settings.storm() / (span / 1e3),
                        millis(column(rounds, 4)), millis(column(rounds, 5)),
                        millis(column(rounds, ExpiryStorm.GAP_LESS_OFF_CORE)), median(column(rounds, 6)),
                        median(column(rounds, 7)), control.isEmpty() ? "" : millis(column(control, 5)),
                        control.isEmpty() ? "" : millis(column(control, ExpiryStorm.GAP_LESS_OFF_CORE)),
                        control.isEmpty() ? "" : String.format(Locale.ROOT, "%.0f", median(column(control, 7)))));
            }));
            md.append("\nCollector: the JVM's garbage collector in that run (G1 copies the live young objects in a "
                    + "pause; ZGC and Shenandoah move them while the program runs). Items: young ones were scheduled "
                    + "seconds before they fell due; tenured ones were moved to the "
                    + "old generation by a full collection in between, as a wait of minutes would. Control: as many "
                    + "items scheduled (and tenured) the same way but due an hour out, the probe watched over a "
                    + "window of the storm's length with nothing falling due: the pauses of holding them, not of "
                    + "delivering them. Less time off core: the longest gap of any interval of 1,024 probe "
                    + "operations less the time the probe's thread was off its core in it while it could have run "
                    + "(Linux schedstat: waiting for a core, or, in an interval in which it never blocked, its "
                    + "virtual core taken by the host), a lower bound of the pause not spent waiting for the OS or "
                    + "the host to run it.\n");
        }
        return md.toString();
    }

    /** @return one JSON object per headline figure, in JMH's result shape, for {@code clockwork bench} */
    List<String> json() {
        List<String> out = new ArrayList<>();
        rates.forEach((subject, ops) -> ops.forEach((op, byPending) -> {
            byPending.forEach((pending, l) -> out.add(headline(subject, op, "thrpt", median(l), "ops/s",
                    ", \"pending\": \"" + pending + "\"")));
            out.add(headline(subject, op + "Scaling", "thrpt", median(byPending.get(settings.pending()))
                    / median(byPending.get(settings.small())), "x", ""));
        }));
        bytes.forEach((subject, b) -> out.add(headline(subject, "bytesPerPending", "avgt",
                Double.parseDouble(b[0]), "B", "")));
        if (redisBytes != null) {
            out.add(headline(RedisRates.SUBJECT, "bytesPerPending", "avgt", Double.parseDouble(redisBytes[0]), "B",
                    ""));
        }
        storms.forEach((key, ages) -> ages.forEach((age, rounds) -> {
            String prefix = age.equals(ExpiryStorm.YOUNG) ? "storm" : "tenuredStorm";
            String collector = ", \"collector\": \"" + key.get(1) + "\"";
            out.add(headline(key.get(0), prefix + "LongestGap", "avgt", median(column(rounds, 5)) / 1e6, "ms",
                    collector));
            out.add(headline(key.get(0), prefix + "LongestGapLessTimeOffCore", "avgt",
                    median(column(rounds, ExpiryStorm.GAP_LESS_OFF_CORE)) / 1e6, "ms", collector));
        }));
        return out;
    }

    private static String headline(String subject, String figure, String mode, double score, String unit,
            String moreParams) {
        boolean redis = subject.equals(RedisRates.SUBJECT);
        boolean queue = redis || subject.equals(Subject.QUEUE);
        String capitalised = Character.toUpperCase(figure.charAt(0)) + figure.substring(1);
        String benchmark = redis ? "redisQueue" + capitalised : queue ? "queue" + capitalised : figure;
        return String.format(Locale.ROOT, "{\"benchmark\": \"io.clockwork.benchmarks.scale.ScaleHarness.%s\", "
                + "\"mode\": \"%s\", \"threads\": 1, \"params\": {\"%s\": \"%s\"%s}, "
                + "\"primaryMetric\": {\"score\": %.6f, \"scoreError\": \"NaN\", \"scoreUnit\": \"%s\"}}",
                benchmark, mode, queue ? "queue" : "timer", queue ? Subject.CLOCKWORK : subject, moreParams, score,
                unit);
    }

    private static List<String[]> byAge(Map<List<String>, Map<String, List<String[]>>> rows, String[] r) {
        return rows.computeIfAbsent(List.of(r[1], r[ExpiryStorm.COLLECTOR]), k -> new LinkedHashMap<>())
                .computeIfAbsent(r[9], k -> new ArrayList<>());
    }

    private static List<Double> column(List<String[]> rows, int index) {
        List<Double> values = new ArrayList<>();
        for (String[] r : rows) {
            values.add(Double.parseDouble(r[index]));
        }
        return values;
    }

    private static String millis(List<Double> nanos) {
        return String.format(Locale.ROOT, "%.2f (%.2f)", median(nanos) / 1e6, Collections.max(nanos) / 1e6);
    }

    static double median(List<Double> values) {
        if (values == null || values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}

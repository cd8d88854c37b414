package io.clockwork.benchmarks.queue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The report of a {@link QueueHarness} run: the Markdown it prints and writes ({@code --out}), the headline figures in
 * JMH's JSON result shape ({@code --json}), the profile lines of every measured window, the API each rival used per
 * scenario, and the formatting of figures. Not thread-safe: the harness's main thread writes it.
 */
final class HarnessReport {

    /** Per scenario title and rival, which API calls the rival made (for the tables). */
    final Map<String, String> apis = new LinkedHashMap<>();
    final StringBuilder md = new StringBuilder();
    final List<String> headlines = new ArrayList<>();
    final List<String> profile = new ArrayList<>();
    private final double seconds;

    /** @param seconds the length of a measurement window, for the messages per window in profiles */
    HarnessReport(double seconds) {
        this.seconds = seconds;
    }

    /** Prints a line of the report and keeps it for {@code --out}. */
    void line(String s) {
        md.append(s).append('\n');
        System.out.println(s);
        System.out.flush();
    }

    /** One headline figure for {@code --json}, in JMH's result shape (benchmark, mode, params, primaryMetric). */
    void headline(String scenario, String rival, String mode, double score, String unit) {
        headlines.add(String.format(Locale.ROOT, "{\"benchmark\": \"io.clockwork.benchmarks.queue.QueueHarness.%s\", "
                + "\"mode\": \"%s\", \"threads\": 1, \"params\": {\"queue\": \"%s\"}, "
                + "\"primaryMetric\": {\"score\": %.6f, \"scoreError\": \"NaN\", \"scoreUnit\": \"%s\"}}",
                scenario, mode, rival, score, unit));
    }

    void throughputTable(String scenario, String unit, Map<String, List<Window>> results, boolean offers) {
        List<Window> ours = results.get(QueueRival.CLOCKWORK);
        line("| queue | API used | " + unit + " (median) | range | ours/theirs |");
        line("|---|---|---:|---|---:|");
        for (Map.Entry<String, List<Window>> e : results.entrySet()) {
            double m = median(e.getValue(), offers);
            line("| " + e.getKey() + " | " + apis.getOrDefault(scenario + "/" + e.getKey(), "?") + " | " + fmt(m)
                    + " | " + range(e.getValue(), offers) + " | "
                    + (e.getKey().equals(QueueRival.CLOCKWORK) || ours == null ? "" : ratio(median(ours, offers), m))
                    + " |");
        }
        line("");
    }

    /**
     * A table of what each rival's messages cost the server, over all its windows: redis-server CPU per message (from
     * /proc) and its scripts' time ({@code evalsha}, {@code eval}, {@code fcall} and {@code fcall_ro} of INFO
     * commandstats) per call and per message.
     */
    void serverCostTable(Map<String, List<Window>> results, boolean offers, String what) {
        line("| queue | redis-server CPU µs/" + what + " | script calls/" + what + " | µs/script call | script µs/"
                + what + " |");
        line("|---|---:|---:|---:|---:|");
        for (Map.Entry<String, List<Window>> e : results.entrySet()) {
            double cpuMicros = 0;
            long messages = 0;
            long calls = 0;
            long usec = 0;
            for (Window w : e.getValue()) {
                double perSec = offers ? w.offeredPerSec : w.takenPerSec;
                long n = offers ? Math.round(perSec * seconds) : w.messages;
                cpuMicros += perSec > 0 ? w.redisCpuPct / 100 * 1e6 / perSec * n : 0;
                messages += n;
                for (String c : List.of("evalsha", "eval", "fcall", "fcall_ro")) {
                    long[] s = w.commands.getOrDefault(c, new long[2]);
                    calls += s[0];
                    usec += s[1];
                }
            }
            long msgs = Math.max(1, messages);
            line(String.format(Locale.ROOT, "| %s | %.1f | %.2f | %s | %.1f |", e.getKey(), cpuMicros / msgs,
                    calls / (double) msgs, calls == 0 ? "-" : String.format(Locale.ROOT, "%.1f", usec / (double) calls),
                    usec / (double) msgs));
        }
        line("");
    }

    void addProfile(String scenario, Map<String, List<Window>> results, boolean offers) {
        for (Map.Entry<String, List<Window>> e : results.entrySet()) {
            long messages = 0;
            double jvm = 0;
            double redis = 0;
            double machine = 0;
            double[] perServer = null;
            long slow = 0;
            long connections = 0;
            long failed = 0;
            Map<String, long[]> cmds = new LinkedHashMap<>();
            for (Window w : e.getValue()) {
                messages += offers ? Math.round(w.offeredPerSec * seconds) : w.messages;
                jvm += w.jvmCpuPct;
                redis += w.redisCpuPct;
                machine += w.machineCpuPct;
                if (w.serverCpuPct != null) {
                    if (perServer == null) {
                        perServer = new double[w.serverCpuPct.length];
                    }
                    for (int k = 0; k < perServer.length && k < w.serverCpuPct.length; k++) {
                        perServer[k] += w.serverCpuPct[k];
                    }
                }
                slow += w.slow;
                connections += w.connections;
                failed += w.failed;
                w.commands.forEach((k, v) -> {
                    long[] acc = cmds.computeIfAbsent(k, x -> new long[2]);
                    acc[0] += v[0];
                    acc[1] += v[1];
                });
            }
            int n = e.getValue().size();
            long msgs = Math.max(1, messages);
            StringBuilder sb = new StringBuilder();
            sb.append("- ").append(scenario).append(" / ").append(e.getKey())
                    .append(e.getKey().equals(BullMqRival.NAME) ? ": Node CPU " : ": JVM CPU ")
                    .append(String.format(Locale.ROOT, "%.0f%%", jvm / n)).append(", redis-server CPU ")
                    .append(String.format(Locale.ROOT, "%.0f%%", redis / n));
            if (perServer != null && perServer.length > 1) {
                sb.append(" (each:");
                for (double c : perServer) {
                    sb.append(String.format(Locale.ROOT, " %.0f%%", c / n));
                }
                sb.append(')');
            }
            sb.append(", machine ").append(String.format(Locale.ROOT, "%.0f%% of %d00%%", machine / n,
                            Runtime.getRuntime().availableProcessors()))
                    .append(", slow ").append(slow)
                    .append(", connections opened ").append(connections)
                    .append(", failed operations ").append(failed).append("; per message:");
            cmds.entrySet().stream()
                    .sorted(Comparator.comparingLong((Map.Entry<String, long[]> x) -> x.getValue()[1]).reversed())
                    .limit(8)
                    .forEach(c -> sb.append(' ').append(c.getKey()).append(' ')
                            .append(String.format(Locale.ROOT, "%.2f calls %.1f us;", c.getValue()[0] / (double) msgs,
                                    c.getValue()[1] / (double) msgs)));
            profile.add(sb.toString());
        }
    }

    static double median(List<Window> l, boolean offers) {
        double[] v = l.stream().mapToDouble(w -> offers ? w.offeredPerSec : w.takenPerSec).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static String range(List<Window> l, boolean offers) {
        double[] v = l.stream().mapToDouble(w -> offers ? w.offeredPerSec : w.takenPerSec).sorted().toArray();
        return fmt(v[0]) + "–" + fmt(v[v.length - 1]);
    }

    static String fmt(double perSec) {
        return String.format(Locale.ROOT, "%,.0f", perSec);
    }

    static String ratio(double ours, double theirs) {
        return theirs == 0 ? "∞" : String.format(Locale.ROOT, "%.2fx", ours / theirs);
    }

    static String pctStr(double fraction) {
        return String.format(Locale.ROOT, "%.0f%%", fraction * 100);
    }

    static long pct(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int idx = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
        return sorted[Math.max(0, idx)];
    }

    static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / 1e6);
    }

    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "?";
        }
    }

    static String mavenVersion(String group, String artifact) {
        try (InputStream in = HarnessReport.class.getResourceAsStream("/META-INF/maven/" + group + "/" + artifact
                + "/pom.properties")) {
            if (in == null) {
                return "?";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }
}

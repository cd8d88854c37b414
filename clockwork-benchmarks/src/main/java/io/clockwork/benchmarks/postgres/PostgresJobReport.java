package io.clockwork.benchmarks.postgres;

import io.clockwork.benchmarks.Harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The Markdown tables of a {@link PostgresJobHarness} run, from its children's rows (see {@link PostgresJobRun} for
 * the keys): throughput, pending, lateness, the server's cost per job and the top statements. Each figure is the median
 * of the rounds, with the rounds' values beside it when there are several; ratios are Clockwork's figure over the
 * rival's when Clockwork ran. Not thread-safe: built and rendered by one thread.
 */
final class PostgresJobReport {

    private final Harness opts;
    private final String serverVersion;
    private final String serverSettings;
    private final String startLoad;
    private final Map<String, List<String[]>> rows;
    private final StringBuilder md = new StringBuilder();

    PostgresJobReport(Harness opts, String serverVersion, String serverSettings, String startLoad,
                      Map<String, List<String[]>> rows) {
        this.opts = opts;
        this.serverVersion = serverVersion;
        this.serverSettings = serverSettings;
        this.startLoad = startLoad;
        this.rows = rows;
    }

    String render() {
        line("Run " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "; PostgreSQL " + serverVersion
                + " (" + serverSettings + "); JDK "
                + System.getProperty("java.runtime.version") + "; nproc " + Runtime.getRuntime().availableProcessors()
                + "; " + String.join(", ", versions()) + "; /proc/loadavg at the start " + startLoad + ", at the end "
                + loadAverage());
        line("");
        line("Rivals and the calls they make:");
        line("");
        for (String rival : rows.keySet()) {
            first(rival, "api").ifPresent(r -> line("- " + rival + ": " + r[2]));
        }
        line("");
        throughput();
        pending();
        lateness();
        cost();
        statements();
        return md.toString();
    }

    /** @return /proc/loadavg, or "?" */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "?";
        }
    }

    private List<String> versions() {
        List<String> v = new ArrayList<>();
        for (String rival : rows.keySet()) {
            first(rival, "version").ifPresent(r -> v.add(rival + " " + r[2]));
        }
        return v;
    }

    private void throughput() {
        if (!has("e2e")) {
            return;
        }
        line("End to end: " + opts.get("jobs") + " jobs due now offered one transaction each from "
                + opts.get("threads") + " threads with the worker stopped, then drained by the worker ("
                + opts.get("threads") + " no-op handler threads); end to end is from the first offer to the last job"
                + " completed (acked, deleted or marked done), the drain from the worker's start.");
        line("");
        line("| rival | offers/s | end-to-end jobs/s | drain jobs/s | handled | runs beyond once |"
                + (hasClockwork() ? " Clockwork offers / rival's | end to end | drain |" : ""));
        line("|---|---:|---:|---:|---:|---:|" + (hasClockwork() ? "---:|---:|---:|" : ""));
        for (String rival : rows.keySet()) {
            List<String[]> e = all(rival, "e2e");
            if (e.isEmpty()) {
                continue;
            }
            StringBuilder sb = new StringBuilder("| " + rival + " | " + figure(e, 6) + " | " + figure(e, 7) + " | "
                    + figure(e, 8) + " | " + sum(e, 4) + " of " + sum(e, 3) + " | " + sum(e, 5) + " |");
            if (hasClockwork()) {
                List<String[]> ours = all(JobRival.CLOCKWORK, "e2e");
                for (int col = 6; col <= 8; col++) {
                    sb.append(' ').append(rival.equals(JobRival.CLOCKWORK) || ours.isEmpty() ? ""
                            : Harness.ratio(median(ours, col), median(e, col)) + "x").append(" |");
                }
            }
            line(sb.toString());
        }
        line("");
    }

    private void pending() {
        if (!has("pending-drain")) {
            return;
        }
        String small = opts.get("small-pending");
        String large = opts.get("pending");
        line("Pending: " + opts.get("due") + " due jobs drained (from the first job handled to the last completed)"
                + " beside " + small + " and " + large + " far-future (30 days) ones, offered through the batch API;"
                + " bytes are `pg_total_relation_size` (table, indexes, TOAST) of every table of the rival's database"
                + " after `VACUUM ANALYZE`, per pending job (100-byte payload).");
        line("");
        line("| rival | drain jobs/s at " + small + " pending | at " + large + " | ratio | bytes per pending job at "
                + large + " | at " + small + " | batch offers/s (fill of " + large + ") |");
        line("|---|---:|---:|---:|---:|---:|---:|");
        for (String rival : rows.keySet()) {
            List<String[]> atSmall = select(rival, "pending-drain", r -> r[2].equals(small));
            List<String[]> atLarge = select(rival, "pending-drain", r -> r[2].equals(large));
            List<String[]> fillSmall = select(rival, "fill", r -> r[2].equals(small));
            List<String[]> fillLarge = select(rival, "fill", r -> r[2].equals(large));
            if (atSmall.isEmpty() || atLarge.isEmpty()) {
                continue;
            }
            line("| " + rival + " | " + figure(atSmall, 6) + " | " + figure(atLarge, 6) + " | "
                    + Harness.ratio(median(atLarge, 6), median(atSmall, 6)) + " | "
                    + fmt(median(fillLarge, 5), "%,.0f") + " | " + fmt(median(fillSmall, 5), "%,.0f") + " | "
                    + fmt(median(fillLarge, 3), "%,.0f") + " |");
        }
        line("");
    }

    private void lateness() {
        if (!has("lateness")) {
            return;
        }
        line("Lateness at low load: " + opts.get("lateness-rate") + " jobs/s for " + opts.get("lateness-seconds")
                + " s, each due 100-1000 ms after its offer, the worker running; lateness is the handler's start minus"
                + " the due time (one clock: the same machine).");
        line("");
        line("| rival | jobs handled | p50 ms | p99 ms | max ms | handled early |");
        line("|---|---:|---:|---:|---:|---:|");
        for (String rival : rows.keySet()) {
            for (String[] r : all(rival, "lateness")) {
                line("| " + rival + " | " + r[3] + " of " + r[2] + " | " + fmt(Double.parseDouble(r[4]), "%.1f") + " | "
                        + fmt(Double.parseDouble(r[5]), "%.1f") + " | " + fmt(Double.parseDouble(r[6]), "%.1f")
                        + " | " + r[7] + " |");
            }
        }
        line("");
    }

    private void cost() {
        line("CPU per job, µs: the PostgreSQL server's processes (postmaster and children, from /proc) / the rival's"
                + " JVM.");
        line("");
        line("| rival | offer (one per transaction) | drain (end to end) | drain at " + opts.get("small-pending")
                + " pending | at " + opts.get("pending") + " | lateness phase |");
        line("|---|---:|---:|---:|---:|---:|");
        for (String rival : rows.keySet()) {
            List<String[]> e = all(rival, "e2e");
            List<String[]> small = select(rival, "pending-drain", r -> r[2].equals(opts.get("small-pending")));
            List<String[]> large = select(rival, "pending-drain", r -> r[2].equals(opts.get("pending")));
            List<String[]> late = all(rival, "lateness");
            line("| " + rival + " | " + costs(e, 9) + " | " + costs(e, 10) + " | " + costs(small, 7) + " | "
                    + costs(large, 7) + " | " + costs(late, 8) + " |");
        }
        line("");
    }

    private void statements() {
        statements("statement", "the end-to-end phase (first round)");
        statements("statement-lateness", "the lateness phase (low load: what idle consumers cost)");
    }

    private void statements(String key, String phase) {
        if (!has(key)) {
            return;
        }
        line("Top statements of " + phase + " by server execution time (`pg_stat_statements`), per job:");
        line("");
        line("| rival | calls/job | µs/job | statement |");
        line("|---|---:|---:|---|");
        for (String rival : rows.keySet()) {
            for (String[] r : all(rival, key)) {
                line("| " + rival + " | " + fmt(Double.parseDouble(r[2]), "%.2f") + " | "
                        + fmt(Double.parseDouble(r[3]), "%.1f") + " | `" + r[4] + "` |");
            }
        }
        line("");
    }

    /** @return the median of the server and JVM costs ("server;jvm") in a column, as "server / jvm" */
    private static String costs(List<String[]> rs, int col) {
        if (rs.isEmpty()) {
            return "";
        }
        List<Double> server = new ArrayList<>();
        List<Double> jvm = new ArrayList<>();
        for (String[] r : rs) {
            String[] parts = r[col].split(";");
            server.add(Double.parseDouble(parts[0]));
            jvm.add(Double.parseDouble(parts[1]));
        }
        double s = medianOf(server);
        return (s < 0 ? "?" : fmt(s, "%.0f")) + " / " + fmt(medianOf(jvm), "%.0f");
    }

    private String figure(List<String[]> rs, int col) {
        String m = fmt(median(rs, col), "%,.0f");
        if (rs.size() < 2) {
            return m;
        }
        List<String> each = new ArrayList<>();
        for (String[] r : rs) {
            each.add(fmt(Double.parseDouble(r[col]), "%,.0f"));
        }
        return m + " (" + String.join(", ", each) + ")";
    }

    private static double median(List<String[]> rs, int col) {
        List<Double> v = new ArrayList<>();
        for (String[] r : rs) {
            v.add(Double.parseDouble(r[col]));
        }
        return medianOf(v);
    }

    private static double medianOf(List<Double> v) {
        if (v.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static long sum(List<String[]> rs, int col) {
        long total = 0;
        for (String[] r : rs) {
            total += Long.parseLong(r[col]);
        }
        return total;
    }

    private static String fmt(double v, String format) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, format, v);
    }

    private boolean hasClockwork() {
        return rows.containsKey(JobRival.CLOCKWORK);
    }

    private boolean has(String key) {
        return rows.values().stream().flatMap(List::stream).anyMatch(r -> r[1].equals(key));
    }

    private Optional<String[]> first(String rival, String key) {
        return all(rival, key).stream().findFirst();
    }

    private List<String[]> all(String rival, String key) {
        return select(rival, key, r -> true);
    }

    private List<String[]> select(String rival, String key, Predicate<String[]> filter) {
        List<String[]> out = new ArrayList<>();
        for (String[] r : rows.getOrDefault(rival, List.of())) {
            if (r.length > 1 && r[1].equals(key) && filter.test(r)) {
                out.add(r);
            }
        }
        return out;
    }

    private void line(String s) {
        md.append(s).append('\n');
    }
}

package io.clockwork.cli.bench;

import io.clockwork.cli.CliException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code clockwork bench}: runs the JMH suites of {@code clockwork-benchmarks} and writes a Markdown report and a
 * PNG chart per suite. Not thread-safe: one instance per command line.
 */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {"Runs the JMH benchmarks of clockwork-benchmarks against their rivals and writes, per suite, "
                + "bench-<suite>.md (ratios ours/theirs per rival, and the raw scores), bench-<suite>.png and JMH's "
                + "bench-<suite>.json into the directory --out names, else into a new temporary directory that it "
                + "prints: never over the reports a checkout keeps in docs/ unless --out docs says so.",
            "",
            "JMH runs as a child process, java -jar clockwork-benchmarks/target/benchmarks.jar, found under the "
                    + "working directory or a parent (or --jar); build it with "
                    + "'mvn -B -q -pl clockwork-benchmarks -am package -DskipTests'. Results are read from JMH's "
                    + "JSON result format. A full run uses 1 fork, 3 x 2 s warmup and 6 x 2 s measurement (several "
                    + "minutes per suite). The queue suite is a harness rather than JMH: it starts its own "
                    + "redis-server processes (redis-server must be on PATH) and runs RedisDelayedQueue against "
                    + "Redisson's RDelayedQueue on the same server (about 8 minutes; --quick: offer, delivery and "
                    + "lateness, one short round each). The scale suite is a harness too: WheelTimer, Netty's "
                    + "HashedWheelTimer, the JDK's ScheduledThreadPoolExecutor and InMemoryDelayedQueue with 1,000 and "
                    + "with 10,000,000 items pending, heap per pending item, an expiry storm of 1,000,000, and "
                    + "RedisDelayedQueue with 1,000 and 10,000,000 pending on a redis-server it starts, one JVM "
                    + "per subject with -Xms8g -Xmx8g (--quick: 1,000,000 pending, one round). For JMH suites --quick (1 "
                    + "fork, 1 x 500 ms warmup, 2 x 500 ms measurement; the timer suite's BusyHeapBenchmark without "
                    + "its 30,000,000 resident objects) gives a first look, not a short run: it still runs every "
                    + "benchmark once per rival, and a single-shot benchmark such as the timer suite's purgatory "
                    + "(33,554,432 operations a shot) takes its full shots, so the timer suite takes about 4 minutes "
                    + "on a quiet 2-core machine."},
        footer = {"", "Examples:", "  clockwork bench timer --quick", "  clockwork bench            (every suite)",
            "  clockwork bench timer --results jmh-result.json   (report an earlier run)"})
public final class BenchCommand implements Callable<Integer> {

    /** The suites, as subpackages of {@code io.clockwork.benchmarks}. */
    public enum Suite {
        /** timers: WheelTimer and the Kafka face against Kafka, Netty, the JDK and Agrona */
        TIMER,
        /** session expiry and expiring maps against ZooKeeper and Storm */
        EXPIRY,
        /** delayed queues */
        QUEUE,
        /** in-process scale: WheelTimer and InMemoryDelayedQueue with ten million pending, and an expiry storm */
        SCALE;

        String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @Parameters(paramLabel = "SUITE", arity = "0..*",
            description = "timer, expiry, queue or scale (default: every suite the jar has).")
    List<Suite> suites;

    @Option(names = "--quick", description = "1 fork, tiny warmup and measurement: a first look, not a result "
            + "(minutes, not seconds: see above).")
    boolean quick;

    @Option(names = "--jar", paramLabel = "PATH", description = "The benchmarks jar (default: found as "
            + "clockwork-benchmarks/target/benchmarks.jar here or above).")
    Path jar;

    @Option(names = "--out", paramLabel = "DIR", description = "Where to write the reports, created if need be "
            + "(default: a new temporary directory, printed).")
    Path outDir;

    @Option(names = "--results", paramLabel = "FILE", description = "Do not run JMH: report this JMH JSON result "
            + "file instead (suites taken from the benchmark names).")
    Path results;

    @Option(names = "--verbose", description = "Show JMH's full output.")
    boolean verbose;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        if (results != null) {
            return report(out);
        }
        Path benchmarksJar = JmhLauncher.findJar(jar);
        JmhLauncher jmh = new JmhLauncher(benchmarksJar, out, verbose);
        List<String> available = jmh.suites();
        List<String> chosen = new ArrayList<>();
        if (suites == null || suites.isEmpty()) {
            chosen.addAll(available);
        } else {
            for (Suite s : new LinkedHashSet<>(suites)) {
                if (!available.contains(s.id())) {
                    throw new CliException("suite '" + s.id() + "' has no benchmarks in " + benchmarksJar
                            + " (it has: " + (available.isEmpty() ? "none" : String.join(", ", available)) + ")");
                }
                chosen.add(s.id());
            }
        }
        if (chosen.isEmpty()) {
            throw new CliException("no benchmarks under " + JmhLauncher.PACKAGE + " in " + benchmarksJar);
        }
        Path docs = outputDirectory(out);
        for (String suite : chosen) {
            String harness = JmhLauncher.harness(suite);
            List<String> jvm = harness == null ? List.of() : JmhLauncher.jvmOptions(suite, quick);
            String launcher = harness == null ? "java -jar " + relative(benchmarksJar)
                    : "java " + (jvm.isEmpty() ? "" : String.join(" ", jvm) + " ") + "-cp " + relative(benchmarksJar)
                    + " " + harness;
            out.println("bench " + suite + (quick ? " (quick)" : "") + ": " + launcher);
            out.flush();
            Path json = Files.createTempFile("clockwork-bench-" + suite + "-", ".json");
            try {
                List<String> args = jmh.run(suite, quick, json);
                String quickNote = suite.equals(JmhLauncher.QUEUE_SUITE)
                        ? " **Quick mode** (offer, delivery and lateness, one 3 s round each): a first look, not a "
                        + "result to quote."
                        : suite.equals(JmhLauncher.SCALE_SUITE)
                        ? " **Quick mode** (1,000,000 pending instead of 10,000,000, a storm of 100,000, one round): "
                        + "a first look, not a result to quote."
                        : " **Quick mode** (1 fork, 1 × 500 ms warmup, 2 × 500 ms measurement"
                        + (suite.equals("timer") ? "; BusyHeapBenchmark without its 30,000,000 resident objects" : "")
                        + "): a first look with wide error bars, not a result to quote.";
                String how = "Made by `clockwork bench " + suite + (quick ? " --quick" : "") + "` on "
                        + LocalDate.now() + ", which ran `" + launcher + " "
                        + String.join(" ", args).replace(json.toString(), "<results.json>") + "`; the raw results are "
                        + "in [bench-" + suite + ".json](bench-" + suite + ".json) (re-render with `clockwork bench "
                        + "--results bench-" + suite + ".json --out DIR`)."
                        + (quick ? quickNote : "");
                String raw = Files.readString(json, StandardCharsets.UTF_8);
                write(out, suite, JmhResult.parseAll(raw), how, docs);
                // Keep JMH's own output beside the report, so the figures can be checked and re-rendered.
                Files.writeString(docs.resolve("bench-" + suite + ".json"), raw, StandardCharsets.UTF_8);
            } finally {
                Files.deleteIfExists(json);
            }
        }
        return 0;
    }

    /** {@code --results}: report an existing result file, one report per suite found in it. */
    private int report(PrintWriter out) throws IOException {
        if (!Files.isRegularFile(results)) {
            throw new CliException("no result file at " + results);
        }
        List<JmhResult> all;
        try {
            all = JmhResult.parseAll(Files.readString(results, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new CliException(results + ": " + e.getMessage(), e);
        }
        Set<String> wanted = new LinkedHashSet<>();
        if (suites != null) {
            suites.forEach(s -> wanted.add(s.id()));
        }
        Set<String> found = new LinkedHashSet<>();
        for (JmhResult r : all) {
            found.add(suiteOf(r));
        }
        if (!wanted.isEmpty()) {
            found.retainAll(wanted);
        }
        if (found.isEmpty()) {
            throw new CliException(results + " has no results of " + (wanted.isEmpty() ? "any suite" : wanted));
        }
        Path docs = outputDirectory(out);
        for (String suite : found) {
            List<JmhResult> mine = all.stream().filter(r -> suiteOf(r).equals(suite)).toList();
            write(out, suite, mine, "Made by `clockwork bench " + suite + " --results " + results.getFileName()
                    + "` from an earlier JMH run.", docs);
        }
        return 0;
    }

    private static String suiteOf(JmhResult r) {
        String b = r.benchmark();
        if (b.startsWith(JmhLauncher.PACKAGE + ".")) {
            String rest = b.substring(JmhLauncher.PACKAGE.length() + 1);
            int dot = rest.indexOf('.');
            return dot > 0 ? rest.substring(0, dot) : "other";
        }
        return "other";
    }

    private static void write(PrintWriter out, String suite, List<JmhResult> results, String how, Path docs)
            throws IOException {
        Comparison comparison = Comparison.of(results);
        Path md = docs.resolve("bench-" + suite + ".md");
        Path png = docs.resolve("bench-" + suite + ".png");
        boolean chart = comparison.rivalParam() != null && !comparison.rivals().isEmpty();
        if (chart) {
            BenchChart.write(suite, comparison, png);
        }
        BenchReport.write(md, BenchReport.render(suite, comparison, how, chart ? png.getFileName().toString() : null));
        out.println("wrote " + md + (chart ? " and " + png : ""));
        for (Comparison.Row row : comparison.rows()) {
            StringBuilder line = new StringBuilder("  " + row.label() + ":");
            for (String rival : comparison.rivals()) {
                double ratio = Comparison.ratio(row, rival);
                line.append(Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "  %.2fx vs %s", ratio, rival));
            }
            out.println(line);
        }
        out.flush();
    }

    private static String relative(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path cwd = Path.of("").toAbsolutePath();
        return abs.startsWith(cwd) ? cwd.relativize(abs).toString() : abs.toString();
    }

    /**
     * The directory the reports go to: {@code --out}, created if need be, else a new temporary directory, so that a
     * run never replaces the reports a checkout keeps under docs/ unless told to.
     */
    private Path outputDirectory(PrintWriter out) throws IOException {
        if (outDir != null) {
            return Files.createDirectories(outDir);
        }
        Path dir = Files.createTempDirectory("clockwork-bench-");
        out.println("reports go to " + dir + " (--out DIR to choose)");
        out.flush();
        return dir;
    }
}

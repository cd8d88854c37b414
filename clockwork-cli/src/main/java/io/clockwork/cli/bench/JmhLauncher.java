package io.clockwork.cli.bench;

import io.clockwork.cli.CliException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.TreeSet;

/**
 * Runs the JMH suites of {@code clockwork-benchmarks} as a child process: {@code java -jar benchmarks.jar}.
 * Not thread-safe: one per command.
 *
 * <p>Why a child process rather than JMH's {@code Runner} API in this JVM: the benchmarks jar carries the rivals
 * (Kafka, Netty, Agrona) and JMH's generated code, which the {@code clockwork} jar should not; and JMH forks its own
 * JVMs per benchmark anyway, so a child process costs one JVM start in a run of minutes. The child writes JMH's
 * JSON result format ({@code -rf json}), which {@link JmhResult} reads.
 */
final class JmhLauncher {

    /** The package under which each suite is a subpackage: {@code io.clockwork.benchmarks.timer}, ... */
    static final String PACKAGE = "io.clockwork.benchmarks";
    /** Where {@code mvn package} puts the jar, relative to the repository. */
    static final Path DEFAULT_JAR = Path.of("clockwork-benchmarks", "target", "benchmarks.jar");
    /** JMH settings of {@code --quick}: one fork, one short warmup, two short measurements. */
    static final List<String> QUICK = List.of("-f", "1", "-wi", "1", "-w", "500ms", "-i", "2", "-r", "500ms");
    /**
     * What {@code --quick} leaves out of the timer suite: {@code BusyHeapBenchmark} beside 30,000,000 resident
     * objects, whose forks spend most of their time filling and collecting that heap.
     */
    static final List<String> TIMER_QUICK = List.of("-p", "residents=0");
    /**
     * JMH settings of a full {@code clockwork bench} run: one fork, 3 x 2 s warmup, 6 x 2 s measurement (the timer
     * figures in docs/benchmarks.md come from the JMH command given there: two forks of 3 + 4 iterations). They
     * override the classes' own annotations (a single-shot benchmark then takes 3 + 6 shots); JMH's bare defaults
     * (5 forks of 5 x 10 s for each rival) would take hours per suite.
     */
    static final List<String> FULL = List.of("-f", "1", "-wi", "3", "-w", "2s", "-i", "6", "-r", "2s");

    /**
     * The delayed-queue suite is not JMH: it runs Redis servers and two client libraries end to end, so it is a
     * harness (a main class) that writes its headline figures in JMH's JSON result shape.
     */
    static final String QUEUE_SUITE = "queue";
    static final String QUEUE_HARNESS = PACKAGE + ".queue.QueueHarness";
    /**
     * Harness settings of {@code --quick}: offer and delivery through the one-message and the batch API, and
     * lateness, one short round each.
     */
    static final List<String> QUEUE_QUICK = List.of("--scenarios", "offer,delivery,offer-batch,delivery-batch,lateness",
            "--rounds", "1",
            "--warmup", "1", "--seconds", "3", "--jit-warmup", "2", "--lateness-seconds", "3",
            "--drain-seconds", "10");
    /**
     * The scale suite is not JMH either: it fills timers and the in-process queue with millions of pending items in
     * one JVM per subject, so it is a harness that writes its headline figures in JMH's JSON result shape.
     */
    static final String SCALE_SUITE = "scale";
    static final String SCALE_HARNESS = PACKAGE + ".scale.ScaleHarness";
    /**
     * The heap of a full scale run, which holds 10,000,000 pending messages in one JVM: fixed, as servers run with
     * large live sets (Kafka's start script sets {@code -Xms} equal to {@code -Xmx}). A heap that starts small keeps
     * G1's old generation above its initiating occupancy while it grows, so concurrent marking runs through the
     * measurement and takes one of two cores; docs/benchmarks.md shows the figures both ways.
     */
    static final List<String> SCALE_JVM = List.of("-Xms8g", "-Xmx8g");
    /** Harness settings of {@code --quick}: 1,000,000 pending and a storm of 100,000, one round. */
    static final List<String> SCALE_QUICK = List.of("--pending", "1000000", "--rounds", "1", "--warmup", "1",
            "--ops", "200000", "--due", "100000", "--storm", "100000");

    private static final int TAIL = 15;

    private final Path jar;
    private final PrintWriter out;
    private final boolean verbose;

    JmhLauncher(Path jar, PrintWriter out, boolean verbose) {
        this.jar = jar;
        this.out = out;
        this.verbose = verbose;
    }

    /**
     * @param suite a suite
     * @return the main class of its harness, or null for a JMH suite
     */
    static String harness(String suite) {
        switch (suite) {
            case QUEUE_SUITE:
                return QUEUE_HARNESS;
            case SCALE_SUITE:
                return SCALE_HARNESS;
            default:
                return null;
        }
    }

    /**
     * @param suite a harness suite
     * @param quick whether it runs with its {@code --quick} settings
     * @return the options of the JVM that runs its harness
     */
    static List<String> jvmOptions(String suite, boolean quick) {
        return suite.equals(SCALE_SUITE) && !quick ? SCALE_JVM : List.of();
    }

    /**
     * Finds the benchmarks jar: the given path, or {@link #DEFAULT_JAR} under the working directory or one of its
     * parents.
     *
     * @param explicit the {@code --jar} option, or null
     * @return the jar
     * @throws CliException if there is none, saying how to build it
     */
    static Path findJar(Path explicit) {
        if (explicit != null) {
            if (!Files.isRegularFile(explicit)) {
                throw new CliException("no benchmarks jar at " + explicit);
            }
            return explicit;
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(DEFAULT_JAR);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new CliException("no " + DEFAULT_JAR + " here or above; build it first: "
                + "mvn -B -q -pl clockwork-benchmarks -am package -DskipTests (or pass --jar PATH)");
    }

    /**
     * @return the suites that have benchmarks in the jar, e.g. {@code [timer]}
     */
    List<String> suites() {
        List<String> lines = new ArrayList<>();
        int exit = launch(List.of("-l"), lines::add);
        if (exit != 0) {
            throw new CliException("cannot list the benchmarks of " + jar + " (exit " + exit + "): "
                    + String.join(" / ", lines.subList(Math.max(0, lines.size() - 3), lines.size())));
        }
        TreeSet<String> suites = new TreeSet<>();
        if (hasClass(QUEUE_HARNESS)) {
            suites.add(QUEUE_SUITE);
        }
        if (hasClass(SCALE_HARNESS)) {
            suites.add(SCALE_SUITE);
        }
        for (String line : lines) {
            String name = line.strip();
            if (name.startsWith(PACKAGE + ".")) {
                String rest = name.substring(PACKAGE.length() + 1);
                int dot = rest.indexOf('.');
                if (dot > 0) {
                    suites.add(rest.substring(0, dot));
                }
            }
        }
        return List.copyOf(suites);
    }

    /**
     * Runs one suite and leaves its results in {@code resultFile}.
     *
     * @param suite      the suite, e.g. {@code timer}
     * @param quick      whether to use {@link #QUICK} settings instead of {@link #FULL}
     * @param resultFile where JMH writes its JSON results
     * @return the JMH (or harness) arguments used, for the report
     * @throws CliException if JMH or the harness fails
     */
    List<String> run(String suite, boolean quick, Path resultFile) {
        if (suite.equals(QUEUE_SUITE)) {
            return runHarness(suite, QUEUE_HARNESS, jvmOptions(suite, quick), quick ? QUEUE_QUICK : List.of(),
                    resultFile, line -> line.startsWith("# ") || line.startsWith("  round ")
                            || line.contains("samples, p50"));
        }
        if (suite.equals(SCALE_SUITE)) {
            return runHarness(suite, SCALE_HARNESS, jvmOptions(suite, quick), quick ? SCALE_QUICK : List.of(),
                    resultFile, line -> !line.startsWith("SLF4J"));
        }
        List<String> args = new ArrayList<>();
        args.add("^" + PACKAGE.replace(".", "\\.") + "\\." + suite + "\\.");
        args.addAll(quick ? QUICK : FULL);
        if (quick && suite.equals("timer")) {
            args.addAll(TIMER_QUICK);
        }
        args.addAll(List.of("-rf", "json", "-rff", resultFile.toString()));
        Deque<String> tail = new ArrayDeque<>();
        String[] current = {"", ""};
        int exit = launch(args, line -> {
            if (tail.size() == TAIL) {
                tail.removeFirst();
            }
            tail.addLast(line);
            if (verbose) {
                out.println(line);
            } else if (line.startsWith("# Benchmark: ")) {
                current[0] = line.substring("# Benchmark: ".length()).replace(PACKAGE + "." + suite + ".", "");
                current[1] = "";
            } else if (line.startsWith("# Parameters: ")) {
                current[1] = " " + line.substring("# Parameters: ".length());
            } else if (line.startsWith("# Run progress: ")) {
                out.println("  [" + line.substring("# Run progress: ".length()) + "] " + current[0] + current[1]);
            } else if (line.startsWith("<failure>") || line.contains("Exception")) {
                out.println("  " + line);
            }
            out.flush();
        });
        if (exit != 0 || !Files.isRegularFile(resultFile)) {
            throw new CliException("JMH failed on suite '" + suite + "' (exit " + exit + "): "
                    + String.join(" / ", tail).strip());
        }
        return args;
    }

    /**
     * Runs a suite's harness ({@code java [jvmOptions] -cp <jar> mainClass [args] --json resultFile}), echoing the
     * lines {@code shown} accepts (all with {@code --verbose}).
     *
     * @return the harness arguments used, for the report
     */
    private List<String> runHarness(String suite, String mainClass, List<String> jvmOptions, List<String> options,
            Path resultFile, java.util.function.Predicate<String> shown) {
        List<String> args = new ArrayList<>(options);
        args.addAll(List.of("--json", resultFile.toString()));
        Deque<String> tail = new ArrayDeque<>();
        List<String> command = new ArrayList<>(jvmOptions);
        command.addAll(List.of("-cp", jar.toString(), mainClass));
        command.addAll(args);
        int exit = launchJava(command, line -> {
            if (tail.size() == TAIL) {
                tail.removeFirst();
            }
            tail.addLast(line);
            if (verbose || shown.test(line)) {
                out.println("  " + line.strip());
                out.flush();
            }
        });
        if (exit != 0 || !Files.isRegularFile(resultFile)) {
            throw new CliException("the " + suite + " harness failed (exit " + exit + "): "
                    + String.join(" / ", tail).strip());
        }
        return args;
    }

    private boolean hasClass(String className) {
        try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar.toFile())) {
            return j.getEntry(className.replace('.', '/') + ".class") != null;
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs {@code java -jar <jar> args}, handing each output line to {@code sink}; returns the exit code. */
    private int launch(List<String> args, java.util.function.Consumer<String> sink) {
        List<String> command = new ArrayList<>(List.of("-jar", jar.toString()));
        command.addAll(args);
        return launchJava(command, sink);
    }

    /** Runs {@code java args}, handing each output line to {@code sink}; returns the exit code. */
    private int launchJava(List<String> args, java.util.function.Consumer<String> sink) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(args);
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new CliException("cannot start " + command.get(0) + ": " + e.getMessage(), e);
        }
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                sink.accept(line);
            }
            return p.waitFor();
        } catch (IOException e) {
            p.destroyForcibly();
            throw new CliException("lost the output of JMH: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new CliException("interrupted", e);
        }
    }
}

package io.clockwork.benchmarks;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the measurement harnesses of every suite share (the ones that are plain {@code main} classes, not JMH):
 * options, one forked JVM per measured rival (as JMH forks one per parameter), collecting the child's result row,
 * and Markdown tables. Not thread-safe; used from {@code main}.
 */
public final class Harness {

    /** A child prints its result as one line starting with this, tab-separated. */
    public static final String ROW = "ROW\t";

    private final Map<String, String> options = new HashMap<>();

    /**
     * @param args     {@code --name value} pairs and {@code --flag}s
     * @param defaults the options known, with their defaults
     */
    public Harness(String[] args, Map<String, String> defaults) {
        options.putAll(defaults);
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--") || !defaults.containsKey(arg.substring(2))) {
                throw new IllegalArgumentException("unknown option '" + arg + "'; known: " + defaults.keySet());
            }
            String key = arg.substring(2);
            boolean flag = i + 1 >= args.length || args[i + 1].startsWith("--");
            options.put(key, flag ? "true" : args[++i]);
        }
    }

    /**
     * @param key an option's name
     * @return its value
     */
    public String get(String key) {
        return options.get(key);
    }

    /**
     * @param key an option's name
     * @return its value as an int
     */
    public int getInt(String key) {
        return Integer.parseInt(options.get(key));
    }

    /**
     * @param key an option whose value is a comma-separated list (e.g. the rivals)
     * @return its items
     */
    public List<String> list(String key) {
        return java.util.Arrays.asList(options.get(key).split(","));
    }

    /**
     * Runs {@code main} in a fresh JVM with the same class path and JVM options, echoes its output, and returns its
     * result rows (without the {@link #ROW} prefix).
     */
    public static List<String[]> fork(Class<?> main, List<String> args) throws IOException, InterruptedException {
        return fork(main, List.of(), args);
    }

    /**
     * As {@link #fork(Class, List)}, with more JVM options after this JVM's; an option among them that selects a
     * garbage collector ({@code -XX:+Use...GC}) replaces any this JVM was started with, since a JVM refuses two.
     */
    public static List<String[]> fork(Class<?> main, List<String> jvmOptions, List<String> args)
            throws IOException, InterruptedException {
        List<String> command = command(main, ManagementFactory.getRuntimeMXBean().getInputArguments(), jvmOptions,
                args);
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<String[]> rows = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(ROW)) {
                    rows.add(line.substring(ROW.length()).split("\t", -1));
                } else {
                    System.out.println("  | " + line);
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0) {
            throw new IllegalStateException(main.getSimpleName() + " child for " + args + " exited with " + exit);
        }
        return rows;
    }

    /**
     * Starts {@code main} in a fresh JVM as {@link #fork(Class, List)} does, without waiting: the caller reads its
     * output, writes its input and ends it (e.g. with {@link Process#destroyForcibly()}, a SIGKILL).
     */
    public static Process spawn(Class<?> main, List<String> args) throws IOException {
        return new ProcessBuilder(command(main, ManagementFactory.getRuntimeMXBean().getInputArguments(), List.of(),
                args)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /**
     * @return the command line of a child JVM: this JVM's java, the inherited options (less those selecting a
     *         collector, when {@code jvmOptions} selects one), {@code jvmOptions}, this class path, main, args
     */
    static List<String> command(Class<?> main, List<String> inherited, List<String> jvmOptions, List<String> args) {
        boolean choosesCollector = jvmOptions.stream().anyMatch(Harness::selectsCollector);
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        for (String option : inherited) {
            if (!(choosesCollector && selectsCollector(option))) {
                command.add(option);
            }
        }
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        return command;
    }

    private static boolean selectsCollector(String option) {
        return option.matches("-XX:[+-]Use[A-Za-z0-9]*GC");
    }

    /** Prints a Markdown table. */
    public static void printTable(List<String> header, List<List<String>> rows) {
        System.out.println("| " + String.join(" | ", header) + " |");
        StringBuilder rule = new StringBuilder("|");
        for (int i = 0; i < header.size(); i++) {
            rule.append(i == 0 ? " --- |" : " ---: |");
        }
        System.out.println(rule);
        for (List<String> row : rows) {
            System.out.println("| " + String.join(" | ", row) + " |");
        }
    }

    /**
     * @param ours   our figure
     * @param theirs the rival's
     * @return ours / theirs with two decimals, or "-" when undefined
     */
    public static String ratio(double ours, double theirs) {
        return theirs == 0 || Double.isNaN(theirs) || Double.isNaN(ours) ? "-" : String.format("%.2f", ours / theirs);
    }
}

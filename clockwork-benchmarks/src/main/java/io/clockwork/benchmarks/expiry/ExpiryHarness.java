package io.clockwork.benchmarks.expiry;

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
 * What the expiry measurement harness needs: options, one forked JVM per measured rival (as JMH forks one per
 * parameter), collecting the child's result row, and Markdown tables. Not thread-safe; used from {@code main}.
 */
final class ExpiryHarness {

    /** A child prints its result as one line starting with this, tab-separated. */
    static final String ROW = "ROW\t";

    private final Map<String, String> options = new HashMap<>();

    /**
     * @param args     {@code --name value} pairs and {@code --flag}s
     * @param defaults the options known, with their defaults
     */
    ExpiryHarness(String[] args, Map<String, String> defaults) {
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

    String get(String key) {
        return options.get(key);
    }

    int getInt(String key) {
        return Integer.parseInt(options.get(key));
    }

    /**
     * Runs {@code main} in a fresh JVM with the same class path and JVM options, echoes its output, and returns its
     * result rows (without the {@link #ROW} prefix).
     */
    static List<String[]> fork(Class<?> main, List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
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

    /** Prints a Markdown table. */
    static void printTable(List<String> header, List<List<String>> rows) {
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

    static String ratio(double ours, double theirs) {
        return theirs == 0 || Double.isNaN(theirs) || Double.isNaN(ours) ? "-" : String.format("%.2f", ours / theirs);
    }
}

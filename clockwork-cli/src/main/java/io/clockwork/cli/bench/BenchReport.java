package io.clockwork.cli.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Writes a suite's results as Markdown: how the run was made, a table of ratios against each rival, and the raw
 * scores. Thread-safe (stateless).
 */
final class BenchReport {

    private BenchReport() {
    }

    /**
     * @param suite      the suite's name, e.g. {@code timer}
     * @param comparison the results
     * @param how        how the run was made (command, JMH settings), one Markdown paragraph
     * @param chart      the chart's file name beside the report, or null
     * @return the Markdown text
     */
    static String render(String suite, Comparison comparison, String how, String chart) {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks: ").append(suite).append(" suite\n\n");
        md.append(how).append("\n\n");
        md.append(String.format(Locale.ROOT, "Machine: %s %s, %d cores, Java %s (%s).%n%n",
                System.getProperty("os.name"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), Runtime.version(), System.getProperty("java.vm.name")));
        if (comparison.rivalParam() != null && !comparison.rivals().isEmpty()) {
            md.append("## Clockwork against each rival\n\n");
            md.append("Each cell is how many times better `").append(comparison.ours())
                    .append("` did than the rival in that column: ours ÷ theirs for throughput, theirs ÷ ours for ")
                    .append("time per operation. Above 1: Clockwork is better; below 1: the rival is.");
            if (comparison.rivals().stream().anyMatch(r -> r.startsWith(Comparison.OURS + "-"))) {
                md.append(" Columns named `").append(Comparison.OURS).append("-...` are Clockwork's other faces ")
                        .append("(e.g. the Kafka-compatible API), shown for what compatibility costs.");
            }
            md.append("\n\n");
            md.append("| benchmark |");
            comparison.rivals().forEach(r -> md.append(" vs ").append(r).append(" |"));
            md.append("\n|---|");
            comparison.rivals().forEach(r -> md.append("---:|"));
            md.append('\n');
            for (Comparison.Row row : comparison.rows()) {
                md.append("| ").append(row.label()).append(" |");
                for (String rival : comparison.rivals()) {
                    double ratio = Comparison.ratio(row, rival);
                    md.append(Double.isNaN(ratio) ? " – |" : String.format(Locale.ROOT, " %.2f× |", ratio));
                }
                md.append('\n');
            }
            md.append('\n');
            if (chart != null) {
                md.append("![").append(suite).append(" ratios](").append(chart).append(")\n\n");
            }
        }
        md.append("## Scores\n\n| benchmark | ")
                .append(comparison.rivalParam() != null ? comparison.rivalParam() : "implementation")
                .append(" | mode | threads | score | error (99.9%) | unit |\n|---|---|---|---:|---:|---:|---|\n");
        for (Comparison.Row row : comparison.rows()) {
            if (row.ours() != null) {
                scoreLine(md, row.label(), comparison.ours() != null ? comparison.ours() : "–", row.ours());
            }
            row.rivals().forEach((rival, r) -> scoreLine(md, row.label(), rival, r));
        }
        return md.toString();
    }

    private static void scoreLine(StringBuilder md, String label, String who, JmhResult r) {
        md.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %s | %s | %s |%n", label, who, r.mode(),
                r.threads(), num(r.score()), Double.isNaN(r.error()) ? "–" : num(r.error()), r.unit()));
    }

    private static String num(double v) {
        double a = Math.abs(v);
        return String.format(Locale.ROOT, a >= 100 ? "%,.0f" : a >= 1 ? "%.2f" : "%.4f", v);
    }

    /**
     * @param file where to write
     * @param text the Markdown
     * @throws IOException if it cannot be written
     */
    static void write(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}

package io.clockwork.cli.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One JMH result: a benchmark method under one set of parameters. Immutable.
 *
 * @param benchmark the fully qualified method, e.g.
 *                  {@code io.clockwork.benchmarks.timer.ScheduleCancelBenchmark.oneProducer}
 * @param mode      JMH's mode: {@code thrpt}, {@code avgt}, {@code sample}, {@code ss}
 * @param threads   benchmark threads
 * @param params    the {@code @Param} values, sorted by name
 * @param score     the primary metric's score
 * @param error     its error (99.9% half-width), NaN when JMH had too few samples
 * @param unit      the score's unit, e.g. {@code ops/us}
 */
record JmhResult(String benchmark, String mode, int threads, Map<String, String> params, double score, double error,
        String unit) {

    /** @return true if a higher score is better (throughput), false for time per operation */
    boolean higherIsBetter() {
        return mode.equals("thrpt");
    }

    /** @return {@code Class.method}, without the package */
    String shortName() {
        String[] parts = benchmark.split("\\.");
        return parts.length < 2 ? benchmark : parts[parts.length - 2] + "." + parts[parts.length - 1];
    }

    /**
     * Reads JMH's JSON result format ({@code -rf json}).
     *
     * @param json the file's text
     * @return the results, in file order
     * @throws IllegalArgumentException if it is not a JMH result file
     */
    @SuppressWarnings("unchecked")
    static List<JmhResult> parseAll(String json) {
        Object root = Json.parse(json);
        if (!(root instanceof List<?> list)) {
            throw new IllegalArgumentException("not a JMH result file: expected a JSON array");
        }
        List<JmhResult> results = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> m) || !(m.get("primaryMetric") instanceof Map<?, ?> metric)) {
                throw new IllegalArgumentException("not a JMH result file: an entry has no primaryMetric");
            }
            Map<String, String> params = new TreeMap<>();
            if (m.get("params") instanceof Map<?, ?> p) {
                p.forEach((k, v) -> params.put(String.valueOf(k), String.valueOf(v)));
            }
            results.add(new JmhResult(String.valueOf(m.get("benchmark")), String.valueOf(m.get("mode")),
                    m.get("threads") instanceof Double d ? d.intValue() : 1, params,
                    number(metric.get("score")), number(metric.get("scoreError")),
                    String.valueOf(metric.get("scoreUnit"))));
        }
        return results;
    }

    private static double number(Object o) {
        if (o instanceof Double d) {
            return d;
        }
        if (o instanceof String s) {
            try {
                return Double.parseDouble(s);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }
}

package io.clockwork.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * JMH results arranged as Clockwork against each rival: one row per benchmark and parameter set, one column per
 * rival. Immutable.
 *
 * <p>The benchmarks of {@code clockwork-benchmarks} take the implementation as a {@code @Param} (for the timers,
 * {@code timer = clockwork | kafka | netty | ...}); the rival parameter is recognised as the one with a value
 * {@code clockwork}, so new suites need no change here. A ratio is oriented so that above 1 means Clockwork is
 * better: ours ÷ theirs for throughput, theirs ÷ ours for time per operation.
 */
final class Comparison {

    /** The value of the rival parameter that is Clockwork's own engine. */
    static final String OURS = "clockwork";

    /** One benchmark under one parameter set (rival aside). */
    record Row(String label, JmhResult ours, Map<String, JmhResult> rivals) {
    }

    private final String rivalParam;
    private final String ours;
    private final List<String> rivals;
    private final List<Row> rows;

    private Comparison(String rivalParam, String ours, List<String> rivals, List<Row> rows) {
        this.rivalParam = rivalParam;
        this.ours = ours;
        this.rivals = rivals;
        this.rows = rows;
    }

    /**
     * @param results JMH results
     * @return the comparison (without ratios if no parameter names Clockwork)
     */
    static Comparison of(List<JmhResult> results) {
        // Each benchmark class names its implementation parameter as it likes (timer, map, tracker, queue): find it
        // per benchmark, as the parameter that takes the value "clockwork" (else a value starting with it).
        Map<String, Map<String, Set<String>>> valuesByBenchmark = new LinkedHashMap<>();
        for (JmhResult r : results) {
            Map<String, Set<String>> values = valuesByBenchmark.computeIfAbsent(r.benchmark(), b -> new TreeMap<>());
            r.params().forEach((k, v) -> values.computeIfAbsent(k, x -> new LinkedHashSet<>()).add(v));
        }
        Map<String, String[]> rivalParamByBenchmark = new LinkedHashMap<>();
        valuesByBenchmark.forEach((benchmark, values) -> {
            String[] found = findRivalParam(values);
            if (found != null) {
                rivalParamByBenchmark.put(benchmark, found);
            }
        });
        Set<String> paramNames = new LinkedHashSet<>();
        Set<String> oursValues = new LinkedHashSet<>();
        Set<String> rivals = new LinkedHashSet<>();
        rivalParamByBenchmark.forEach((benchmark, found) -> {
            paramNames.add(found[0]);
            oursValues.add(found[1]);
            valuesByBenchmark.get(benchmark).get(found[0]).stream().filter(v -> !v.equals(found[1]))
                    .forEach(rivals::add);
        });
        Map<String, JmhResult> oursByRow = new LinkedHashMap<>();
        Map<String, Map<String, JmhResult>> rivalsByRow = new LinkedHashMap<>();
        Map<String, String> labels = new LinkedHashMap<>();
        for (JmhResult r : results) {
            String[] found = rivalParamByBenchmark.get(r.benchmark());
            Map<String, String> rest = new TreeMap<>(r.params());
            String who = found == null ? null : rest.remove(found[0]);
            String key = r.benchmark() + "|" + r.mode() + "|" + r.threads() + "|" + rest;
            labels.putIfAbsent(key, r.shortName() + (rest.isEmpty() ? "" : " " + rest.toString().replace("{", "(")
                    .replace("}", ")")));
            rivalsByRow.computeIfAbsent(key, k -> new LinkedHashMap<>());
            if (who == null || who.equals(found[1])) {
                oursByRow.put(key, r);
            } else {
                rivalsByRow.get(key).put(who, r);
            }
        }
        List<Row> rows = new ArrayList<>();
        labels.forEach((key, label) -> rows.add(new Row(label, oursByRow.get(key), rivalsByRow.get(key))));
        String param = paramNames.isEmpty() ? null : paramNames.size() == 1 ? paramNames.iterator().next()
                : "implementation";
        String ours = oursValues.size() == 1 ? oursValues.iterator().next() : OURS;
        return new Comparison(param, ours, List.copyOf(rivals), List.copyOf(rows));
    }

    /** @return {parameter, Clockwork's value}, or null if no parameter names Clockwork */
    private static String[] findRivalParam(Map<String, Set<String>> values) {
        for (Map.Entry<String, Set<String>> e : values.entrySet()) {
            if (e.getValue().contains(OURS)) {
                return new String[] {e.getKey(), OURS};
            }
        }
        for (Map.Entry<String, Set<String>> e : values.entrySet()) {
            for (String v : e.getValue()) {
                if (v.startsWith(OURS)) {
                    return new String[] {e.getKey(), v};
                }
            }
        }
        return null;
    }

    /** @return the parameter naming the implementation ("implementation" if benchmarks differ), or null if none */
    String rivalParam() {
        return rivalParam;
    }

    /** @return Clockwork's value of that parameter */
    String ours() {
        return ours;
    }

    /** @return the rivals, in the order the benchmarks list them */
    List<String> rivals() {
        return rivals;
    }

    /** @return the rows */
    List<Row> rows() {
        return rows;
    }

    /**
     * @param row   a row
     * @param rival a rival
     * @return how many times better Clockwork did (above 1: Clockwork wins), or NaN if either result is missing
     */
    static double ratio(Row row, String rival) {
        JmhResult theirs = row.rivals().get(rival);
        if (row.ours() == null || theirs == null || theirs.score() <= 0 || row.ours().score() <= 0) {
            return Double.NaN;
        }
        return row.ours().higherIsBetter() ? row.ours().score() / theirs.score()
                : theirs.score() / row.ours().score();
    }
}

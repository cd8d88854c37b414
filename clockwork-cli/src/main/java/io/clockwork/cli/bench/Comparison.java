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
        String param = null;
        String oursValue = null;
        Map<String, Set<String>> values = new TreeMap<>();
        for (JmhResult r : results) {
            r.params().forEach((k, v) -> values.computeIfAbsent(k, x -> new LinkedHashSet<>()).add(v));
        }
        for (Map.Entry<String, Set<String>> e : values.entrySet()) {
            if (e.getValue().contains(OURS)) {
                param = e.getKey();
                oursValue = OURS;
                break;
            }
        }
        if (param == null) {
            for (Map.Entry<String, Set<String>> e : values.entrySet()) {
                for (String v : e.getValue()) {
                    if (param == null && v.startsWith(OURS)) {
                        param = e.getKey();
                        oursValue = v;
                    }
                }
            }
        }
        List<String> rivals = new ArrayList<>();
        if (param != null) {
            for (String v : values.get(param)) {
                if (!v.equals(oursValue)) {
                    rivals.add(v);
                }
            }
        }
        Map<String, JmhResult> oursByRow = new LinkedHashMap<>();
        Map<String, Map<String, JmhResult>> rivalsByRow = new LinkedHashMap<>();
        Map<String, String> labels = new LinkedHashMap<>();
        for (JmhResult r : results) {
            Map<String, String> rest = new TreeMap<>(r.params());
            String who = param == null ? null : rest.remove(param);
            String key = r.benchmark() + "|" + r.mode() + "|" + r.threads() + "|" + rest;
            labels.putIfAbsent(key, r.shortName() + (rest.isEmpty() ? "" : " " + rest.toString().replace("{", "(")
                    .replace("}", ")")));
            rivalsByRow.computeIfAbsent(key, k -> new LinkedHashMap<>());
            if (who == null || who.equals(oursValue)) {
                oursByRow.put(key, r);
            } else {
                rivalsByRow.get(key).put(who, r);
            }
        }
        List<Row> rows = new ArrayList<>();
        labels.forEach((key, label) -> rows.add(new Row(label, oursByRow.get(key), rivalsByRow.get(key))));
        return new Comparison(param, oursValue, List.copyOf(rivals), List.copyOf(rows));
    }

    /** @return the parameter naming the implementation, or null if none names Clockwork */
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

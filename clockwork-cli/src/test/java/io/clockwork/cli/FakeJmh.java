package io.clockwork.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A stand-in for the benchmarks jar's JMH main, for tests of {@code clockwork bench} that must not run JMH: it lists
 * one timer benchmark ({@code -l}) and, when run, writes one result per rival to the {@code -rff} file.
 */
public final class FakeJmh {

    private FakeJmh() {
    }

    /** @param args JMH's arguments, as {@code clockwork bench} passes them */
    public static void main(String[] args) throws Exception {
        List<String> a = List.of(args);
        if (a.contains("-l")) {
            System.out.println("Benchmarks: ");
            System.out.println("io.clockwork.benchmarks.timer.ScheduleCancelBenchmark.oneProducer");
            return;
        }
        Path results = Path.of(a.get(a.indexOf("-rff") + 1));
        Files.writeString(results, """
                [
                  {"benchmark": "io.clockwork.benchmarks.timer.ScheduleCancelBenchmark.oneProducer",
                   "mode": "thrpt", "threads": 1, "params": {"timer": "clockwork"},
                   "primaryMetric": {"score": 20.0, "scoreError": 1.5, "scoreUnit": "ops/us"}},
                  {"benchmark": "io.clockwork.benchmarks.timer.ScheduleCancelBenchmark.oneProducer",
                   "mode": "thrpt", "threads": 1, "params": {"timer": "kafka"},
                   "primaryMetric": {"score": 5.0, "scoreError": 0.5, "scoreUnit": "ops/us"}}
                ]
                """, StandardCharsets.UTF_8);
    }
}

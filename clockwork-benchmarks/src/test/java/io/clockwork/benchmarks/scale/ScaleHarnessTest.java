package io.clockwork.benchmarks.scale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The scale harness, run in this JVM at tiny sizes, reports every row of its tables, the storm's with its control
 * round (a few seconds).
 */
class ScaleHarnessTest {

    private static final String RATE = "[1-9][0-9,]*";
    private static final String MILLIS = "[0-9]+\\.[0-9]{2} \\([0-9]+\\.[0-9]{2}\\)";

    @Test
    void tinyRunReportsEveryRateHeapStormAndRedisRow(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("scale.json");
        String md = ScaleHarness.run(new String[] {"--pending", "1000", "--small", "100", "--rounds", "1",
            "--warmup", "1", "--ops", "2000", "--cycle", "100", "--due", "1000", "--storm", "10000",
            "--fork", "false", "--json", json.toString()});

        for (String subject : Subject.ALL) {
            List<String> ops = subject.equals(Subject.QUEUE) ? List.of("offer", "cancel", "delivery")
                    : List.of("schedule", "cancel", "expiry");
            for (String op : ops) {
                assertThat(md).containsPattern(Pattern.compile("(?m)^\\| " + Pattern.quote(subject) + " \\| " + op
                        + " \\| " + RATE + " \\| " + RATE + " \\| [0-9]+\\.[0-9]{2}x \\| (yes|\\*\\*no\\*\\*) \\|$"));
            }
            assertThat(md).containsPattern(Pattern.compile("(?m)^\\| " + Pattern.quote(subject)
                    + " \\| -?[0-9]+\\.[0-9] \\| [0-9,]+ \\| (-|[0-9.-]+) \\|$"));
            for (String age : List.of("young", "tenured")) {
                assertThat(md).containsPattern(Pattern.compile("(?m)^\\| " + Pattern.quote(subject) + " \\| "
                        + Pattern.quote(GarbageCollectors.current()) + " \\| " + age + " \\| [^|]+ \\| "
                        + "[0-9]+\\.[0-9] \\| " + RATE + " \\| " + MILLIS + " \\| " + MILLIS + " \\| " + MILLIS
                        + " \\| [0-9,]+ \\| [0-9]+ \\| " + MILLIS + " \\| " + MILLIS + " \\| [0-9]+ \\|$"));
            }
        }
        // the Redis queue on a real redis-server: its three rates and its used_memory per message
        for (String op : List.of("offer", "cancel", "delivery")) {
            assertThat(md).containsPattern(Pattern.compile("(?m)^\\| redis-queue \\| " + op + " \\| " + RATE
                    + " \\| " + RATE + " \\| [0-9]+\\.[0-9]{2}x \\| (yes|\\*\\*no\\*\\*) \\|$"));
        }
        assertThat(md).containsPattern(Pattern.compile("(?m)^\\| redis-queue \\| [1-9][0-9]*\\.[0-9] \\| "
                + "-?[0-9]+\\.[0-9] \\| 1,000 \\|$"));

        // four tables, one row per subject (rates: one per operation; storm: one per age of the items), nothing else
        assertThat(md.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| subject")
                && !l.startsWith("| ---")).count())
                .isEqualTo(Subject.ALL.size() * 3 + Subject.ALL.size() + 2 * Subject.ALL.size() + 3 + 1);

        // per subject: each operation at both counts plus its scaling ratio, the bytes, both storms' longest gaps
        // with and without the probe's time off core; the Redis queue: its operations at both counts with their
        // ratios, and its bytes
        Matcher benchmarks = Pattern.compile("\"benchmark\": ").matcher(Files.readString(json));
        assertThat(benchmarks.results().count()).isEqualTo(Subject.ALL.size() * (3 * 3 + 1 + 4) + 3 * 3 + 1);
    }

    @Test
    void stormRunsOnceUnderEachCollectorAskedForEachInItsOwnJvm(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("storm.json");
        String md = ScaleHarness.run(new String[] {"--pending", "1000", "--small", "100", "--rounds", "1",
            "--storm", "2000", "--parts", "storm", "--subjects", Subject.CLOCKWORK, "--collectors", "Serial,G1",
            "--json", json.toString()});

        for (String collector : List.of("Serial", "G1")) {
            for (String age : List.of("young", "tenured")) {
                assertThat(md).containsPattern(Pattern.compile("(?m)^\\| " + Subject.CLOCKWORK + " \\| " + collector
                        + " \\| " + age + " \\| "));
            }
        }
        assertThat(md.lines().filter(l -> l.startsWith("| " + Subject.CLOCKWORK + " |")).count()).isEqualTo(4);
        String results = Files.readString(json);
        for (String collector : List.of("Serial", "G1")) {
            assertThat(Pattern.compile("\"collector\": \"" + collector + "\"").matcher(results).results().count())
                    .isEqualTo(4);
        }
    }

    @Test
    void refusesAnUnknownCollector() {
        assertThatThrownBy(() -> ScaleHarness.run(new String[] {"--parts", "storm", "--collectors", "G1,Epsilon"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Epsilon")
                .hasMessageContaining("Shenandoah");
    }
}

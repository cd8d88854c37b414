package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code clockwork bench}: reporting JMH results, and where a run writes its reports (running JMH itself is too slow
 * for a unit test: a stand-in jar plays it).
 */
class BenchCommandTest {

    private static final String RESULTS = """
            [
              {"jmhVersion": "1.37", "benchmark": "io.clockwork.benchmarks.timer.ScheduleCancelBenchmark.oneProducer",
               "mode": "thrpt", "threads": 1, "forks": 1,
               "params": {"pending": "1000", "timer": "clockwork"},
               "primaryMetric": {"score": 20.0, "scoreError": 1.5, "scoreUnit": "ops/us"}},
              {"benchmark": "io.clockwork.benchmarks.timer.ScheduleCancelBenchmark.oneProducer",
               "mode": "thrpt", "threads": 1, "params": {"pending": "1000", "timer": "kafka"},
               "primaryMetric": {"score": 5.0, "scoreError": "NaN", "scoreUnit": "ops/us"}},
              {"benchmark": "io.clockwork.benchmarks.timer.ScheduleCancelBenchmark.oneProducer",
               "mode": "thrpt", "threads": 1, "params": {"pending": "1000", "timer": "netty"},
               "primaryMetric": {"score": 40.0, "scoreError": 2.0, "scoreUnit": "ops/us"}},
              {"benchmark": "io.clockwork.benchmarks.timer.PurgatoryBenchmark.latency",
               "mode": "avgt", "threads": 1, "params": {"timer": "clockwork"},
               "primaryMetric": {"score": 2.0, "scoreError": 0.1, "scoreUnit": "us/op"}},
              {"benchmark": "io.clockwork.benchmarks.timer.PurgatoryBenchmark.latency",
               "mode": "avgt", "threads": 1, "params": {"timer": "kafka"},
               "primaryMetric": {"score": 6.0, "scoreError": 0.3, "scoreUnit": "us/op"}}
            ]
            """;

    @Test
    void reportsRatiosOursOverTheirsAndDrawsAChart(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("jmh.json");
        Files.writeString(json, RESULTS);
        Cli.Result r = Cli.run("bench", "--results", json.toString(), "--out", dir.resolve("docs").toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("wrote ", "bench-timer.md", "bench-timer.png",
                "ScheduleCancelBenchmark.oneProducer (pending=1000):  4.00x vs kafka  0.50x vs netty",
                "PurgatoryBenchmark.latency:  3.00x vs kafka");

        String md = Files.readString(dir.resolve("docs/bench-timer.md"));
        assertThat(md).contains("# Benchmarks: timer suite",
                "| benchmark | vs kafka | vs netty |",
                "| ScheduleCancelBenchmark.oneProducer (pending=1000) | 4.00× | 0.50× |",
                "| PurgatoryBenchmark.latency | 3.00× | – |",
                "![timer ratios](bench-timer.png)",
                "| ScheduleCancelBenchmark.oneProducer (pending=1000) | kafka | thrpt | 1 | 5.00 | – | ops/us |");
        byte[] png = Files.readAllBytes(dir.resolve("docs/bench-timer.png"));
        assertThat(png).hasSizeGreaterThan(1000);
        assertThat(new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("PNG");
    }

    @Test
    void findsTheImplementationParameterOfEachBenchmarkWhateverItsName(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("expiry.json");
        Files.writeString(json, """
                [
                  {"benchmark": "io.clockwork.benchmarks.expiry.RotatingMapBenchmark.getOrPut", "mode": "thrpt",
                   "threads": 1, "params": {"map": "clockwork"},
                   "primaryMetric": {"score": 30.0, "scoreError": 1.0, "scoreUnit": "ops/us"}},
                  {"benchmark": "io.clockwork.benchmarks.expiry.RotatingMapBenchmark.getOrPut", "mode": "thrpt",
                   "threads": 1, "params": {"map": "storm"},
                   "primaryMetric": {"score": 10.0, "scoreError": 1.0, "scoreUnit": "ops/us"}},
                  {"benchmark": "io.clockwork.benchmarks.expiry.SessionTouchBenchmark.touchSession", "mode": "thrpt",
                   "threads": 1, "params": {"tracker": "clockwork", "timeoutMs": "2000"},
                   "primaryMetric": {"score": 8.0, "scoreError": 1.0, "scoreUnit": "ops/us"}},
                  {"benchmark": "io.clockwork.benchmarks.expiry.SessionTouchBenchmark.touchSession", "mode": "thrpt",
                   "threads": 1, "params": {"tracker": "zookeeper", "timeoutMs": "2000"},
                   "primaryMetric": {"score": 2.0, "scoreError": 1.0, "scoreUnit": "ops/us"}}
                ]
                """);
        Cli.Result r = Cli.run("bench", "expiry", "--results", json.toString(), "--out", dir.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        String md = Files.readString(dir.resolve("bench-expiry.md"));
        assertThat(md).contains("| benchmark | vs storm | vs zookeeper |",
                "| RotatingMapBenchmark.getOrPut | 3.00× | – |",
                "| SessionTouchBenchmark.touchSession (timeoutMs=2000) | – | 4.00× |",
                "| benchmark | implementation | mode |");
        assertThat(dir.resolve("bench-expiry.png")).isRegularFile();
    }

    @Test
    void queueHarnessResultsAreReportedLikeJmhOnesWithLatencyLowerIsBetter(@TempDir Path dir) throws Exception {
        // the shape QueueHarness --json writes: throughput as thrpt, lateness p99 as avgt (time: lower is better)
        Path json = dir.resolve("queue.json");
        Files.writeString(json, """
                [
                {"benchmark": "io.clockwork.benchmarks.queue.QueueHarness.offer", "mode": "thrpt", "threads": 1,
                 "params": {"queue": "clockwork"}, "primaryMetric": {"score": 45000.0, "scoreError": "NaN",
                 "scoreUnit": "ops/s"}},
                {"benchmark": "io.clockwork.benchmarks.queue.QueueHarness.offer", "mode": "thrpt", "threads": 1,
                 "params": {"queue": "redisson"}, "primaryMetric": {"score": 30000.0, "scoreError": "NaN",
                 "scoreUnit": "ops/s"}},
                {"benchmark": "io.clockwork.benchmarks.queue.QueueHarness.latenessP99", "mode": "avgt", "threads": 1,
                 "params": {"queue": "clockwork"}, "primaryMetric": {"score": 2.0, "scoreError": "NaN",
                 "scoreUnit": "ms"}},
                {"benchmark": "io.clockwork.benchmarks.queue.QueueHarness.latenessP99", "mode": "avgt", "threads": 1,
                 "params": {"queue": "redisson"}, "primaryMetric": {"score": 60.0, "scoreError": "NaN",
                 "scoreUnit": "ms"}}
                ]
                """);
        Cli.Result r = Cli.run("bench", "queue", "--results", json.toString(), "--out", dir.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        String md = Files.readString(dir.resolve("bench-queue.md"));
        assertThat(md).contains("| benchmark | vs redisson |", "| QueueHarness.offer | 1.50× |",
                "| QueueHarness.latenessP99 | 30.00× |");
        assertThat(dir.resolve("bench-queue.png")).isRegularFile();
    }

    @Test
    void scaleHarnessResultsAreReportedWithBytesLowerIsBetter(@TempDir Path dir) throws Exception {
        // the shape ScaleHarness --json writes: rates as thrpt with the pending count, bytes per item as avgt
        Path json = dir.resolve("scale.json");
        Files.writeString(json, """
                [
                {"benchmark": "io.clockwork.benchmarks.scale.ScaleHarness.schedule", "mode": "thrpt", "threads": 1,
                 "params": {"timer": "clockwork", "pending": "10000000"}, "primaryMetric": {"score": 9000000.0,
                 "scoreError": "NaN", "scoreUnit": "ops/s"}},
                {"benchmark": "io.clockwork.benchmarks.scale.ScaleHarness.schedule", "mode": "thrpt", "threads": 1,
                 "params": {"timer": "netty", "pending": "10000000"}, "primaryMetric": {"score": 3000000.0,
                 "scoreError": "NaN", "scoreUnit": "ops/s"}},
                {"benchmark": "io.clockwork.benchmarks.scale.ScaleHarness.bytesPerPending", "mode": "avgt",
                 "threads": 1, "params": {"timer": "clockwork"}, "primaryMetric": {"score": 40.0,
                 "scoreError": "NaN", "scoreUnit": "B"}},
                {"benchmark": "io.clockwork.benchmarks.scale.ScaleHarness.bytesPerPending", "mode": "avgt",
                 "threads": 1, "params": {"timer": "netty"}, "primaryMetric": {"score": 56.0,
                 "scoreError": "NaN", "scoreUnit": "B"}}
                ]
                """);
        Cli.Result r = Cli.run("bench", "scale", "--results", json.toString(), "--out", dir.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        String md = Files.readString(dir.resolve("bench-scale.md"));
        assertThat(md).contains("| benchmark | vs netty |", "| ScaleHarness.schedule (pending=10000000) | 3.00× |",
                "| ScaleHarness.bytesPerPending | 1.40× |");
    }

    @Test
    void aRunWithoutOutWritesIntoANewTemporaryDirectoryNotTheCheckoutsDocs(@TempDir Path dir) throws Exception {
        Path repo = dir.resolve("repo");
        Path jar = fakeBenchmarksJar(Files.createDirectories(repo.resolve("clockwork-benchmarks/target"))
                .resolve("benchmarks.jar"));
        Path docs = Files.createDirectories(repo.resolve("docs"));
        for (String file : new String[] {"bench-timer.md", "bench-timer.json", "bench-timer.png"}) {
            Files.writeString(docs.resolve(file), "committed");
        }

        Cli.Result r = Cli.run("bench", "timer", "--quick", "--jar", jar.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        for (String file : new String[] {"bench-timer.md", "bench-timer.json", "bench-timer.png"}) {
            assertThat(docs.resolve(file)).hasContent("committed");
        }
        Matcher m = Pattern.compile("reports go to (\\S+) ").matcher(r.out());
        assertThat(m.find()).as(r.out()).isTrue();
        Path out = Path.of(m.group(1));
        try {
            assertThat(out).isDirectory().isNotEqualTo(docs);
            assertThat(r.out()).contains("wrote " + out.resolve("bench-timer.md"));
            assertThat(Files.readString(out.resolve("bench-timer.md"))).contains("4.00×",
                    "--results bench-timer.json");
            assertThat(out.resolve("bench-timer.json")).isRegularFile();
        } finally {
            for (String file : new String[] {"bench-timer.md", "bench-timer.json", "bench-timer.png"}) {
                Files.deleteIfExists(out.resolve(file));
            }
            Files.deleteIfExists(out);
        }
    }

    @Test
    void aRunWritesIntoTheDirectoryOutNamesCreatingIt(@TempDir Path dir) throws Exception {
        Path jar = fakeBenchmarksJar(dir.resolve("benchmarks.jar"));
        Path out = dir.resolve("reports/timer");
        Cli.Result r = Cli.run("bench", "timer", "--quick", "--jar", jar.toString(), "--out", out.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(out.resolve("bench-timer.md")).isRegularFile();
        assertThat(out.resolve("bench-timer.json")).isRegularFile();
    }

    @Test
    void reportingResultsWithoutOutWritesIntoANewTemporaryDirectory(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("jmh.json");
        Files.writeString(json, RESULTS);
        Cli.Result r = Cli.run("bench", "--results", json.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        Matcher m = Pattern.compile("wrote (\\S+)bench-timer\\.md").matcher(r.out());
        assertThat(m.find()).as(r.out()).isTrue();
        Path out = Path.of(m.group(1));
        try {
            assertThat(out.toAbsolutePath()).isNotEqualTo(Path.of("docs").toAbsolutePath());
            assertThat(r.out()).contains("reports go to " + out);
        } finally {
            Files.deleteIfExists(out.resolve("bench-timer.md"));
            Files.deleteIfExists(out.resolve("bench-timer.png"));
            Files.deleteIfExists(out);
        }
    }

    /** Writes a jar with no classes whose manifest runs {@link FakeJmh} from this test run's class path. */
    private static Path fakeBenchmarksJar(Path jar) throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.put(Attributes.Name.MAIN_CLASS, FakeJmh.class.getName());
        main.put(Attributes.Name.CLASS_PATH, Arrays.stream(classPath.split(File.pathSeparator))
                .filter(s -> !s.isBlank())
                .map(s -> Path.of(s).toAbsolutePath().toUri().toString())
                .collect(Collectors.joining(" ")));
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            j.flush();
        }
        return jar;
    }

    @Test
    void missingJarIsAFailureThatSaysHowToBuildIt(@TempDir Path dir) {
        Cli.Result r = Cli.run("bench", "timer", "--quick", "--jar", dir.resolve("nope.jar").toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("no benchmarks jar at");
    }

    @Test
    void unreadableResultsAreAFailure(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("broken.json");
        Files.writeString(json, "{not json");
        Cli.Result r = Cli.run("bench", "--results", json.toString(), "--out", dir.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("broken.json");
    }

    @Test
    void unknownSuiteIsBadUsage() {
        Cli.Result r = Cli.run("bench", "timers");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("timers");
    }
}

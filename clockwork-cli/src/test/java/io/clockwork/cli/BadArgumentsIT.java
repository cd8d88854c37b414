package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Codec;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Values the library refuses are bad usage (exit 2) in one line that names the option, on every command, and an
 * argument the JVM could not decode is refused rather than used with U+FFFD in it.
 */
@ExtendWith(RedisExtension.class)
class BadArgumentsIT {

    @TempDir
    Path dir;

    private String uri;

    @BeforeEach
    void seed(RedisServerProcess redis) {
        uri = redis.uri();
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "orders", Codec.string()).build()) {
            q.offer("o-1", "pay 10", Duration.ofHours(1));
        }
    }

    private static void assertBadUsage(Cli.Result r, String... names) {
        assertThat(r.exit()).as(r.err()).isEqualTo(2);
        assertThat(r.errLines()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains(names).contains("--help").doesNotContain("Exception");
    }

    @Test
    void anIdOverTheLimitIsBadUsageNamingTheParameterAndTheLimit() {
        String id = "x".repeat(257);
        assertBadUsage(Cli.run("queue", "cancel", "--redis", uri, "--queue", "orders", id),
                "(ID)", "id must be at most 256 UTF-8 bytes, was 257");
        assertBadUsage(Cli.run("queue", "requeue-dead", "--redis", uri, "--queue", "orders", "é".repeat(129)),
                "(ID)", "id must be at most 256 UTF-8 bytes, was 258");
    }

    @Test
    void anEmptyIdIsBadUsage() {
        assertBadUsage(Cli.run("queue", "cancel", "--redis", uri, "--queue", "orders", ""),
                "(ID)", "id must not be empty");
        assertBadUsage(Cli.run("queue", "requeue-dead", "--redis", uri, "--queue", "orders", ""),
                "(ID)", "id must not be empty");
    }

    @Test
    void anEmptyOrBlankQueueNameIsBadUsageOnEveryCommandThatTakesOne() {
        for (String name : new String[] {"", "  "}) {
            for (List<String> command : List.of(List.of("queue", "stats"), List.of("queue", "list"),
                    List.of("queue", "peek"), List.of("queue", "cancel", "o-1"), List.of("queue", "purge-dead"),
                    List.of("schedule", "list"), List.of("schedule", "pause", "daily"))) {
                List<String> args = new ArrayList<>(command);
                args.addAll(List.of("--redis", uri, "--queue", name));
                assertBadUsage(Cli.run(args.toArray(String[]::new)), "'--queue'",
                        "name must be 1 to 200 non-blank characters");
            }
        }
    }

    @Test
    void anArgumentTheJvmCouldNotDecodeIsRefusedNamingItsOption() {
        assertBadUsage(Cli.run("queue", "stats", "--redis", uri, "--queue", "ord\uFFFDrs"), "'--queue'",
                "cannot decode", "UTF-8");
        assertBadUsage(Cli.run("queue", "cancel", "--redis", uri, "--queue", "orders", "o-\uFFFD"), "(ID)",
                "cannot decode");
        assertBadUsage(Cli.run("queue", "stats", "--redis-file", dir.resolve("u\uFFFD").toString(), "--queue",
                "orders"), "'--redis-file'", "cannot decode");
        assertBadUsage(Cli.run("demo", "--queue", "demo-\uFFFD"), "'--queue'", "cannot decode");
        assertBadUsage(Cli.run("queue", "stats", "--redis", uri, "--queue", "sur\uD800"), "'--queue'",
                "unpaired surrogate");
    }

    @Test
    void aNonUtf8ByteOnARealCommandLineIsRefusedNotReplaced() throws Exception {
        // The shell passes the byte 0xFF, which is not UTF-8: the JVM decodes it as U+FFFD.
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c",
                "exec \"$@\" \"$(printf 'o-\\377')\"", "sh",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classPath,
                ClockworkCli.class.getName(), "queue", "cancel", "--redis", uri, "--queue", "orders"));
        Path err = dir.resolve("err.txt");
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(err.toFile())
                .redirectOutput(dir.resolve("out.txt").toFile());
        pb.environment().put("LANG", "C.UTF-8");
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(stderr).isEqualTo(2);
        assertThat(stderr).contains("(ID)", "cannot decode");
    }
}

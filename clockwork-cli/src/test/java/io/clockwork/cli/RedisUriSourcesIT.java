package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Codec;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Redis URI from {@code --redis}, {@code --redis-file} or {@code CLOCKWORK_REDIS_URI}, their precedence, and a
 * password that never shows in an error, against a real redis-server with an ACL user.
 */
@ExtendWith(RedisExtension.class)
class RedisUriSourcesIT {

    private static final String PASSWORD = "s3cret-pw";
    private static final String ENV = RedisOptions.ENV;

    @TempDir
    Path dir;

    private RedisServerProcess redis;
    private String uri;
    private String withPassword;

    /** An ACL user with a password, and a queue 'orders' holding one delayed message. */
    @BeforeEach
    void seed(RedisServerProcess redis) {
        this.redis = redis;
        uri = redis.uri();
        withPassword = "redis://ops:" + PASSWORD + "@127.0.0.1:" + redis.port();
        redis.call("ACL", "SETUSER", "ops", "reset", "on", ">" + PASSWORD, "~*", "&*", "+@all");
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "orders", Codec.string()).build()) {
            q.offer("order-1", "pay 10", Duration.ofHours(1));
        }
    }

    private Path file(String content, String permissions) throws IOException {
        Path f = Files.createTempFile(dir, "redis-uri", ".txt");
        Files.writeString(f, content, StandardCharsets.UTF_8);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(permissions));
        }
        return f;
    }

    private static String closed() {
        return "redis://127.0.0.1:" + Cli.closedPort();
    }

    @Test
    void theUriComesFromTheEnvironment() {
        Cli.Result r = Cli.run(Map.of(ENV, withPassword), "queue", "stats", "--queue", "orders");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("queue 'orders' on 127.0.0.1:" + redis.port()).containsPattern("delayed +1\\b")
                .doesNotContain(PASSWORD);
    }

    @Test
    void theUriComesFromTheFirstLineOfAFileTrimmed() throws IOException {
        Path f = file("  " + withPassword + "  \nredis://ignored:1\n", "rw-------");
        Cli.Result r = Cli.run("queue", "stats", "--queue", "orders", "--redis-file", f.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("delayed +1\\b").doesNotContain(PASSWORD);
    }

    @Test
    void redisWinsOverTheFileWhichWinsOverTheEnvironment() throws IOException {
        Path good = file(withPassword + "\n", "rw-------");
        Path bad = file(closed() + "\n", "rw-------");

        Cli.Result redisOverFile = Cli.run(Map.of(ENV, closed()), "queue", "stats", "--queue", "orders",
                "--redis", uri, "--redis-file", bad.toString());
        assertThat(redisOverFile.exit()).as(redisOverFile.err()).isZero();

        Cli.Result fileOverEnv = Cli.run(Map.of(ENV, closed()), "queue", "stats", "--queue", "orders",
                "--redis-file", good.toString());
        assertThat(fileOverEnv.exit()).as(fileOverEnv.err()).isZero();

        String unreachable = closed();
        Cli.Result redisOverEnv = Cli.run(Map.of(ENV, uri), "queue", "stats", "--queue", "orders",
                "--redis", unreachable);
        assertThat(redisOverEnv.exit()).isEqualTo(1);
        assertThat(redisOverEnv.err()).contains("cannot reach Redis at " + unreachable.substring(8));
    }

    @Test
    void noServerAnywhereIsBadUsageNamingTheThreeSources() {
        Cli.Result r = Cli.run("queue", "stats", "--queue", "orders");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("--redis URI", "--redis-file PATH", ENV);
    }

    @Test
    void anUnusableFileIsBadUsageInOneLine() throws IOException {
        Path missing = dir.resolve("nope.txt");
        Cli.Result r = Cli.run("queue", "stats", "--queue", "orders", "--redis-file", missing.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("--redis-file " + missing + ": no such file");

        Path empty = file("\n\n", "rw-------");
        r = Cli.run("queue", "stats", "--queue", "orders", "--redis-file", empty.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("--redis-file " + empty + ": the file's first line is empty");
    }

    @Test
    void aFileThatOthersCanReadIsRefusedAsTheDashboardsPasswordFileIs() throws IOException {
        if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return; // no POSIX permissions to check
        }
        for (String content : new String[] {withPassword, uri}) {
            for (String permissions : new String[] {"rw-r--r--", "rw-r-----", "rw----r--"}) {
                Path open = file(content + "\n", permissions);
                Cli.Result r = Cli.run("queue", "stats", "--queue", "orders", "--redis-file", open.toString());
                assertThat(r.exit()).as(permissions + " " + r.err()).isEqualTo(2);
                assertThat(r.errLines()).isEqualTo(1);
                assertThat(r.err()).contains("--redis-file " + open + ": other users can read the file",
                        "chmod 600 " + open).doesNotContain(PASSWORD);
            }
        }
        Path own = file(uri + "\n", "rw-------");
        Cli.Result ok = Cli.run("queue", "stats", "--queue", "orders", "--redis-file", own.toString());
        assertThat(ok.exit()).as(ok.err()).isZero();
    }

    @Test
    void aWrongPasswordFailsWithoutShowingIt() {
        String wrong = "redis://ops:not-the-pw-42@127.0.0.1:" + redis.port();
        Cli.Result r = Cli.run(Map.of(ENV, wrong), "queue", "stats", "--queue", "orders");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.errLines()).isEqualTo(1);
        assertThat(r.err()).contains("127.0.0.1:" + redis.port()).containsIgnoringCase("WRONGPASS")
                .doesNotContain("not-the-pw-42");
    }

    @Test
    void aMalformedUriNeverShowsItsPassword() throws IOException {
        String[] malformed = {"redis://ops:" + PASSWORD + "@127.0.0.1:notaport",
            "redis://ops:" + PASSWORD + "@127.0.0.1:6379/abc", "rediss://:" + PASSWORD + "@127.0.0.1?verifyPeer=yes",
            "redis://" + PASSWORD + "@127.0.0.1:6379/abc", "ops:" + PASSWORD + "@127.0.0.1:6379"};
        for (String bad : malformed) {
            Path f = file(bad + "\n", "rw-------");
            for (Cli.Result r : new Cli.Result[] {
                Cli.run("queue", "stats", "--queue", "orders", "--redis", bad),
                Cli.run(Map.of(ENV, bad), "queue", "stats", "--queue", "orders"),
                Cli.run("queue", "stats", "--queue", "orders", "--redis-file", f.toString()),
                Cli.run("demo", "--redis", bad)}) {
                assertThat(r.exit()).as(bad + ": " + r.err()).isEqualTo(2);
                assertThat(r.errLines()).as(r.err()).isEqualTo(1);
                assertThat(r.err()).contains("***").doesNotContain(PASSWORD);
            }
        }
    }

    @Test
    void theDemoRunsOnTheServerInTheEnvironment() {
        Cli.Result r = Cli.run(Map.of(ENV, withPassword), "demo", "--queue", "env-demo", "--orders", "200",
                "--workers", "2", "--crashes", "0", "--spread", "100ms", "--progress", "none");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("Redis queue 'env-demo' at 127.0.0.1:" + redis.port())
                .containsPattern("lost +0 ").doesNotContain(PASSWORD);
    }
}

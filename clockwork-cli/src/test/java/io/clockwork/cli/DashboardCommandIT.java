package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Codec;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code clockwork dashboard} serves the queues of a real redis-server, and refuses unsafe settings. */
@ExtendWith(RedisExtension.class)
class DashboardCommandIT {

    private static final Pattern URL = Pattern.compile("Dashboard on (http://\\S+)");

    /**
     * Waits until the dashboard command has printed its address (or ended, say with an error).
     *
     * @return a matcher of the output, at the address if it was printed (its group 1 the URL)
     */
    static Matcher awaitAddress(StringWriter out, CompletableFuture<Integer> exit) {
        Await.until("the dashboard printed its address or ended", () -> URL.matcher(out.toString()).find()
                || exit.isDone());
        Matcher m = URL.matcher(out.toString());
        m.find();
        return m;
    }

    @Test
    void servesEveryRegisteredQueueUntilStopped(RedisServerProcess redis) throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "orders", Codec.string()).build()) {
            q.offer("o-1", "pay 10", Duration.ofHours(1));
            CommandLine cl = ClockworkCli.commandLine(Map.of());
            StringWriter out = new StringWriter();
            cl.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(new StringWriter(), true));
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cl.execute("dashboard", "--redis",
                    redis.uri(), "--port", "0"));
            Matcher m = awaitAddress(out, exit);
            assertThat(out.toString()).as("exit %s", exit.getNow(null)).contains("Dashboard on http://127.0.0.1:");
            HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(m.group(1)))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains(">orders</a>");
            DashboardCommand cmd = cl.getSubcommands().get("dashboard").getCommand();
            cmd.stop();
            assertThat(exit.get()).isZero();
        }
    }

    @Test
    void bindingOffLoopbackWithoutAPasswordIsBadUsage(RedisServerProcess redis) {
        Cli.Result r = Cli.run("dashboard", "--redis", redis.uri(), "--host", "0.0.0.0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("requires a password or token").contains(DashboardCommand.PASSWORD_ENV);
    }

    @Test
    void aShortOrExposedPasswordIsBadUsage(RedisServerProcess redis, @TempDir Path dir) throws Exception {
        Cli.Result shortOne = Cli.run(Map.of(DashboardCommand.PASSWORD_ENV, "short"), "dashboard", "--redis",
                redis.uri());
        assertThat(shortOne.exit()).isEqualTo(2);
        assertThat(shortOne.err()).contains("at least 12 characters").doesNotContain("short\n");
        Path file = dir.resolve("password");
        Files.writeString(file, "a long enough secret\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        Cli.Result exposed = Cli.run("dashboard", "--redis", redis.uri(), "--password-file", file.toString());
        assertThat(exposed.exit()).isEqualTo(2);
        assertThat(exposed.err()).contains("chmod 600");
    }
}

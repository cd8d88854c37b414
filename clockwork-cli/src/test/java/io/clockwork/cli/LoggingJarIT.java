package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Codec;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code clockwork} command's log, from the packaged clockwork.jar run as users run it ({@code java -jar}, after
 * {@code package}): the dashboard's audit lines reach standard error, and no command prints SLF4J's own warnings.
 */
@ExtendWith(RedisExtension.class)
class LoggingJarIT {

    private static final Pattern URL = Pattern.compile("Dashboard on (http://\\S+?)/? ");
    private static final Pattern CSRF = Pattern.compile("<meta name=\"csrf-token\" content=\"([^\"]+)\">");

    @TempDir
    Path dir;

    @Test
    void theDashboardWritesAnAuditLineForAConfirmedActionAndForARefusedForgedPost(RedisServerProcess redis)
            throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "orders", Codec.string()).build();
                ChildCli cli = ChildCli.start(dir, "dashboard", "--redis", redis.uri(), "--port", "0")) {
            q.offer("o-1", "pay 10", Duration.ofHours(1));
            Await.until("the dashboard printed its address", () -> URL.matcher(cli.out()).find());
            Matcher m = URL.matcher(cli.out());
            assertThat(m.find()).isTrue();
            String root = m.group(1);
            HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
            String page = browser.send(HttpRequest.newBuilder(URI.create(root + "/")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Matcher token = CSRF.matcher(page);
            assertThat(token.find()).as(page).isTrue();

            int confirmed = post(browser, root, Map.of("_csrf", token.group(1), "queue", "orders", "action", "cancel",
                    "id", "o-1", "confirm", "yes"));
            int forged = post(browser, root, Map.of("queue", "orders", "action", "purge", "confirm", "yes"));

            assertThat(confirmed).isEqualTo(302);
            assertThat(forged).isEqualTo(403);
            Await.until("both audit lines on standard error", () -> cli.err().lines()
                    .filter(l -> l.contains("io.clockwork.dashboard.audit")).count() >= 2);
            assertThat(cli.err()).contains("action=cancel queue=\"orders\" id=\"o-1\"")
                    .contains("action=refused purge queue=\"orders\"").contains("bad csrf token")
                    .doesNotContain("SLF4J");
            assertThat(q.stats().delayed()).isZero();
        }
    }

    @Test
    void aCommandOnRedisPrintsNoSlf4jWarning(RedisServerProcess redis) throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "orders", Codec.string()).build()) {
            q.offer("o-1", "pay 10", Duration.ofHours(1));
        }
        Cli.Result r = ChildCli.run(dir, "queue", "stats", "--redis", redis.uri(), "--queue", "orders");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("delayed");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void aCronScheduleOnRedisPrintsNoLogLine(RedisServerProcess redis) throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), "orders", Codec.string()).build()) {
            q.offer("o-1", "pay 10", Duration.ofHours(1));
        }
        Cli.Result add = ChildCli.run(dir, "schedule", "add", "--redis", redis.uri(), "--queue", "orders", "--name",
                "twice-hourly", "--cron", "0,30 * * * *");
        Cli.Result list = ChildCli.run(dir, "schedule", "list", "--redis", redis.uri(), "--queue", "orders");
        assertThat(add.exit()).as(add.err()).isZero();
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out()).contains("twice-hourly");
        assertThat(add.err() + list.err()).isEmpty();
    }

    private static int post(HttpClient browser, String root, Map<String, String> form) throws Exception {
        String body = form.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        return browser.send(HttpRequest.newBuilder(URI.create(root + "/action"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }
}

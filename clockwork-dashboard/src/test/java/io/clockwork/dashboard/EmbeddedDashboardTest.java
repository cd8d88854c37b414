package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Delivery;
import io.clockwork.queue.InMemoryDelayedQueue;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The dashboard mounted in an application's own Javalin under a base path, over the application's in-process queues,
 * trusting the application's authentication (here a header its security would set).
 */
class EmbeddedDashboardTest {

    @Test
    void mountsUnderABasePathOverInProcessQueuesWithTheHostsAuthentication() throws Exception {
        try (InMemoryDelayedQueue<String> jobs = InMemoryDelayedQueue.<String>builder().name("jobs").maxAttempts(1)
                .codec(io.clockwork.queue.Codec.string())
                .build();
             Dashboard dashboard = Dashboard.builder(InProcessQueueSource.of(List.of(jobs))).basePath("/ops/clockwork")
                     .authenticator(request -> Optional.ofNullable(request.getHeader("X-Test-User"))).build()) {
            jobs.offer("j-1", "resize image 1", Duration.ZERO);
            Delivery<String> d = jobs.poll(Duration.ofSeconds(1));
            d.nack(Duration.ZERO);
            jobs.offer("j-2", "resize image 2", Duration.ofMinutes(5));
            Javalin app = Javalin.create(cfg -> {
                cfg.startup.showJavalinBanner = false;
                cfg.routes.get("/hello", ctx -> ctx.result("the application's own page"));
                dashboard.configure(cfg);
            }).start("127.0.0.1", 0);
            try {
                String root = "http://127.0.0.1:" + app.port();
                HttpClient http = HttpClient.newBuilder().cookieHandler(new java.net.CookieManager()).build();

                assertThat(send(http, root + "/hello", null, null).body()).isEqualTo("the application's own page");
                assertThat(send(http, root + "/ops/clockwork/", null, null).statusCode()).as("no user").isEqualTo(401);

                HttpResponse<String> overview = send(http, root + "/ops/clockwork/", "ann", null);
                assertThat(overview.statusCode()).isEqualTo(200);
                assertThat(overview.body()).contains("href=\"/ops/clockwork/queue?name=jobs\"")
                        .contains("data-field=\"dead\">1<").contains("data-field=\"delayed\">1<");
                assertThat(overview.headers().firstValue("Set-Cookie").orElseThrow()).contains("Path=/ops/clockwork");

                HttpResponse<String> dead = send(http, root + "/ops/clockwork/queue?name=jobs&state=dead", "ann", null);
                assertThat(dead.body()).contains("j-1").contains("resize image 1");
                Matcher m = Pattern.compile("name=\"csrf-token\" content=\"([^\"]+)\"").matcher(dead.body());
                assertThat(m.find()).isTrue();
                HttpResponse<String> acted = send(http, root + "/ops/clockwork/action", "ann",
                        "_csrf=" + m.group(1) + "&queue=jobs&action=requeue-all&confirm=yes");
                assertThat(acted.statusCode()).isEqualTo(302);
                assertThat(jobs.stats().dead()).isZero();
                assertThat(jobs.stats().ready()).isEqualTo(1);
                assertThat(send(http, root + "/ops/clockwork/action", "bob",
                        "_csrf=" + m.group(1) + "&queue=jobs&action=purge&confirm=yes").statusCode())
                        .as("another user's token").isEqualTo(403);
            } finally {
                app.stop();
            }
        }
    }

    private static HttpResponse<String> send(HttpClient http, String url, String user, String form)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
        if (user != null) {
            b.header("X-Test-User", user);
        }
        if (form != null) {
            b.header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}

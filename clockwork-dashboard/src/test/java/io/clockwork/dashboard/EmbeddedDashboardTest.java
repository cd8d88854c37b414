package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.queue.Delivery;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.schedule.InMemorySchedules;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleRule;
import io.clockwork.time.ManualTicker;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
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
                assertThat(send(http, root + "/ops/clockwork/queue?name=jobs", "ann", null).body())
                        .doesNotContain("Delete queue");
                HttpResponse<String> delete = send(http, root + "/ops/clockwork/action", "ann",
                        "_csrf=" + m.group(1) + "&queue=jobs&action=delete&confirm=yes");
                assertThat(delete.statusCode()).as("the application's queues are its own").isEqualTo(400);
                assertThat(delete.body()).contains("cannot be deleted from the dashboard");
                assertThat(jobs.stats().ready()).isEqualTo(1);
                assertThat(send(http, root + "/ops/clockwork/action", "bob",
                        "_csrf=" + m.group(1) + "&queue=jobs&action=purge&confirm=yes").statusCode())
                        .as("another user's token").isEqualTo(403);
            } finally {
                app.stop();
            }
        }
    }

    @Test
    void showsAndPausesTheSchedulesTheApplicationHandsIn() throws Exception {
        ManualTicker ticker = new ManualTicker();
        try (InMemoryDelayedQueue<String> jobs = InMemoryDelayedQueue.<String>builder().name("jobs").ticker(ticker)
                .build();
             InMemoryDelayedQueue<String> mail = InMemoryDelayedQueue.<String>builder().name("mail").build();
             InMemorySchedules<String> schedules = InMemorySchedules.builder(jobs).ticker(ticker)
                     .epoch(Instant.parse("2030-01-01T00:00:30Z")).build()) {
            schedules.put(Schedule.of("cleanup", ScheduleRule.fixedRate(Duration.ofMinutes(1)), "clean"));
            InProcessQueueSource plain = InProcessQueueSource.of(List.of(jobs, mail));
            assertThatThrownBy(() -> plain.withSchedules("nope", schedules))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'nope'");
            InProcessQueueSource source = plain.withSchedules("jobs", schedules);
            assertThatThrownBy(() -> source.withSchedules("jobs", schedules))
                    .hasMessageContaining("has schedules already");
            try (Dashboard dashboard = Dashboard.builder(source).build()) {
                Javalin app = dashboard.start("127.0.0.1", 0);
                String root = "http://127.0.0.1:" + app.port();
                HttpClient http = HttpClient.newBuilder().cookieHandler(new java.net.CookieManager()).build();

                String page = send(http, root + "/queue?name=jobs&state=schedules", null, null).body();
                assertThat(page).contains("data-schedule=\"cleanup\"").contains("rate:PT1M")
                        .contains("data-field=\"next-fire\">2030-01-01 00:01:00.000Z (");
                assertThat(send(http, root + "/queue?name=mail&state=schedules", null, null).body())
                        .contains("No recurring schedule on this queue.");
                Matcher m = Pattern.compile("name=\"csrf-token\" content=\"([^\"]+)\"").matcher(page);
                assertThat(m.find()).isTrue();
                assertThat(send(http, root + "/action", null, "_csrf=" + m.group(1)
                        + "&queue=jobs&action=pause-schedule&id=cleanup&confirm=yes").statusCode()).isEqualTo(302);

                assertThat(schedules.get("cleanup").orElseThrow().paused()).isTrue();
                assertThat(jobs.stats().delayed() + jobs.stats().ready()).as("occurrences stored").isZero();
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

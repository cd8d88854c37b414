package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.RedisSchedules;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.schedule.Misfire;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.schedule.ScheduleRule;
import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.javalin.Javalin;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The dashboard over HTTP against a real redis-server: what it shows, what it does, and what it refuses. */
@ExtendWith(RedisExtension.class)
class DashboardIT {

    private static final String PASSWORD = "correct horse battery";

    private final RedisServerProcess redis;
    private final List<AutoCloseable> open = new ArrayList<>();

    DashboardIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private <T extends AutoCloseable> T track(T t) {
        open.add(t);
        return t;
    }

    private RedisDelayedQueue<String> queue(String name, int maxAttempts) {
        return track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).maxAttempts(maxAttempts).build());
    }

    private Browser serve(java.util.function.UnaryOperator<Dashboard.Builder> options) {
        RedisQueueSource source = track(RedisQueueSource.connect(redis.uri(), 1));
        Dashboard d = track(options.apply(Dashboard.builder(source)).build());
        Javalin app = d.start("127.0.0.1", 0);
        return new Browser("http://127.0.0.1:" + app.port());
    }

    /** Leaves one dead letter, "doomed", in a queue whose maxAttempts is 1. */
    private static void kill(RedisDelayedQueue<String> q) throws InterruptedException {
        q.offer("doomed", "payload of doomed", Duration.ZERO);
        Delivery<String> d = q.poll(Duration.ofSeconds(2));
        assertThat(d.id()).isEqualTo("doomed");
        d.nack(Duration.ZERO);
        assertThat(q.stats().dead()).isEqualTo(1);
    }

    @Test
    void overviewListsEveryRegisteredQueueWithItsStats() throws Exception {
        RedisDelayedQueue<String> orders = queue("orders", 1);
        RedisDelayedQueue<String> mail = queue("mail", 1);
        for (int i = 0; i < 3; i++) {
            orders.offer("now-" + i, Duration.ZERO);
        }
        orders.offer("later", Duration.ofHours(1));
        kill(mail);
        Browser b = serve(x -> x);

        HttpResponse<String> page = b.get("/");

        assertThat(page.statusCode()).isEqualTo(200);
        String html = page.body();
        assertThat(html).contains(">orders</a>").contains(">mail</a>");
        QueueStats s = orders.stats();
        assertThat(row(html, "orders")).contains("data-field=\"delayed\">" + s.delayed() + "<")
                .contains("data-field=\"ready\">" + s.ready() + "<").contains("data-field=\"dead\">0<");
        assertThat(row(html, "mail")).contains("data-field=\"dead\">1<");
        HttpResponse<String> dead = b.get("/queue?name=mail&state=dead");
        assertThat(dead.body()).contains("doomed").contains("payload of doomed");
    }

    @Test
    void theOverviewIsACompactTableWithASparklinePerQueueAndNoCharts() throws Exception {
        for (String name : List.of("q1", "q2", "q3", "q4", "q5")) {
            queue(name, 1).offer(name + "-a", Duration.ofMinutes(5));
        }
        Browser b = serve(x -> x.sampleInterval(Duration.ofMillis(100)));
        Await.until("two samples of q5", () -> sparkPoints(get(b, "/"), "q5") >= 2);

        String html = b.get("/").body();
        for (String name : List.of("q1", "q2", "q3", "q4", "q5")) {
            assertThat(row(html, name)).contains("<svg class=\"spark\"").contains("<polyline")
                    .contains("data-field=\"delayed\">1<");
        }
        assertThat(count(html, "<svg class=\"spark\"")).isEqualTo(5);
        assertThat(count(html, "data-chart=")).as("charts on the overview").isZero();
        assertThat(html).doesNotContain("uPlot.iife.min.js");
        String page = b.get("/queue?name=q3").body();
        assertThat(count(page, "data-chart=")).as("charts on the queue page").isEqualTo(3);
    }

    @Test
    void theOverviewNamesTheRedisServerOnceNotOnEveryRow() throws Exception {
        for (String name : List.of("orders", "mail", "audit")) {
            queue(name, 1);
        }
        track(RedisDelayedQueue.builder(redis.uri(), "wide", Codec.string()).partitions(4).build());
        Browser b = serve(x -> x);

        String html = b.get("/").body();

        String where = "redis://127.0.0.1:" + redis.port();
        assertThat(count(html, where)).as("%s in %s", where, html).isEqualTo(1);
        assertThat(row(html, "wide")).contains("4 partitions");
        assertThat(row(html, "orders")).doesNotContain("partitions").doesNotContain("redis://");
    }

    @Test
    void aConfirmedDeleteRemovesEveryKeyOfTheQueueAndIsAudited() throws Exception {
        RedisDelayedQueue<String> orders = track(RedisDelayedQueue.builder(redis.uri(), "orders", Codec.string())
                .partitions(3).maxAttempts(1).build());
        for (int i = 0; i < 30; i++) {
            orders.offer("later-" + i, "pay " + i, Duration.ofHours(1)); // the compact store
            orders.offer("soon-" + i, "pay " + i, Duration.ofSeconds(2));
            orders.offer("now-" + i, "pay " + i, Duration.ZERO);
        }
        List<Delivery<String>> taken = orders.poll(20, Duration.ofSeconds(2));
        assertThat(taken).isNotEmpty();
        taken.get(0).nack(Duration.ZERO); // dead: maxAttempts 1
        schedules(orders).put(Schedule.of("nightly", ScheduleRule.fixedRate(Duration.ofDays(1)), "close"));
        RedisDelayedQueue<String> mail = queue("mail", 1);
        mail.offer("welcome", "hello", Duration.ofHours(1));
        assertThat(keys("{orders:0}")).isNotEmpty();
        assertThat(keys("{orders:2}")).isNotEmpty();
        assertThat(keys("{orders:")).anyMatch(k -> k.endsWith(":sched_def"));
        List<String> mailKeys = keys("{mail:");
        Browser b = serve(x -> x.sampleInterval(Duration.ofMillis(100)));
        Await.until("a sample of orders", () -> column(get(b, "/series?queue=orders"), "t").size() >= 1);

        String question = b.get("/confirm?queue=orders&action=delete").body();
        assertThat(question).contains("Delete queue orders and everything stored for it");
        assertThat(b.get("/queue?name=orders").body()).contains("action=delete\">Delete queue</a>");
        String csrf = b.csrf("/confirm?queue=orders&action=delete");
        HttpResponse<String> r;
        try (AuditCapture audit = new AuditCapture()) {
            r = b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "delete", "confirm", "yes"));
            assertThat(audit.lines()).contains("action=delete").contains("who=\"local\"")
                    .contains("queue=\"orders\"").containsPattern("outcome=\"deleted \\([0-9]+ keys\\)\"");
        }

        assertThat(r.statusCode()).isEqualTo(302);
        assertThat(r.headers().firstValue("Location")).hasValue("/");
        assertThat(keys("{orders:")).isEmpty();
        assertThat(members("cw:queues")).containsExactly("mail");
        String overview = b.get("/").body();
        assertThat(overview).contains("delete on orders: deleted").doesNotContain("data-queue=\"orders\"")
                .contains("data-queue=\"mail\"");
        int mailSamples = column(get(b, "/series?queue=mail"), "t").size();
        Await.until("two more samples", () -> column(get(b, "/series?queue=mail"), "t").size() >= mailSamples + 2);
        assertThat(keys("{orders:")).as("the sampler wrote none back").isEmpty();
        assertThat(column(get(b, "/series?queue=orders"), "t")).as("the dashboard's series").isEmpty();
        assertThat(keys("{mail:")).containsExactlyInAnyOrderElementsOf(mailKeys);
        assertThat(mail.stats().delayed()).isEqualTo(1);
        assertThat(b.get("/queue?name=orders").statusCode()).isEqualTo(404);
    }

    @Test
    void readOnlyRefusesADeleteAndAuditsIt() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        q.offer("a", "pay", Duration.ofHours(1));
        Browser b = serve(Dashboard.Builder::readOnly);
        assertThat(b.get("/queue?name=orders").body()).doesNotContain("Delete queue");
        assertThat(b.get("/confirm?queue=orders&action=delete").statusCode()).isEqualTo(403);
        String csrf = b.csrf("/");

        HttpResponse<String> r;
        try (AuditCapture audit = new AuditCapture()) {
            r = b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "delete", "confirm", "yes"));
            assertThat(audit.lines()).contains("action=delete").contains("outcome=\"refused: read-only\"");
        }

        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(members("cw:queues")).containsExactly("orders");
        assertThat(q.stats().delayed()).isEqualTo(1);
    }

    @Test
    void aForgedOrUnconfirmedDeleteIsRefused() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        q.offer("a", "pay", Duration.ofHours(1));
        Browser b = serve(x -> x);
        String csrf = b.csrf("/");
        Map<String, String> delete = Map.of("queue", "orders", "action", "delete", "confirm", "yes");

        assertThat(b.post("/action", delete).statusCode()).as("no token").isEqualTo(403);
        Map<String, String> wrong = new java.util.HashMap<>(delete);
        wrong.put("_csrf", csrf.substring(1) + "x");
        assertThat(b.post("/action", wrong).statusCode()).as("wrong token").isEqualTo(403);
        Map<String, String> right = new java.util.HashMap<>(delete);
        right.put("_csrf", csrf);
        assertThat(b.post("/action", right, "http://evil.example").statusCode()).as("other origin").isEqualTo(403);
        assertThat(new Browser(b.root()).post("/action", right).statusCode()).as("another session's token")
                .isEqualTo(403);
        Map<String, String> unconfirmed = new java.util.HashMap<>(right);
        unconfirmed.remove("confirm");
        assertThat(b.post("/action", unconfirmed).statusCode()).as("unconfirmed").isEqualTo(400);

        assertThat(members("cw:queues")).containsExactly("orders");
        assertThat(q.stats().delayed()).isEqualTo(1);
    }

    private static String get(Browser b, String path) {
        try {
            return b.get(path).body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static int sparkPoints(String html, String queue) {
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("<svg class=\"spark\"[^>]* data-points=\"(\\d+)\"").matcher(row(html, queue));
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + part.length())) {
            n++;
        }
        return n;
    }

    /** The server's keys that contain {@code part}, e.g. a queue's hash tag {@code {orders:}. */
    @SuppressWarnings("unchecked")
    private List<String> keys(String part) {
        List<String> all = (List<String>) redis.call("KEYS", "*");
        return all.stream().filter(k -> k.contains(part)).toList();
    }

    @SuppressWarnings("unchecked")
    private List<String> members(String set) {
        return (List<String>) redis.call("SMEMBERS", set);
    }

    @Test
    void seriesChartsTheQueuesEventCountersAsRatesPerSecond() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 2);
        Browser b = serve(x -> x.sampleInterval(Duration.ofMillis(100)));
        awaitSeries(b, json -> column(json, "t").size() >= 1); // sampled once before the events below
        for (int i = 0; i < 4; i++) {
            q.offer("o-" + i, Duration.ZERO);
        }
        List<Delivery<String>> d = q.poll(4, Duration.ofSeconds(2));
        assertThat(d).hasSize(4);
        assertThat(d.get(0).ack()).isTrue();
        assertThat(d.get(1).nack(Duration.ofMinutes(5))).isTrue();
        assertThat(d.get(2).deadLetter("bad")).isTrue();
        assertThat(d.get(3).deadLetter("bad")).isTrue();
        assertThat(q.counters()).hasValue(new io.clockwork.queue.QueueCounters(4, 4, 1, 1, 2));

        List<String> rates = List.of("offeredPerSecond", "deliveredPerSecond", "ackedPerSecond", "retriedPerSecond",
                "deadLetteredPerSecond");
        String json = awaitSeries(b, j -> rates.stream().allMatch(r -> column(j, r).stream().anyMatch(v -> v > 0)));
        assertThat(json).doesNotContain("scheduledPerSecond").contains("\"oldestReadySeconds\":[");
    }

    /** The numbers of one column of a /series reply; nulls left out. */
    private static List<Double> column(String json, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + name + "\":\\[([^\\]]*)]").matcher(json);
        assertThat(m.find()).as("column %s in %s", name, json).isTrue();
        List<Double> values = new ArrayList<>();
        for (String v : m.group(1).split(",")) {
            if (!v.isEmpty() && !v.equals("null")) {
                values.add(Double.parseDouble(v));
            }
        }
        return values;
    }

    /** Reads /series?queue=orders until {@code done} holds of it (10 s at most); returns that reply. */
    private static String awaitSeries(Browser b, java.util.function.Predicate<String> done) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            String json = b.get("/series?queue=orders").body();
            if (done.test(json)) {
                return json;
            }
            assertThat(System.nanoTime() - deadline).as("series never showed it: %s", json).isNegative();
            Thread.sleep(50); // the pause between two reads of a condition polled with a deadline (real time: the
            // dashboard samples on the system clock)
        }
    }

    @Test
    void queuePagesPageByCursorAndLookUpById() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        for (int i = 0; i < 120; i++) {
            q.offer(String.format("o-%03d", i), "order " + i, Duration.ofMinutes(1 + i));
        }
        Browser b = serve(x -> x);
        java.util.List<String> ids = new ArrayList<>();
        String path = "/queue?name=orders&state=delayed";
        int pages = 0;
        while (path != null) {
            String html = b.get(path).body();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("<tr data-id=\"([^\"]+)\"").matcher(html);
            while (m.find()) {
                ids.add(m.group(1));
            }
            java.util.regex.Matcher next = java.util.regex.Pattern.compile("id=\"next-page\" href=\"([^\"]+)\"")
                    .matcher(html);
            path = next.find() ? next.group(1).replace("&amp;", "&") : null;
            pages++;
        }
        assertThat(pages).isEqualTo(3);
        assertThat(ids).hasSize(120).doesNotHaveDuplicates().startsWith("o-000", "o-001").endsWith("o-119");

        String found = b.get("/queue?name=orders&id=o-042").body();
        assertThat(found).contains("id=\"found-id\">o-042<").contains("id=\"found-state\">Delayed<")
                .contains("order 42");
        assertThat(b.get("/queue?name=orders&id=nope").body()).contains("No message with id nope");
    }

    @Test
    void cancelAndRescheduleFromConfirmedActions() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        q.offer("a", "first", Duration.ofHours(1));
        q.offer("b", "second", Duration.ofHours(1));
        Browser b = serve(x -> x);
        String csrf = b.csrf("/confirm?queue=orders&action=reschedule&id=a");
        assertThat(b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "cancel", "id", "b",
                "confirm", "yes")).statusCode()).isEqualTo(302);
        assertThat(b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "reschedule", "id", "a",
                "delay", "0s", "confirm", "yes")).statusCode()).isEqualTo(302);
        assertThat(b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "reschedule", "id", "a",
                "delay", "soon", "confirm", "yes")).statusCode()).as("bad delay").isEqualTo(400);

        QueueStats s = q.stats();
        assertThat(s.delayed()).isZero();
        assertThat(s.ready()).isEqualTo(1);
        assertThat(q.poll(Duration.ofSeconds(1)).id()).isEqualTo("a");
    }

    @Test
    void everyResponseCarriesTheSecurityHeaders() throws Exception {
        queue("orders", 1);
        Browser b = serve(x -> x);
        HttpResponse<String> page = b.get("/");
        assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow())
                .contains("script-src 'self'").contains("frame-ancestors 'none'").doesNotContain("unsafe-inline");
        assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(page.headers().firstValue("Referrer-Policy")).hasValue("same-origin");
        assertThat(page.headers().firstValue("Set-Cookie").orElseThrow()).contains("HttpOnly")
                .contains("SameSite=Strict");
        assertThat(page.body()).doesNotContain("<script>").doesNotContain(" style=\"");
        assertThat(b.get("/assets/uPlot.iife.min.js").statusCode()).isEqualTo(200);
    }

    @Test
    void aConfirmedRequeueMovesTheDeadLetterAndIsAudited() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        kill(q);
        Browser b = serve(x -> x);
        String csrf = b.csrf("/confirm?queue=orders&action=requeue&id=doomed");

        HttpResponse<String> r;
        try (AuditCapture audit = new AuditCapture()) {
            r = b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "requeue", "id", "doomed",
                    "confirm", "yes"));
            assertThat(audit.lines()).contains("action=requeue").contains("who=\"local\"").contains("queue=\"orders\"")
                    .contains("id=\"doomed\"").contains("outcome=\"requeued\"").doesNotContain("payload of doomed");
        }

        assertThat(r.statusCode()).isEqualTo(302);
        assertThat(q.stats().dead()).isZero();
        assertThat(q.stats().ready()).isEqualTo(1);
        assertThat(b.get(r.headers().firstValue("Location").orElseThrow()).body()).contains("requeue doomed on orders");
    }

    @Test
    void anUnconfirmedActionChangesNothing() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        kill(q);
        Browser b = serve(x -> x);
        String csrf = b.csrf("/");
        HttpResponse<String> r = b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "purge"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(q.stats().dead()).isEqualTo(1);
    }

    @Test
    void aForgedActionIsRefused() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        kill(q);
        Browser b = serve(x -> x);
        String csrf = b.csrf("/");
        Map<String, String> purge = Map.of("queue", "orders", "action", "purge", "confirm", "yes");

        assertThat(b.post("/action", purge).statusCode()).as("no token").isEqualTo(403);
        Map<String, String> wrong = new java.util.HashMap<>(purge);
        wrong.put("_csrf", csrf.substring(1) + "x");
        assertThat(b.post("/action", wrong).statusCode()).as("wrong token").isEqualTo(403);
        Map<String, String> right = new java.util.HashMap<>(purge);
        right.put("_csrf", csrf);
        assertThat(b.post("/action", right, "http://evil.example").statusCode()).as("other origin").isEqualTo(403);
        Browser stranger = new Browser(b.root());
        assertThat(stranger.post("/action", right).statusCode()).as("another session's token").isEqualTo(403);

        assertThat(q.stats().dead()).isEqualTo(1);
    }

    @Test
    void readOnlyShowsNoActionAndRefusesThem() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        kill(q);
        Browser b = serve(Dashboard.Builder::readOnly);
        HttpResponse<String> page = b.get("/queue?name=orders&state=dead");
        assertThat(page.body()).contains("doomed").doesNotContain("class=\"action");
        String csrf = b.csrf("/");

        assertThat(b.get("/confirm?queue=orders&action=purge").statusCode()).isEqualTo(403);
        HttpResponse<String> r = b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "purge",
                "confirm", "yes"));

        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("read-only");
        assertThat(q.stats().dead()).isEqualTo(1);
    }

    /** Schedules beside a queue, administered by the test and never started: no pass runs unless a test calls one. */
    private RedisSchedules<String> schedules(RedisDelayedQueue<String> q) {
        return track(RedisSchedules.builder(q).build());
    }

    @Test
    void theSchedulesTabListsEveryScheduleWithItsFireTimesAndFiresNone() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        RedisSchedules<String> sched = schedules(q);
        sched.put(Schedule.of("daily", ScheduleRule.fixedRate(Duration.ofDays(1)), "report").misfire(Misfire.SKIP));
        sched.put(Schedule.of("often", ScheduleRule.fixedRate(Duration.ofMillis(100)), "tick"));
        sched.put(Schedule.of("weekly", ScheduleRule.fixedRate(Duration.ofDays(7)), "digest"));
        assertThat(sched.pause("weekly")).isTrue();
        Browser b = serve(x -> x);
        Instant before = Instant.now();

        HttpResponse<String> page = b.get("/queue?name=orders&state=schedules");

        assertThat(page.statusCode()).isEqualTo(200);
        String html = page.body();
        assertThat(html).contains("id=\"tab-schedules\" class=\"tab current\"");
        assertThat(html.indexOf("data-schedule=\"daily\"")).isLessThan(html.indexOf("data-schedule=\"often\""));
        ScheduleInfo daily = sched.get("daily").orElseThrow();
        Instant next = daily.nextFire().orElseThrow();
        assertThat(next.toEpochMilli() % Duration.ofDays(1).toMillis()).as("fires at midnight UTC").isZero();
        assertThat(next).isBetween(before.minusSeconds(60), before.plus(Duration.ofDays(1)).plusSeconds(60));
        assertThat(scheduleRow(html, "daily")).contains("data-field=\"rule\">rate:PT24H<")
                .contains("data-field=\"state\">active<").contains("data-field=\"misfire\">skip<")
                .contains("data-field=\"last-fire\">-<")
                .contains("data-field=\"next-fire\">" + Texts.instant(next) + " (in ")
                .contains("action=pause-schedule&amp;id=daily");
        assertThat(scheduleRow(html, "weekly")).contains("paused").contains("data-field=\"next-fire\">-<")
                .contains("data-field=\"misfire\">once<").contains("action=resume-schedule&amp;id=weekly");

        Instant oftenDue = sched.get("often").orElseThrow().nextFire().orElseThrow();
        while (Instant.now().isBefore(oftenDue.plusMillis(300))) {
            Thread.sleep(20); // why real time: fire times of "often" pass, and the dashboard must not produce them
        }
        assertThat(scheduleRow(b.get("/queue?name=orders&state=schedules").body(), "often"))
                .contains("data-field=\"next-fire\">" + Texts.instant(oftenDue) + " (");
        QueueStats s = q.stats();
        assertThat(s.delayed() + s.ready()).as("occurrences stored").isZero();
        assertThat(sched.get("often").orElseThrow().lastFire()).isEmpty();
    }

    @Test
    void pauseAndResumeFromConfirmedActionsAreAudited() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        RedisSchedules<String> sched = schedules(q);
        sched.put(Schedule.of("daily", ScheduleRule.fixedRate(Duration.ofDays(1)), "report"));
        Browser b = serve(x -> x);
        HttpResponse<String> confirm = b.get("/confirm?queue=orders&action=pause-schedule&id=daily");
        assertThat(confirm.body()).contains("Pause schedule daily of queue orders?");
        String csrf = b.csrf("/confirm?queue=orders&action=pause-schedule&id=daily");

        HttpResponse<String> r;
        try (AuditCapture audit = new AuditCapture()) {
            r = b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "pause-schedule", "id", "daily",
                    "confirm", "yes"));
            assertThat(audit.lines()).contains("action=pause-schedule").contains("who=\"local\"")
                    .contains("queue=\"orders\"").contains("id=\"daily\"").contains("outcome=\"paused\"");
        }

        assertThat(r.statusCode()).isEqualTo(302);
        assertThat(r.headers().firstValue("Location")).hasValue("/queue?name=orders&state=schedules");
        ScheduleInfo paused = sched.get("daily").orElseThrow();
        assertThat(paused.paused()).isTrue();
        assertThat(paused.nextFire()).isEmpty();
        String after = b.get("/queue?name=orders&state=schedules").body();
        assertThat(after).contains("pause-schedule daily on orders: paused");
        assertThat(scheduleRow(after, "daily")).contains("paused").contains("action=resume-schedule&amp;id=daily");

        assertThat(b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "resume-schedule",
                "id", "daily", "confirm", "yes")).statusCode()).isEqualTo(302);
        ScheduleInfo resumed = sched.get("daily").orElseThrow();
        assertThat(resumed.paused()).isFalse();
        assertThat(resumed.nextFire()).isPresent();
        assertThat(b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "pause-schedule",
                "id", "nope", "confirm", "yes")).statusCode()).isEqualTo(302);
        assertThat(b.get("/queue?name=orders&state=schedules").body())
                .contains("pause-schedule nope on orders: not paused: no running schedule with this name");
        assertThat(q.stats().delayed() + q.stats().ready()).as("occurrences stored").isZero();
    }

    @Test
    void readOnlyListsSchedulesButRefusesToPauseThem() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        RedisSchedules<String> sched = schedules(q);
        sched.put(Schedule.of("daily", ScheduleRule.fixedRate(Duration.ofDays(1)), "report"));
        Browser b = serve(Dashboard.Builder::readOnly);
        HttpResponse<String> page = b.get("/queue?name=orders&state=schedules");
        assertThat(scheduleRow(page.body(), "daily")).contains("rate:PT24H");
        assertThat(page.body()).doesNotContain("class=\"action");
        String csrf = b.csrf("/");

        assertThat(b.get("/confirm?queue=orders&action=pause-schedule&id=daily").statusCode()).isEqualTo(403);
        HttpResponse<String> r = b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action",
                "pause-schedule", "id", "daily", "confirm", "yes"));

        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("read-only");
        assertThat(sched.get("daily").orElseThrow().paused()).isFalse();
    }

    @Test
    void aForgedPauseIsRefused() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        RedisSchedules<String> sched = schedules(q);
        sched.put(Schedule.of("daily", ScheduleRule.fixedRate(Duration.ofDays(1)), "report"));
        Browser b = serve(x -> x);
        String csrf = b.csrf("/");
        Map<String, String> pause = Map.of("queue", "orders", "action", "pause-schedule", "id", "daily",
                "confirm", "yes");

        assertThat(b.post("/action", pause).statusCode()).as("no token").isEqualTo(403);
        Map<String, String> wrong = new java.util.HashMap<>(pause);
        wrong.put("_csrf", csrf.substring(1) + "x");
        assertThat(b.post("/action", wrong).statusCode()).as("wrong token").isEqualTo(403);
        Map<String, String> right = new java.util.HashMap<>(pause);
        right.put("_csrf", csrf);
        assertThat(new Browser(b.root()).post("/action", right).statusCode()).as("another session's token")
                .isEqualTo(403);

        assertThat(sched.get("daily").orElseThrow().paused()).isFalse();
    }

    @Test
    void withAPasswordARequestWithoutSessionIsRefused() throws Exception {
        RedisDelayedQueue<String> q = queue("orders", 1);
        kill(q);
        Browser b = serve(x -> x.password(PASSWORD.toCharArray()));

        assertThat(b.get("/").statusCode()).isEqualTo(302);
        assertThat(b.get("/").headers().firstValue("Location")).hasValue("/login");
        assertThat(b.get("/series?queue=orders").statusCode()).isEqualTo(401);
        assertThat(b.post("/action", Map.of("queue", "orders", "action", "purge", "confirm", "yes")).statusCode())
                .isEqualTo(401);
        assertThat(b.post("/login", Map.of("user", "ann", "password", "wrong password!")).statusCode())
                .isEqualTo(401);
        assertThat(q.stats().dead()).isEqualTo(1);

        HttpResponse<String> in = b.post("/login", Map.of("user", "ann", "password", PASSWORD));
        assertThat(in.statusCode()).isEqualTo(302);
        assertThat(b.get("/").body()).contains(">orders</a>").contains("ann");
    }

    @Test
    void repeatedWrongPasswordsAreAnsweredEarlyWith429ThenLockedOutAndAudited() throws Exception {
        ManualTicker ticker = new ManualTicker();
        Browser b = serve(x -> x.password(PASSWORD.toCharArray()).ticker(ticker));
        Map<String, String> wrong = Map.of("user", "mallory", "password", "wrong password!");
        Map<String, String> right = Map.of("user", "ann", "password", PASSWORD);
        List<HttpResponse<String>> replies = new ArrayList<>();
        try (AuditCapture audit = new AuditCapture()) {
            ExecutorService pool = Executors.newFixedThreadPool(10);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<HttpResponse<String>>> sent = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    Browser client = new Browser(b.root());
                    sent.add(pool.submit(() -> {
                        go.await();
                        return client.post("/login", wrong);
                    }));
                }
                go.countDown();
                for (Future<HttpResponse<String>> f : sent) {
                    replies.add(f.get(10, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(replies).filteredOn(r -> r.statusCode() == 401).as("checked: three free, one delaying")
                    .hasSize(4);
            assertThat(replies).filteredOn(r -> r.statusCode() == 429).hasSize(6)
                    .allSatisfy(r -> {
                        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
                        assertThat(r.body()).contains("Too many failed sign-ins");
                    });
            assertThat(audit.lines()).contains("who=\"mallory\"")
                    .contains("outcome=\"refused: wrong password, failure 4 from this address, next attempt in "
                            + "1.0 s (this address)\"")
                    .contains("outcome=\"refused: too many failed sign-ins, next attempt in ");
        }
        assertThat(b.post("/login", right).statusCode()).as("the right password, too early").isEqualTo(429);

        ticker.advance(Duration.ofSeconds(1));
        assertThat(b.post("/login", right).statusCode()).as("signed in").isEqualTo(302);
        HttpResponse<String> afterSuccess = b.post("/login", wrong);
        assertThat(afterSuccess.statusCode()).isEqualTo(401);
        assertThat(afterSuccess.headers().firstValue("Retry-After")).as("the count starts again").isEmpty();

        try (AuditCapture audit = new AuditCapture()) {
            for (int failure = 2; failure <= 10; failure++) {
                HttpResponse<String> r = b.post("/login", wrong);
                assertThat(r.statusCode()).as("failure %d", failure).isEqualTo(401);
                if (failure < 10) {
                    ticker.advance(Duration.ofSeconds(r.headers().firstValue("Retry-After").map(Long::parseLong)
                            .orElse(0L)));
                }
            }
            assertThat(audit.lines()).contains("outcome=\"refused: wrong password, failure 10 from this address, "
                    + "locked out for 15 m 0 s (this address)\"");
        }
        ticker.advance(Duration.ofMinutes(10));
        HttpResponse<String> locked = b.post("/login", right);
        assertThat(locked.statusCode()).isEqualTo(429);
        assertThat(locked.headers().firstValue("Retry-After")).hasValue("300");
        ticker.advance(Duration.ofMinutes(5));
        assertThat(b.post("/login", right).statusCode()).isEqualTo(302);
    }

    @Test
    void offLoopbackNeedsAPassword() {
        RedisQueueSource source = track(RedisQueueSource.connect(redis.uri(), 1));
        Dashboard d = track(Dashboard.builder(source).build());
        assertThatThrownBy(() -> d.start("0.0.0.0", 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("requires authentication");
        assertThatThrownBy(() -> Dashboard.builder(source).password("short".toCharArray()))
                .hasMessageContaining("at least 12 characters");
    }

    @Test
    void withoutAuthenticationOnlyALoopbackHostIsAnswered() throws Exception {
        queue("orders", 1);
        Browser b = serve(x -> x);
        int port = Integer.parseInt(b.root().replaceFirst(".*:", ""));
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String status = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            assertThat(status).contains(" 403 ");
        }
    }

    private static String scheduleRow(String html, String name) {
        int start = html.indexOf("<tr data-schedule=\"" + name + "\"");
        assertThat(start).as("row of schedule " + name).isNotNegative();
        return html.substring(start, html.indexOf("</tr>", start));
    }

    private static String row(String html, String queue) {
        int start = html.indexOf("<tr data-queue=\"" + queue + "\"");
        assertThat(start).as("row of " + queue).isNotNegative();
        return html.substring(start, html.indexOf("</tr>", start));
    }
}

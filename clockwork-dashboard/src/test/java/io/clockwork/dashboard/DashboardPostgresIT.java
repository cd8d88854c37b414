package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.PostgresDelayedQueue;
import io.clockwork.postgres.PostgresQueueException;
import io.clockwork.postgres.PostgresSchedules;
import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleRule;
import io.javalin.Javalin;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The dashboard over HTTP on the queues of a real PostgreSQL server: the overview from {@code clockwork_queues}, a
 * queue's counts and messages, and the pause action through the real endpoints. Each test has a schema of its own.
 */
@ExtendWith(PostgresExtension.class)
class DashboardPostgresIT {

    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    private final PostgresServerProcess postgres;
    private final List<AutoCloseable> open = new ArrayList<>();
    private String schema;
    private HikariDataSource pool;

    DashboardPostgresIT(PostgresServerProcess postgres) {
        this.postgres = postgres;
    }

    @BeforeEach
    void pool() {
        schema = "dash_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.jdbcUrl());
        config.setMaximumPoolSize(8);
        pool = track(new HikariDataSource(config));
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

    private PostgresDelayedQueue<String> queue(String name) {
        return track(PostgresDelayedQueue.builder(pool, name, Codec.string()).schema(schema).maxAttempts(1).build());
    }

    private PostgresQueueSource source() {
        return track(PostgresQueueSource.connect(postgres.jdbcUrl(), schema, 1));
    }

    private Browser serve(PostgresQueueSource source) {
        Dashboard d = track(Dashboard.builder(source).build());
        Javalin app = d.start("127.0.0.1", 0);
        return new Browser("http://127.0.0.1:" + app.port());
    }

    /** Leaves one dead letter, "doomed", in a queue whose maxAttempts is 1. */
    private static void kill(PostgresDelayedQueue<String> q) throws InterruptedException {
        q.offer("doomed", "payload of doomed", Duration.ZERO);
        Delivery<String> d = q.poll(Duration.ofSeconds(5));
        assertThat(d.id()).isEqualTo("doomed");
        d.nack(Duration.ZERO, "card declined");
        assertThat(q.stats().dead()).isEqualTo(1);
    }

    @Test
    void overviewListsTheQueuesOfTheSchemaWithTheirCountsAndAQueuePageItsMessages() throws Exception {
        PostgresDelayedQueue<String> orders = queue("orders");
        PostgresDelayedQueue<String> mail = queue("mail");
        for (int i = 0; i < 3; i++) {
            orders.offer(Message.of("pay " + i).id("now-" + i).header("tenant", "acme"));
        }
        orders.offer("later", "pay later", Duration.ofHours(1));
        kill(mail);
        PostgresQueueSource source = source();
        Browser b = serve(source);

        HttpResponse<String> page = b.get("/");

        assertThat(page.statusCode()).isEqualTo(200);
        String html = page.body();
        assertThat(html).contains(">orders</a>").contains(">mail</a>")
                .contains("jdbc:postgresql://127.0.0.1:" + postgres.port());
        assertThat(row(html, "orders")).contains("data-field=\"delayed\">1<").contains("data-field=\"ready\">3<")
                .contains("data-field=\"dead\">0<");
        assertThat(row(html, "mail")).contains("data-field=\"dead\">1<");
        assertThat(b.get("/queue?name=orders&state=ready").body()).contains("now-0").contains("now-2")
                .contains("pay 1").contains("tenant");
        assertThat(b.get("/queue?name=orders&state=delayed").body()).contains("later").doesNotContain("now-1");
        assertThat(b.get("/queue?name=mail&state=dead").body()).contains("doomed").contains("payload of doomed")
                .contains("card declined");
        assertThat(b.get("/queue?name=nosuch").statusCode()).isEqualTo(404);

        queue("billing");
        assertThat(b.get("/").body()).as("a queue created later").contains(">billing</a>");
    }

    @Test
    void pagesGoOnFromTheirCursorAndFindLooksUpAnyState() throws Exception {
        PostgresDelayedQueue<String> q = queue("orders");
        for (int i = 0; i < 5; i++) {
            q.offer("m" + i, "v" + i, Duration.ZERO);
        }
        q.offer("later", "v", Duration.ofHours(1));
        QueueView view = source().queue("orders").orElseThrow();

        Set<String> seen = new HashSet<>();
        Optional<String> cursor = Optional.empty();
        int pages = 0;
        do {
            MessagePage p = view.page(MessageState.READY, cursor, 2);
            assertThat(p.total()).isEqualTo(5);
            p.rows().forEach(r -> assertThat(seen.add(r.id())).as("seen once: " + r.id()).isTrue());
            cursor = p.next();
            pages++;
        } while (cursor.isPresent());

        assertThat(seen).containsExactlyInAnyOrder("m0", "m1", "m2", "m3", "m4");
        assertThat(pages).isEqualTo(3);
        assertThat(view.find("later").orElseThrow().state()).isEqualTo(MessageState.DELAYED);
        assertThat(view.find("m3").orElseThrow().payload()).asString().isEqualTo("v3");
        assertThat(view.find("nosuch")).isEmpty();
        assertThat(view.oldestReady()).isPresent();
        assertThat(view.counters().orElseThrow().offered()).isEqualTo(6);
        assertThatThrownBy(() -> view.page(MessageState.READY, Optional.of("bogus"), 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cursor");
    }

    @Test
    void pauseAndResumeGoThroughTheHttpEndpointsWithTheCsrfToken() throws Exception {
        PostgresDelayedQueue<String> orders = queue("orders");
        Browser b = serve(source());
        String csrf = b.csrf("/confirm?queue=orders&action=pause");
        Map<String, String> pause = Map.of("queue", "orders", "action", "pause", "confirm", "yes");
        assertThat(b.post("/action", pause).statusCode()).as("no token").isEqualTo(403);
        assertThat(orders.isPaused()).isFalse();

        Map<String, String> withToken = new java.util.HashMap<>(pause);
        withToken.put("_csrf", csrf);
        HttpResponse<String> r = b.post("/action", withToken);

        assertThat(r.statusCode()).isEqualTo(302);
        assertThat(orders.isPaused()).as("the pause is the queue's, for every client").isTrue();
        assertThat(b.get("/queue?name=orders").body()).contains("paused");
        assertThat(b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "resume", "confirm", "yes"))
                .statusCode()).isEqualTo(302);
        assertThat(orders.isPaused()).isFalse();
    }

    @Test
    void aConfirmedDeleteRemovesTheQueuesRowsAndItsRegistryEntry() throws Exception {
        PostgresDelayedQueue<String> orders = queue("orders");
        orders.offer("a", "pay", Duration.ofHours(1));
        kill(orders);
        PostgresDelayedQueue<String> mail = queue("mail");
        mail.offer("welcome", "hello", Duration.ofHours(1));
        Browser b = serve(source());
        String csrf = b.csrf("/confirm?queue=orders&action=delete");

        HttpResponse<String> r = b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "delete",
                "confirm", "yes"));

        assertThat(r.statusCode()).isEqualTo(302);
        assertThat(b.get("/").body()).doesNotContain("data-queue=\"orders\"").contains("data-queue=\"mail\"");
        assertThat(orders.stats().total()).isZero();
        assertThat(mail.stats().delayed()).isEqualTo(1);
    }

    @Test
    void theSchedulesAreListedAndPausedThroughTheEndpointsAndDeletedWithTheQueue() throws Exception {
        PostgresDelayedQueue<String> orders = queue("orders");
        PostgresSchedules<String> schedules = track(PostgresSchedules.builder(orders).build());
        schedules.put(Schedule.of("daily", ScheduleRule.fixedRate(Duration.ofDays(1)), "report"));
        Browser b = serve(source());

        String page = b.get("/queue?name=orders&state=schedules").body();
        assertThat(page).contains("daily").contains("action=pause-schedule&amp;id=daily");
        String csrf = b.csrf("/confirm?queue=orders&action=pause-schedule&id=daily");
        HttpResponse<String> r = b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action",
                "pause-schedule", "id", "daily", "confirm", "yes"));

        assertThat(r.statusCode()).isEqualTo(302);
        assertThat(schedules.get("daily").orElseThrow().paused()).isTrue();
        assertThat(b.post("/action", Map.of("_csrf", csrf, "queue", "orders", "action", "delete", "confirm", "yes"))
                .statusCode()).isEqualTo(302);
        assertThat(schedules.list()).as("deleted with the queue").isEmpty();
    }

    @Test
    void moreQueuesThanThePoolsBaseSizeAllOpen() throws Exception {
        int n = PostgresQueueSource.BASE_POOL_SIZE + 3;
        for (int i = 0; i < n; i++) {
            queue("q" + i).offer("m", "v", Duration.ZERO);
        }
        PostgresQueueSource source = source();

        for (int i = 0; i < n; i++) {
            assertThat(source.queue("q" + i).orElseThrow().stats().ready()).isEqualTo(1);
        }
        assertThat(source.queue("q0").orElseThrow().page(MessageState.READY, Optional.empty(), 10).rows())
                .hasSize(1);
    }

    @Test
    void theUrlIsShownWithoutItsPasswordAndAnUnreachableDatabaseSaysWhy() {
        String url = postgres.jdbcUrl() + "&password=hunter2secret";
        try (PostgresQueueSource s = PostgresQueueSource.connect(url, schema, 1)) {
            assertThat(s.describe()).doesNotContain("hunter2secret").contains("password=***")
                    .contains("schema " + schema);
        }
        assertThat(source().names()).as("a schema without queues").isEmpty();

        assertThatThrownBy(() -> PostgresQueueSource.connect("jdbc:postgresql://127.0.0.1:1/x", "ops",
                "hunter2secret", schema, 1))
                .isInstanceOf(PostgresQueueException.class)
                .hasMessageContaining("127.0.0.1:1").hasMessageContaining("refused")
                .hasMessageNotContaining("hunter2secret");
        assertThatThrownBy(() -> PostgresQueueSource.connect("postgres://127.0.0.1/x", schema, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbc:postgresql://");
        assertThat(PostgresQueueSource.redact("jdbc:postgresql://h/db?user=ops&password=s3cr3t&ssl=true"))
                .isEqualTo("jdbc:postgresql://h/db?user=ops&password=***&ssl=true");
    }

    private static String row(String html, String queue) {
        int start = html.indexOf("<tr data-queue=\"" + queue + "\"");
        assertThat(start).as("row of " + queue).isNotNegative();
        return html.substring(start, html.indexOf("</tr>", start));
    }
}

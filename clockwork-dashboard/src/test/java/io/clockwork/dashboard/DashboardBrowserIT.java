package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.postgres.PostgresDelayedQueue;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.RedisSchedules;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleRule;
import io.javalin.Javalin;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import io.clockwork.queue.DelayedQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, driven by
 * Selenium) against a real redis-server: one browser for the whole class. Skips, saying what to install, where no
 * Chromium is installed. With {@code -Dclockwork.screenshots=DIR} it saves the overview and a queue page there (the
 * README's pictures: {@code -Dclockwork.screenshots=../docs}).
 */
@ExtendWith(RedisExtension.class)
class DashboardBrowserIT {

    private static final String PASSWORD = "browser test password";
    private static WebDriver browser;

    private final RedisServerProcess redis;
    private final List<AutoCloseable> open = new ArrayList<>();

    DashboardBrowserIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @BeforeAll
    static void startBrowser() {
        Optional<Path> chromium = executable("chromium", "chromium-browser", "google-chrome");
        Optional<Path> driver = executable("chromedriver");
        Assumptions.assumeTrue(chromium.isPresent() && driver.isPresent(), "no Chromium here (chromium "
                + chromium.map(Path::toString).orElse("missing") + ", chromedriver " + driver.map(Path::toString)
                .orElse("missing") + "): install Debian's chromium and chromium-driver (apt-get install -y chromium "
                + "chromium-driver) to run the dashboard's browser tests");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.get().toFile());
        options.setCapability("goog:loggingPrefs", java.util.Map.of("browser", "ALL"));
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1100", "--no-first-run", "--disable-extensions");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.get().toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        browser.manage().deleteAllCookies();
        browser.manage().logs().get("browser"); // drained: each test reads only its own console
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private static Optional<Path> executable(String... names) {
        String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/bin:/usr/lib/chromium";
        return Stream.of(names).flatMap(n -> Stream.of(path.split(File.pathSeparator)).map(d -> Path.of(d, n)))
                .filter(Files::isExecutable).findFirst();
    }

    private <T extends AutoCloseable> T track(T t) {
        open.add(t);
        return t;
    }

    private RedisDelayedQueue<String> queue(String name) {
        return track(RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).maxAttempts(1).build());
    }

    private String serve(String host, UnaryOperator<Dashboard.Builder> options) {
        RedisQueueSource source = track(RedisQueueSource.connect(redis.uri(), 1));
        Dashboard d = track(options.apply(Dashboard.builder(source).sampleInterval(Duration.ofMillis(200))).build());
        Javalin app = d.start(host, 0);
        return "http://127.0.0.1:" + app.port();
    }

    private static void kill(RedisDelayedQueue<String> q, String id, String payload) throws InterruptedException {
        q.offer(id, payload, Duration.ZERO);
        Delivery<String> d = q.poll(Duration.ofSeconds(2));
        assertThat(d.id()).isEqualTo(id);
        d.nack(Duration.ZERO);
    }

    private static WebDriverWait await() {
        return new WebDriverWait(browser, Duration.ofSeconds(10));
    }

    private static String field(String queue, String field) {
        return browser.findElement(By.cssSelector("tr[data-queue='" + queue + "'] td[data-field='" + field + "']"))
                .getText();
    }

    @Test
    void theOverviewIsACompactTableAndTheQueuePageDrawsTheCharts() throws Exception {
        RedisDelayedQueue<String> orders = queue("orders");
        RedisDelayedQueue<String> mail = queue("mail");
        for (int i = 1; i <= 12; i++) {
            orders.offer(Message.of("{\"order\":" + i + ",\"amount\":" + (10 * i) + "}").id("order-" + i)
                    .header("tenant", "acme").delay(Duration.ofMinutes(i)));
        }
        kill(orders, "order-broken", "{\"order\":\"?\"}");
        for (int i = 1; i <= 3; i++) {
            orders.offer("payment-" + i, "pay order " + i, Duration.ZERO);
        }
        mail.offer("welcome", "welcome mail", Duration.ZERO);
        List<RedisDelayedQueue<String>> others = new ArrayList<>();
        for (String name : List.of("billing", "reports", "webhooks")) {
            others.add(queue(name));
            others.get(others.size() - 1).offer(name + "-1", name, Duration.ofSeconds(30));
        }
        String root = serve("127.0.0.1", x -> x);

        browser.get(root + "/");

        for (RedisDelayedQueue<String> q : List.of(orders, mail)) {
            QueueStats s = q.stats();
            assertThat(field(q.name(), "delayed")).isEqualTo(Texts.count(s.delayed()));
            assertThat(field(q.name(), "ready")).isEqualTo(Texts.count(s.ready()));
            assertThat(field(q.name(), "in-flight")).isEqualTo(Texts.count(s.inFlight()));
            assertThat(field(q.name(), "dead")).isEqualTo(Texts.count(s.dead()));
        }
        assertThat(field("orders", "delayed")).isEqualTo("12");
        assertThat(field("orders", "dead")).isEqualTo("1");
        // Five queues: one row each with a sparkline of its samples, and no chart.
        await().until(b -> {
            b.navigate().refresh();
            return b.findElements(By.cssSelector("#queues svg.spark polyline")).size() == 5;
        });
        assertThat(browser.findElements(By.cssSelector("#queues tbody tr"))).hasSize(5);
        assertThat(browser.findElements(By.cssSelector("canvas, .chart, .uplot"))).as("charts on the overview")
                .isEmpty();
        assertThat(browser.findElement(By.cssSelector("tr[data-queue='orders'] svg.spark")).getSize().getHeight())
                .isLessThanOrEqualTo(Sparkline.HEIGHT);
        assertThat(browser.findElement(By.id("queues")).getSize().getHeight()).as("one compact table")
                .isLessThan(400);
        if (screenshots()) {
            // A picture with some history: offers between reloads, until the sparklines draw ten samples (one every
            // 200 ms here).
            int[] offered = {0};
            new WebDriverWait(browser, Duration.ofSeconds(30)).pollingEvery(Duration.ofSeconds(1)).until(b -> {
                offered[0]++;
                orders.offer("extra-" + offered[0], "more", Duration.ZERO);
                others.get(0).offer("extra-" + offered[0], "more", Duration.ofHours(1));
                b.navigate().refresh();
                return sparkPoints(b, "orders") >= 10 && offered[0] >= 5;
            });
        }
        screenshot("dashboard-overview.png");
        assertConsoleClean();

        browser.findElement(By.linkText("orders")).click();
        // The charts are drawn by dashboard.js (no inline script runs under the page's CSP) once samples exist.
        await().until(b -> b.findElements(By.cssSelector("section.charts[data-queue='orders'] canvas")).size() >= 3);
        await().until(b -> points(b) >= 2);
        assertThat(browser.findElements(By.cssSelector(".chart"))).hasSize(3);
        assertConsoleClean();
        if (screenshots()) {
            new WebDriverWait(browser, Duration.ofSeconds(30)).pollingEvery(Duration.ofSeconds(1)).until(b -> {
                b.navigate().refresh();
                return new WebDriverWait(b, Duration.ofSeconds(5)).until(x -> points(x) >= 2) && points(b) >= 10;
            });
        }
        browser.findElement(By.id("tab-delayed")).click();
        assertThat(browser.findElements(By.cssSelector("#messages tbody tr"))).hasSize(12);
        assertThat(browser.findElement(By.cssSelector("#messages tr[data-id='order-1'] td.payload")).getText())
                .isEqualTo("{\"order\":1,\"amount\":10}");
        screenshot("dashboard-queue.png");
    }

    @Test
    void aChartWithOneSampleSpansTwelveSamplingIntervalsEndingAtTheSample() throws Exception {
        queue("orders").offer("o-1", "pay 10", Duration.ofMinutes(5));
        String root = serve("127.0.0.1", x -> x.sampleInterval(Duration.ofHours(1))); // the first sample only

        browser.get(root + "/queue?name=orders");
        await().until(b -> points(b) == 1);

        for (WebElement chart : browser.findElements(By.cssSelector(".chart"))) {
            @SuppressWarnings("unchecked")
            List<Number> x = (List<Number>) ((JavascriptExecutor) browser).executeScript(
                    "var u = arguments[0].uplot; return [u.scales.x.min, u.scales.x.max, u.data[0][0]];", chart);
            double min = x.get(0).doubleValue();
            double max = x.get(1).doubleValue();
            double sample = x.get(2).doubleValue();
            assertThat(max - min).as("the time axis of %s, in seconds", chart.getAttribute("data-chart"))
                    .isEqualTo(12 * 3600.0);
            assertThat(sample).isBetween(min, max);
            assertThat(max).isEqualTo(sample);
        }
        assertConsoleClean();
    }

    @Test
    void timeAxisLabelsNeverOverlap() throws Exception {
        queue("orders").offer("o-1", "pay 10", Duration.ofMinutes(5));
        String root = serve("127.0.0.1", x -> x);
        browser.get(root + "/queue?name=orders");
        await().until(b -> b.findElements(By.cssSelector(".chart canvas")).size() == 3);
        List<WebElement> charts = browser.findElements(By.cssSelector(".chart"));

        int pairs = 0;
        for (long span : new long[] {10, 90, 600, 3_600, 6 * 3_600, 86_400, 7 * 86_400}) {
            for (WebElement chart : charts) {
                List<double[]> boxes = labelBoxes(chart, span);
                String what = chart.getAttribute("data-chart") + " over " + span + " s";
                assertThat(boxes).as("labels of %s", what).isNotEmpty();
                for (int i = 1; i < boxes.size(); i++) {
                    assertThat(boxes.get(i)[0] - boxes.get(i - 1)[1]).as("gap between labels %d and %d of %s: %s",
                            i - 1, i, what, boxesText(boxes)).isGreaterThanOrEqualTo(2.0);
                    pairs++;
                }
            }
        }
        assertThat(pairs).as("neighbouring labels measured").isGreaterThanOrEqualTo(10);
    }

    /**
     * Draws {@code span} seconds of made-up samples on a chart and measures its time axis's labels as drawn: each
     * label's text in the axis's font, centred on its tick.
     *
     * @return each label's {left, right} in CSS pixels, left to right
     */
    private static List<double[]> labelBoxes(WebElement chart, long span) {
        String script = "var el = arguments[0], span = arguments[1], done = arguments[arguments.length - 1];"
                + "var u = el.uplot, n = 60, now = Math.floor(Date.now() / 1000), data = [[]];"
                + "for (var i = 0; i < n; i++) { data[0].push(now - span + span * i / (n - 1)); }"
                + "for (var s = 1; s < u.series.length; s++) { data.push(data[0].map(function (t, i) { return i; })); }"
                + "u.setData(data);"
                + "setTimeout(function () {"
                + "  var a = u.axes[0], ctx = document.createElement('canvas').getContext('2d'), out = [];"
                + "  ctx.font = a.font[0];"
                + "  a._splits.forEach(function (v, i) {"
                + "    var text = a._values[i]; if (text == null) { return; }"
                + "    var w = Math.max.apply(null, String(text).split('\\n').map(function (l) {"
                + "      return ctx.measureText(l).width; }));"
                + "    var x = u.valToPos(v, 'x'); out.push([x - w / 2, x + w / 2]);"
                + "  });"
                + "  done({span: u.scales.x.max - u.scales.x.min, boxes: out});"
                + "}, 50);";
        for (int attempt = 0; ; attempt++) {
            @SuppressWarnings("unchecked")
            java.util.Map<String, Object> r = (java.util.Map<String, Object>) ((JavascriptExecutor) browser)
                    .executeAsyncScript(script, chart, span);
            double drawn = ((Number) r.get("span")).doubleValue();
            if (Math.abs(drawn - Math.max(span, 60)) > 1 && attempt < 3) {
                continue; // the page's own refresh drew its samples in between: draw again
            }
            assertThat(drawn).as("the span drawn").isCloseTo(Math.max(span, 60), org.assertj.core.data.Offset
                    .offset(1.0));
            List<double[]> boxes = new ArrayList<>();
            @SuppressWarnings("unchecked")
            List<List<Number>> raw = (List<List<Number>>) r.get("boxes");
            for (List<Number> b : raw) {
                boxes.add(new double[] {b.get(0).doubleValue(), b.get(1).doubleValue()});
            }
            return boxes;
        }
    }

    private static String boxesText(List<double[]> boxes) {
        StringBuilder b = new StringBuilder();
        boxes.forEach(x -> b.append(String.format(java.util.Locale.ROOT, "[%.1f, %.1f] ", x[0], x[1])));
        return b.toString();
    }

    @Test
    void aQueueIsDeletedFromItsPageAfterConfirmation() throws Exception {
        RedisDelayedQueue<String> demo = queue("demo-leftover");
        kill(demo, "d-1", "left behind");
        demo.offer("d-2", "later", Duration.ofHours(1));
        queue("orders").offer("o-1", "pay 10", Duration.ofHours(1));
        String root = serve("127.0.0.1", x -> x);

        browser.get(root + "/");
        browser.findElement(By.linkText("demo-leftover")).click();
        browser.findElement(By.linkText("Delete queue")).click();
        assertThat(browser.findElement(By.id("question")).getText()).contains("Delete queue demo-leftover")
                .contains("1 delayed").contains("1 dead");
        assertThat(redis.call("EXISTS", "cw:{demo-leftover:0}:dead")).as("nothing happens before the confirmation")
                .isEqualTo(1L);
        browser.findElement(By.id("confirm")).click();

        await().until(b -> !b.findElements(By.id("notice")).isEmpty());
        assertThat(browser.findElement(By.id("notice")).getText()).contains("delete on demo-leftover: deleted");
        assertThat(browser.findElements(By.cssSelector("tr[data-queue='demo-leftover']"))).isEmpty();
        assertThat(browser.findElements(By.cssSelector("tr[data-queue='orders']"))).hasSize(1);
        @SuppressWarnings("unchecked")
        List<String> keys = (List<String>) redis.call("KEYS", "*demo-leftover*");
        assertThat(keys).isEmpty();
    }

    private void assertConsoleClean() {
        assertThat(browser.manage().logs().get("browser").getAll()).as("the console: no CSP violation, no error")
                .noneMatch(e -> e.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()
                        || e.getMessage().contains("Content Security Policy"));
    }

    @Test
    void aQueuePageListsTheGroupsHoldingTheMostReadyMessages() throws Exception {
        InMemoryDelayedQueue<String> tenants = track(InMemoryDelayedQueue.<String>builder().name("tenants").build());
        for (int i = 0; i < 12; i++) {
            tenants.offer(Message.of("big-" + i).group("tenant-big"));
        }
        for (int g = 0; g < 11; g++) {
            tenants.offer(Message.of("small-" + g).group("tenant-" + g));
        }
        tenants.offer(Message.of("no group"));
        Delivery<String> taken = tenants.poll(Duration.ZERO);
        Dashboard d = track(Dashboard.builder(InProcessQueueSource.of(List.of(tenants))).build());
        String root = "http://127.0.0.1:" + d.start("127.0.0.1", 0).port();

        browser.get(root + "/queue?name=tenants");
        List<WebElement> rows = browser.findElements(By.cssSelector("#groups tbody tr"));
        assertThat(rows).as("the ten largest of 12 groups").hasSize(10);
        WebElement first = rows.get(0);
        assertThat(first.getAttribute("data-group")).isEqualTo("tenant-big");
        boolean bigTaken = taken.value().startsWith("big-");
        assertThat(first.findElement(By.cssSelector("[data-field='ready']")).getText())
                .isEqualTo(bigTaken ? "11" : "12");
        assertThat(browser.findElements(By.cssSelector("#groups tr[data-group='']"))).as("ungrouped").isEmpty();
        assertThat(browser.findElement(By.id("groups")).getText()).doesNotContain("no group");
        assertConsoleClean();

        taken.ack();
        for (Delivery<String> rest : tenants.poll(DelayedQueue.MAX_BATCH, Duration.ZERO)) {
            rest.ack();
        }
        browser.navigate().refresh();
        assertThat(browser.findElements(By.id("groups"))).as("no group has a backlog").isEmpty();
    }

    @Test
    void aQueuePageShowsThePollsARateLimitHeldBackAndChartsTheirRate() throws Exception {
        InMemoryDelayedQueue<String> paced = track(InMemoryDelayedQueue.<String>builder().name("paced")
                .rateLimit(1, Duration.ofHours(1)).build());
        paced.offerAll(List.of("a", "b"), Duration.ZERO);
        assertThat(paced.poll(Duration.ZERO).value()).isEqualTo("a");
        assertThat(paced.poll(Duration.ZERO)).as("b waits an hour for the next permit").isNull();
        assertThat(paced.poll(Duration.ZERO)).isNull();
        Dashboard d = track(Dashboard.builder(InProcessQueueSource.of(List.of(paced)))
                .sampleInterval(Duration.ofMillis(200)).build());
        String root = "http://127.0.0.1:" + d.start("127.0.0.1", 0).port();

        browser.get(root + "/queue?name=paced");
        assertThat(browser.findElement(By.id("rate-limited")).getText()).isEqualTo("2 rate-limited waits");
        assertThat(browser.findElement(By.id("rate-limited")).getAttribute("title")).contains("rate limit");
        await().until(b -> points(b) >= 2);
        WebElement rates = browser.findElement(By.cssSelector(".chart[data-chart='rates']"));
        assertThat(((JavascriptExecutor) browser).executeScript(
                "return arguments[0].uplot.series.map(function (s) { return s.label; });", rates))
                .asList().contains("rate-limited/s");
        assertThat(rates.getText()).as("the legend").contains("rate-limited/s");

        for (int i = 0; i < 5; i++) {
            assertThat(paced.poll(Duration.ZERO)).isNull();
        }
        // The page redraws its charts from new samples every few seconds; a reload draws them at once.
        new WebDriverWait(browser, Duration.ofSeconds(20)).pollingEvery(Duration.ofMillis(500)).until(b -> {
            b.navigate().refresh();
            return new WebDriverWait(b, Duration.ofSeconds(5)).until(x -> points(x) >= 2)
                    && maxOfSeries(b, "rates", "rate-limited/s") > 0;
        });
        assertThat(browser.findElement(By.id("rate-limited")).getText()).isEqualTo("7 rate-limited waits");
        assertConsoleClean();
    }

    /** @return the largest value a chart draws for the series of this label, 0 if none */
    private static double maxOfSeries(WebDriver b, String chart, String label) {
        Object max = ((JavascriptExecutor) b).executeScript("var chart = arguments[0], label = arguments[1];"
                + "var u = document.querySelector(\".chart[data-chart='\" + chart + \"']\").uplot;"
                + "if (!u) { return 0; }"
                + "var i = u.series.findIndex(function (s) { return s.label === label; });"
                + "return i < 0 ? 0 : Math.max.apply(null, [0].concat(u.data[i].filter(function (v) {"
                + "  return v != null; })));", chart, label);
        return ((Number) max).doubleValue();
    }

    @Test
    void aRequeueFromThePageMovesTheDeadLetter() throws Exception {
        RedisDelayedQueue<String> q = queue("orders");
        kill(q, "order-7", "pay 70");
        String root = serve("127.0.0.1", x -> x);

        browser.get(root + "/queue?name=orders&state=dead");
        WebElement row = browser.findElement(By.cssSelector("#messages tr[data-id='order-7']"));
        assertThat(row.getText()).contains("pay 70");
        row.findElement(By.linkText("Requeue")).click();
        assertThat(browser.findElement(By.id("question")).getText()).contains("Requeue dead letter order-7");
        assertThat(q.stats().dead()).as("nothing happens before the confirmation").isEqualTo(1);
        browser.findElement(By.id("confirm")).click();

        await().until(b -> !b.findElements(By.id("notice")).isEmpty());
        assertThat(browser.findElement(By.id("notice")).getText()).contains("order-7").contains("requeued");
        assertThat(q.stats().dead()).isZero();
        assertThat(q.stats().ready()).isEqualTo(1);
        assertThat(q.poll(Duration.ofSeconds(1)).id()).isEqualTo("order-7");
    }

    @Test
    void aPostgresQueueIsListedBrowsedAndPausedInTheBrowser() throws Exception {
        PostgresServerProcess postgres = PostgresServerProcess.shared();
        String schema = "browser_" + ProcessHandle.current().pid();
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(postgres.jdbcUrl());
        config.setMaximumPoolSize(4);
        com.zaxxer.hikari.HikariDataSource pool = track(new com.zaxxer.hikari.HikariDataSource(config));
        PostgresDelayedQueue<String> q = track(PostgresDelayedQueue.builder(pool, "pg-orders", Codec.string())
                .schema(schema).maxAttempts(1).build());
        for (int i = 1; i <= 3; i++) {
            q.offer(Message.of("{\"order\":" + i + "}").id("pg-order-" + i).header("tenant", "acme")
                    .delay(Duration.ofMinutes(i)));
        }
        q.offer("pg-now", "pay now", Duration.ZERO);
        PostgresQueueSource source = track(PostgresQueueSource.connect(postgres.jdbcUrl(), schema, 1));
        Dashboard d = track(Dashboard.builder(source).sampleInterval(Duration.ofMillis(200)).build());
        String root = "http://127.0.0.1:" + d.start("127.0.0.1", 0).port();

        browser.get(root + "/");
        assertThat(field("pg-orders", "delayed")).isEqualTo("3");
        assertThat(field("pg-orders", "ready")).isEqualTo("1");
        browser.findElement(By.linkText("pg-orders")).click();
        browser.findElement(By.id("tab-delayed")).click();
        assertThat(browser.findElements(By.cssSelector("#messages tbody tr"))).hasSize(3);
        assertThat(browser.findElement(By.cssSelector("#messages tr[data-id='pg-order-2'] td.payload")).getText())
                .isEqualTo("{\"order\":2}");

        browser.findElement(By.cssSelector("a.action.pause")).click();
        assertThat(q.isPaused()).as("nothing happens before the confirmation").isFalse();
        browser.findElement(By.id("confirm")).click();
        await().until(b -> b.findElement(By.id("queue-state")).getText().equals("paused"));
        assertThat(q.isPaused()).isTrue();
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertConsoleClean();
    }

    @Test
    void aQueueIsPausedAndResumedFromItsPageAfterConfirmation() throws Exception {
        RedisDelayedQueue<String> q = queue("orders");
        q.offer("order-5", "pay 50", Duration.ZERO);
        String root = serve("127.0.0.1", x -> x);

        browser.get(root + "/queue?name=orders");
        assertThat(browser.findElement(By.id("queue-state")).getText()).isEqualTo("running");
        browser.findElement(By.cssSelector("a.action.pause")).click();
        assertThat(browser.findElement(By.id("question")).getText()).contains("Pause queue orders");
        assertThat(q.isPaused()).as("nothing happens before the confirmation").isFalse();
        browser.findElement(By.id("confirm")).click();

        await().until(b -> !b.findElements(By.id("notice")).isEmpty());
        assertThat(browser.findElement(By.id("notice")).getText()).contains("orders").contains("paused");
        assertThat(browser.findElement(By.id("queue-state")).getText()).isEqualTo("paused");
        assertThat(q.isPaused()).isTrue();
        assertThat(q.poll(Duration.ZERO)).isNull();
        browser.get(root + "/");
        assertThat(browser.findElement(By.cssSelector("tr[data-queue='orders'] .badge.paused")).getText())
                .isEqualTo("paused");

        browser.get(root + "/queue?name=orders");
        browser.findElement(By.cssSelector("a.action.resume")).click();
        assertThat(browser.findElement(By.id("question")).getText()).contains("Resume queue orders");
        browser.findElement(By.id("confirm")).click();
        await().until(b -> b.findElement(By.id("queue-state")).getText().equals("running"));
        assertThat(browser.findElement(By.id("notice")).getText()).contains("resumed");
        assertThat(q.isPaused()).isFalse();
        assertThat(q.poll(Duration.ofSeconds(2)).id()).isEqualTo("order-5");
        assertConsoleClean();
    }

    @Test
    void aPauseFromTheSchedulesTabPausesTheSchedule() throws Exception {
        RedisDelayedQueue<String> q = queue("orders");
        RedisSchedules<String> schedules = track(RedisSchedules.builder(q).build());
        schedules.put(Schedule.of("nightly", ScheduleRule.fixedRate(Duration.ofDays(1)), "close the books"));
        String root = serve("127.0.0.1", x -> x);

        browser.get(root + "/queue?name=orders");
        browser.findElement(By.id("tab-schedules")).click();
        WebElement row = browser.findElement(By.cssSelector("#schedules tr[data-schedule='nightly']"));
        assertThat(row.getText()).contains("rate:PT24H").contains("active");
        row.findElement(By.linkText("Pause")).click();
        assertThat(browser.findElement(By.id("question")).getText()).contains("Pause schedule nightly");
        assertThat(schedules.get("nightly").orElseThrow().paused()).as("nothing happens before the confirmation")
                .isFalse();
        browser.findElement(By.id("confirm")).click();

        await().until(b -> !b.findElements(By.id("notice")).isEmpty());
        assertThat(browser.findElement(By.id("notice")).getText()).contains("nightly").contains("paused");
        assertThat(browser.findElement(By.cssSelector("#schedules tr[data-schedule='nightly']")).getText())
                .contains("paused");
        assertThat(schedules.get("nightly").orElseThrow().paused()).isTrue();
    }

    @Test
    void readOnlyShowsNoActionAndRefusesOneSentAnyway() throws Exception {
        RedisDelayedQueue<String> q = queue("orders");
        kill(q, "order-9", "pay 90");
        String root = serve("127.0.0.1", Dashboard.Builder::readOnly);

        browser.get(root + "/queue?name=orders&state=dead");
        assertThat(browser.findElement(By.cssSelector("#messages tr[data-id='order-9']")).getText()).contains("pay 90");
        assertThat(browser.findElements(By.cssSelector("a.action"))).isEmpty();
        // A form built in the page, with the session's own CSRF token, as a tampering user would send it.
        ((JavascriptExecutor) browser).executeScript(
                "var f = document.createElement('form'); f.method = 'post'; f.action = arguments[0];"
                        + "var token = document.querySelector('meta[name=csrf-token]').content;"
                        + "[['_csrf', token], ['queue', 'orders'], ['action', 'purge'], ['confirm', 'yes']]"
                        + ".forEach(function (p) { var i = document.createElement('input'); i.type = 'hidden';"
                        + "i.name = p[0]; i.value = p[1]; f.appendChild(i); });"
                        + "document.body.appendChild(f); f.submit();", root + "/action");

        await().until(b -> b.getCurrentUrl().endsWith("/action"));
        assertThat(browser.findElement(By.id("message")).getText()).contains("read-only");
        assertThat(q.stats().dead()).isEqualTo(1);
    }

    @Test
    void boundOffLoopbackTheDashboardRequiresASignIn() throws Exception {
        queue("orders").offer("o-1", "pay 10", Duration.ofHours(1));
        RedisQueueSource source = track(RedisQueueSource.connect(redis.uri(), 1));
        Dashboard open = track(Dashboard.builder(source).build());
        assertThatThrownBy(() -> open.start("0.0.0.0", 0)).hasMessageContaining("requires authentication");
        String root = serve("0.0.0.0", x -> x.password(PASSWORD.toCharArray()));

        browser.get(root + "/");
        assertThat(browser.getCurrentUrl()).endsWith("/login");
        assertThat(browser.getPageSource()).doesNotContain("orders");
        browser.findElement(By.id("user")).sendKeys("ann");
        browser.findElement(By.id("password")).sendKeys("not the password");
        browser.findElement(By.id("sign-in")).click();
        // the refused sign-in loads a new page: wait for it instead of reading it at once
        await().until(b -> !b.findElements(By.id("login-error")).isEmpty());
        assertThat(browser.findElement(By.id("login-error")).getText()).contains("Wrong password");

        browser.findElement(By.id("user")).sendKeys("ann");
        browser.findElement(By.id("password")).sendKeys(PASSWORD);
        browser.findElement(By.id("sign-in")).click();
        await().until(b -> !b.findElements(By.cssSelector("header .user")).isEmpty());
        assertThat(field("orders", "delayed")).isEqualTo("1");
        assertThat(browser.findElement(By.cssSelector("header .user")).getText()).isEqualTo("ann");

        browser.findElement(By.id("sign-out")).click();
        // the signed-in page goes: while it does, Chromium may answer a look-up with an error about a node of the
        // old document, hence the ignoring
        await().ignoring(WebDriverException.class).until(b -> b.findElements(By.id("sign-out")).isEmpty());
        browser.get(root + "/queue?name=orders");
        assertThat(browser.getCurrentUrl()).endsWith("/login");
    }

    /** @return how many samples the first chart of the page draws */
    private static int points(WebDriver b) {
        List<WebElement> charts = b.findElements(By.cssSelector("section.charts .chart"));
        String n = charts.isEmpty() ? null : charts.get(0).getAttribute("data-points");
        return n == null ? 0 : Integer.parseInt(n);
    }

    /** @return how many samples a queue's sparkline on the overview draws */
    private static int sparkPoints(WebDriver b, String queue) {
        List<WebElement> spark = b.findElements(By.cssSelector("tr[data-queue='" + queue + "'] svg.spark"));
        String n = spark.isEmpty() ? null : spark.get(0).getAttribute("data-points");
        return n == null ? 0 : Integer.parseInt(n);
    }

    private static boolean screenshots() {
        String dir = System.getProperty("clockwork.screenshots");
        return dir != null && !dir.isBlank();
    }

    private static void screenshot(String name) throws IOException {
        if (!screenshots()) {
            return;
        }
        String dir = System.getProperty("clockwork.screenshots");
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), Path.of(dir).resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }
}

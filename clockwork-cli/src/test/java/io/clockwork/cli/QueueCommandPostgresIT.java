package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.PostgresDelayedQueue;
import io.clockwork.postgres.PostgresSchedules;
import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.schedule.ScheduleInfo;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code clockwork queue ... --postgres}, {@code clockwork schedule ... --postgres} and {@code clockwork dashboard
 * --postgres} on a real PostgreSQL server, on a queue that a {@link PostgresDelayedQueue} client created. Each test
 * has a schema of its own.
 */
@ExtendWith(PostgresExtension.class)
class QueueCommandPostgresIT {

    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    private final PostgresServerProcess postgres;
    private final List<AutoCloseable> open = new ArrayList<>();
    private String schema;
    private PostgresDelayedQueue<String> orders;

    QueueCommandPostgresIT(PostgresServerProcess postgres) {
        this.postgres = postgres;
    }

    /** Two delayed orders and one dead letter, in queue 'orders' of a schema of the test's own. */
    @BeforeEach
    void seed() throws InterruptedException {
        schema = "cli_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.jdbcUrl());
        config.setMaximumPoolSize(4);
        HikariDataSource pool = track(new HikariDataSource(config));
        orders = track(PostgresDelayedQueue.builder(pool, "orders", Codec.string()).schema(schema).maxAttempts(1)
                .build());
        orders.offer("order-1", "pay 10", Duration.ofHours(1));
        orders.offer("order-2", "pay 20", Duration.ofHours(2));
        orders.offer("bad-1", "declined", Duration.ZERO);
        Delivery<String> d = orders.poll(Duration.ofSeconds(5));
        assertThat(d.id()).isEqualTo("bad-1");
        d.nack(Duration.ZERO, "card declined");
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

    private Cli.Result queue(String... args) {
        List<String> argv = new ArrayList<>(List.of("queue", args[0], "--postgres", postgres.jdbcUrl(), "--schema",
                schema, "--queue", "orders"));
        argv.addAll(List.of(args).subList(1, args.length));
        return Cli.run(argv.toArray(String[]::new));
    }

    @Test
    void statsCountsByStateWithoutPartitions() {
        Cli.Result r = queue("stats");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("queue 'orders' on postgresql 127.0.0.1:" + postgres.port())
                .contains("schema " + schema).doesNotContain("partitions")
                .containsPattern("paused +no").containsPattern("delayed +2\\b").containsPattern("ready +0\\b")
                .containsPattern("dead +1\\b").containsPattern("total +3\\b")
                .containsPattern("offered +3\\b").containsPattern("dead-lettered +1\\b");
    }

    @Test
    void pauseAndResumeAreTheQueuesForEveryClient() {
        Cli.Result paused = queue("pause");
        assertThat(paused.exit()).as(paused.err()).isZero();
        assertThat(paused.out()).contains("paused orders");
        assertThat(orders.isPaused()).isTrue();
        assertThat(queue("stats").out()).containsPattern("paused +yes");

        Cli.Result resumed = queue("resume");
        assertThat(resumed.exit()).as(resumed.err()).isZero();
        assertThat(orders.isPaused()).isFalse();
    }

    @Test
    void promoteMakesADelayedMessageDueAndCancelRemovesOne() throws InterruptedException {
        Cli.Result promoted = queue("promote", "order-2", "no-such");
        assertThat(promoted.exit()).as("one id missed").isEqualTo(1);
        assertThat(promoted.out()).contains("promoted order-2");
        assertThat(promoted.err()).contains("not promoted no-such");
        assertThat(orders.stats().ready()).isEqualTo(1);

        Cli.Result cancelled = queue("cancel", "order-1");
        assertThat(cancelled.exit()).as(cancelled.err()).isZero();
        assertThat(cancelled.out()).contains("cancelled order-1");
        assertThat(orders.stats().delayed()).isZero();
        Delivery<String> d = orders.poll(Duration.ofSeconds(5));
        assertThat(d.id()).isEqualTo("order-2");
        d.ack();
    }

    @Test
    void deadLettersAreListedRequeuedAndPurged() {
        Cli.Result list = queue("list");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out()).contains("1 dead letter").contains("bad-1").contains("card declined")
                .contains("\"declined\"");
        assertThat(queue("peek").out()).contains("oldest dead letter bad-1");

        Cli.Result requeued = queue("requeue-dead", "bad-1");
        assertThat(requeued.exit()).as(requeued.err()).isZero();
        assertThat(orders.stats().dead()).isZero();
        assertThat(orders.stats().ready()).isEqualTo(1);

        orders.offer("bad-2", "x", Duration.ofHours(1));
        assertThat(queue("purge-dead").exit()).as("without --yes").isEqualTo(2);
        Cli.Result purged = queue("purge-dead", "--yes");
        assertThat(purged.exit()).as(purged.err()).isZero();
        assertThat(purged.out()).contains("purged 0 dead letters");
    }

    @Test
    void anUnknownQueueIsAnErrorAndCreatesNothing() {
        Cli.Result r = Cli.run("queue", "stats", "--postgres", postgres.jdbcUrl(), "--schema", schema, "--queue",
                "ordres");

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("unknown queue 'ordres'").contains("check --queue");
        Cli.Result noSchema = Cli.run("queue", "stats", "--postgres", postgres.jdbcUrl(), "--schema", "nowhere",
                "--queue", "orders");
        assertThat(noSchema.exit()).isEqualTo(1);
        assertThat(noSchema.err()).contains("unknown queue 'orders'").contains("check --schema");
        assertThat(queue("stats").out()).as("still one queue").containsPattern("total +3\\b");
    }

    @Test
    void deleteRemovesTheQueueAndItsRegistryRow() {
        Cli.Result r = Cli.run("queue", "delete", "orders", "--yes", "--postgres", postgres.jdbcUrl(), "--schema",
                schema);

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("deleted queue 'orders'").contains("2 delayed").contains("1 dead");
        assertThat(orders.stats().total()).isZero();
        assertThat(queue("stats").err()).contains("unknown queue 'orders'");
    }

    @Test
    void thePasswordComesFromAFileOrTheEnvironment(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("pgpass");
        Files.writeString(file, "s3cret-from-file\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        // The fixture's server trusts loopback connections: any password is accepted; what is checked is that the
        // sources are read and the password never shows.
        Cli.Result fromFile = Cli.run("queue", "stats", "--postgres", postgres.jdbcUrl(), "--schema", schema,
                "--queue", "orders", "--postgres-password-file", file.toString());
        assertThat(fromFile.exit()).as(fromFile.err()).isZero();
        Cli.Result fromEnv = Cli.run(Map.of(PostgresOptions.PASSWORD_ENV, "s3cret-from-env"), "queue", "stats",
                "--postgres", postgres.jdbcUrl(), "--schema", schema, "--queue", "orders");
        assertThat(fromEnv.exit()).as(fromEnv.err()).isZero();
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        Cli.Result exposed = Cli.run("queue", "stats", "--postgres", postgres.jdbcUrl(), "--schema", schema,
                "--queue", "orders", "--postgres-password-file", file.toString());
        assertThat(exposed.exit()).isEqualTo(2);
        assertThat(exposed.err()).contains("chmod 600").doesNotContain("s3cret");
    }

    private Cli.Result schedule(String sub, String... args) {
        List<String> argv = new ArrayList<>(List.of("schedule", sub, "--postgres", postgres.jdbcUrl(), "--schema",
                schema, "--queue", "orders"));
        argv.addAll(List.of(args));
        return Cli.run(argv.toArray(String[]::new));
    }

    @Test
    void schedulesAreAddedListedPausedResumedAndDeletedBesideTheQueue() {
        PostgresSchedules<String> schedules = track(PostgresSchedules.builder(orders).build());
        Cli.Result added = schedule("add", "--name", "report", "--cron", "0 9 * * MON-FRI", "--zone",
                "Europe/Paris", "--value", "build the report", "--header", "tenant=acme");
        assertThat(added.exit()).as(added.err()).isZero();
        assertThat(added.out()).contains("added queue 'orders' on postgresql 127.0.0.1:", "report",
                "cron:0 9 * * MON-FRI|Europe/Paris");
        assertThat(schedule("add", "--name", "beat", "--every", "1h").exit()).isZero();
        assertThat(schedules.list()).extracting(ScheduleInfo::name).containsExactly("beat", "report");

        Cli.Result list = schedule("list");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out()).contains("2 schedules").contains("rate:PT1H");
        assertThat(schedule("pause", "report").out()).contains("paused report");
        assertThat(schedules.get("report").orElseThrow().paused()).isTrue();
        assertThat(schedule("resume", "report").out()).contains("resumed report");
        assertThat(schedules.get("report").orElseThrow().paused()).isFalse();
        Cli.Result deleted = schedule("delete", "report", "nothing");
        assertThat(deleted.exit()).isEqualTo(1);
        assertThat(deleted.out()).contains("deleted report");
        assertThat(schedules.list()).extracting(ScheduleInfo::name).containsExactly("beat");
        Cli.Result unknown = Cli.run("schedule", "list", "--postgres", postgres.jdbcUrl(), "--schema", schema,
                "--queue", "ordres");
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).contains("unknown queue 'ordres'").contains("check --queue");
    }

    @Test
    void theDashboardServesTheSchemasQueuesUntilStopped() throws Exception {
        CommandLine cl = ClockworkCli.commandLine(Map.of());
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(new StringWriter(), true));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cl.execute("dashboard", "--postgres",
                postgres.jdbcUrl(), "--schema", schema, "--port", "0"));
        Matcher m = DashboardCommandIT.awaitAddress(out, exit);
        assertThat(out.toString()).as("exit %s", exit.getNow(null))
                .contains("for the queues on postgresql 127.0.0.1:" + postgres.port());

        HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(m.group(1)))
                .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains(">orders</a>");
        DashboardCommand cmd = cl.getSubcommands().get("dashboard").getCommand();
        cmd.stop();
        assertThat(exit.get()).isZero();
        Await.until("the command ended", exit::isDone);
    }
}

package io.clockwork.benchmarks.postgres;

import io.clockwork.benchmarks.Harness;
import io.clockwork.postgres.fixture.PostgresServerProcess;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PostgreSQL job schedulers side by side on one real PostgreSQL server: Clockwork's {@code PostgresDelayedQueue} and
 * {@code Worker} ({@link ClockworkRival}), db-scheduler ({@link DbSchedulerRival}) and JobRunr ({@link JobRunrRival}),
 * each configured as its documentation recommends for throughput, each in a JVM of its own ({@link PostgresJobRun}),
 * one after the other, each phase on a database of its own. The server is the test fixture's
 * ({@link PostgresServerProcess}) with {@code --server-settings} over the fixture's (by default PostgreSQL's own
 * {@code shared_buffers} of 128MB, where tests keep 16MB), started with {@code pg_stat_statements} loaded when the
 * server has the library.
 * Figures, per rival: one-message offers per second from {@code --threads} threads (each its own transaction),
 * end-to-end jobs per second ({@code --jobs} due jobs offered so, then drained by the worker with {@code --threads}
 * no-op handler threads) and the drain alone; the drain of {@code --due} due jobs beside {@code --small-pending} and
 * {@code --pending} far-future ones; bytes on disk per pending job; lateness at low load; and the server's CPU per job
 * of each phase with, for the end-to-end phase, the top statements per job. Prints Markdown tables. Not thread-safe:
 * a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.postgres.PostgresJobHarness
 * [--rivals clockwork,db-scheduler,jobrunr] [--jobs 100000] [--pending 1000000] [--threads 4] [--rounds 1]
 * [--server-settings shared_buffers=128MB,...]}</pre>
 */
public final class PostgresJobHarness {

    /** Every option, with its default; {@code rival} and {@code port} are set by the harness for its children. */
    static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("rivals", String.join(",", JobRival.available()));
        DEFAULTS.put("phases", "e2e,pending,lateness");
        DEFAULTS.put("jobs", "100000");
        DEFAULTS.put("pending", "1000000");
        DEFAULTS.put("small-pending", "1000");
        DEFAULTS.put("due", "10000");
        DEFAULTS.put("threads", "4");
        DEFAULTS.put("rounds", "1");
        DEFAULTS.put("lateness-rate", "50");
        DEFAULTS.put("lateness-seconds", "20");
        DEFAULTS.put("server-settings", "shared_buffers=128MB");
        DEFAULTS.put("rival", "");
        DEFAULTS.put("port", "0");
    }

    private PostgresJobHarness() {
    }

    /**
     * Runs the harness; see the class comment.
     *
     * @param args {@code --name value} options
     */
    public static void main(String[] args) throws Exception {
        run(args);
        System.exit(0);
    }

    /**
     * Starts a server, runs every rival of {@code --rivals} on it, prints the tables and stops the server.
     *
     * @param args {@code --name value} options
     * @return the report (the tables), as printed
     * @throws IllegalArgumentException if an option names an unknown rival or a size is not positive
     */
    static String run(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        List<String> rivals = opts.list("rivals");
        for (String rival : rivals) {
            if (!JobRival.available().contains(rival)) {
                throw new IllegalArgumentException("--rivals: '" + rival + "' is not one of " + JobRival.available());
            }
        }
        for (String size : List.of("jobs", "pending", "small-pending", "due", "threads", "rounds", "lateness-rate",
                "lateness-seconds")) {
            if (opts.getInt(size) < 1) {
                throw new IllegalArgumentException("--" + size + " must be at least 1, not " + opts.get(size));
            }
        }
        String startLoad = PostgresJobReport.loadAverage();
        try (PostgresServerProcess server = PostgresServerProcess.start(opts.list("server-settings"))) {
            String noStatements = loadStatements(server);
            if (noStatements != null) {
                System.out.println("Top statements skipped: " + noStatements);
            }
            Databases dbs = new Databases(server.port());
            Map<String, List<String[]>> rows = new LinkedHashMap<>();
            for (String rival : rivals) {
                System.out.println("# " + rival);
                List<String> child = new ArrayList<>(Arrays.asList(args));
                child.addAll(List.of("--rival", rival, "--port", Integer.toString(server.port())));
                rows.put(rival, Harness.fork(PostgresJobRun.class, child));
            }
            String report = new PostgresJobReport(opts, dbs.version(), dbs.settings(), startLoad, rows).render();
            System.out.println();
            System.out.print(report);
            return report;
        }
    }

    /**
     * Loads {@code pg_stat_statements}: {@code shared_preload_libraries} through {@code ALTER SYSTEM} (the fixture
     * starts the server with no such option, and the setting is read at start), a restart, then the extension in the
     * {@code postgres} database.
     *
     * @return null when loaded, else why not
     */
    private static String loadStatements(PostgresServerProcess server) {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(Databases.ADMIN));
             Statement s = c.createStatement()) {
            String libDir;
            try (ResultSet r = s.executeQuery("SELECT setting FROM pg_config WHERE name = 'PKGLIBDIR'")) {
                r.next();
                libDir = r.getString(1);
            }
            if (!Files.exists(Path.of(libDir, "pg_stat_statements.so"))) {
                return libDir + "/pg_stat_statements.so is missing (Debian's postgresql package ships it)";
            }
            s.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
        } catch (SQLException e) {
            return e.getMessage();
        }
        server.restart();
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(Databases.ADMIN));
             Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            return null;
        } catch (SQLException e) {
            return e.getMessage();
        }
    }
}

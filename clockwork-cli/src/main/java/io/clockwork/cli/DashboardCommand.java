package io.clockwork.cli;

import io.clockwork.dashboard.Dashboard;
import io.clockwork.dashboard.QueueSource;
import io.clockwork.queue.QueueOptions;
import io.javalin.Javalin;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code clockwork dashboard}: serves the web dashboard over every queue of a Redis server or of a PostgreSQL schema
 * until interrupted. Not thread-safe: one per command line.
 */
@Command(name = "dashboard", mixinStandardHelpOptions = true,
        description = {"Serves the web dashboard over every queue of a Redis server (found through its registry of "
                + "queues) or of a PostgreSQL schema (--postgres JDBC-URL: the queues of its clockwork_queues table): "
                + "counts, charts, messages, dead letters, schedules and actions. Runs until interrupted "
                + "(Ctrl-C). With --cluster, --redis names one node of a Redis Cluster and the dashboard shows every "
                + "queue of the Cluster.",
            "",
            "It binds 127.0.0.1 unless --host says otherwise; any other address needs a password or token, read "
                    + "from the environment variable " + DashboardCommand.PASSWORD_ENV + " or from --password-file "
                    + "(never from the command line). With one, every user signs in. Actions (cancel, reschedule, "
                    + "requeue, purge; pause and resume a schedule) are confirmed on a page, carry a CSRF token and "
                    + "are logged as audit lines on standard error; --read-only hides and refuses them."},
        footer = {"", "Examples:", "  clockwork dashboard --redis redis://127.0.0.1:6379     (then open the URL it prints)",
            "  clockwork dashboard --postgres jdbc:postgresql://127.0.0.1:5432/app --postgres-user ops",
            "", "Exit codes: 0 stopped, 1 failure (unreachable server, port in use), 2 bad usage."})
public final class DashboardCommand implements Callable<Integer> {

    /** The environment variable holding the password or token. */
    public static final String PASSWORD_ENV = "CLOCKWORK_DASHBOARD_PASSWORD";

    @Mixin
    ServerOptions server;

    @Option(names = "--host", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "The address to bind (default: ${DEFAULT-VALUE}); other than loopback needs a password.")
    String host;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
            description = "The port, 0 for any free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--cluster",
            description = "The --redis URI is a seed node of a Redis Cluster: the other nodes are found from it.")
    boolean cluster;

    @Option(names = "--read-only", description = "Show no action and refuse every one.")
    boolean readOnly;

    @Option(names = "--password-file", paramLabel = "PATH",
            description = "Read the password or token from the first line of PATH (chmod 600); at least 12 "
                    + "characters. Default: the variable " + PASSWORD_ENV + ", if set.")
    Path passwordFile;

    @Option(names = "--secure-cookies",
            description = "Mark the session cookie Secure although this server speaks plain HTTP (it is behind a "
                    + "proxy that terminates TLS).")
    boolean secureCookies;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "" + QueueOptions.DEFAULT_MAX_ATTEMPTS,
            description = "The queues' maxAttempts, as their clients build them (default: ${DEFAULT-VALUE}).")
    int maxAttempts;

    @Option(names = "--sample-interval", paramLabel = "DURATION", defaultValue = "5s",
            converter = DurationConverter.class,
            description = "How often the charts sample each queue (default: ${DEFAULT-VALUE}).")
    Duration sampleInterval;

    @Spec
    CommandSpec spec;

    private final CountDownLatch stop = new CountDownLatch(1);

    @Override
    public Integer call() throws InterruptedException {
        if (port < 0 || port > 65_535) {
            throw usage("--port must be 0 to 65535, was " + port);
        }
        if (maxAttempts < 1 || maxAttempts > QueueOptions.MAX_MAX_ATTEMPTS) {
            throw usage("--max-attempts must be 1 to " + QueueOptions.MAX_MAX_ATTEMPTS + ", was " + maxAttempts);
        }
        char[] password = password();
        if (password == null && !Dashboard.loopbackAddress(host)) {
            throw usage("--host " + host + " is not a loopback address: binding it requires a password or token, in "
                    + PASSWORD_ENV + " or --password-file PATH");
        }
        Backend backend = server.required();
        server.redisOnly(backend, "--cluster", cluster);
        QueueSource source = backend.dashboardSource(maxAttempts, cluster);
        Dashboard.Builder b = Dashboard.builder(source).sampleInterval(sampleInterval);
        if (readOnly) {
            b.readOnly();
        }
        if (secureCookies) {
            b.secureCookies();
        }
        try {
            if (password != null) {
                b.password(password);
            }
        } catch (IllegalArgumentException e) {
            source.close();
            throw usage("the password or token " + e.getMessage().replaceFirst("^password ", ""));
        } finally {
            if (password != null) {
                java.util.Arrays.fill(password, '\0');
            }
        }
        Dashboard dashboard = b.build();
        Thread hook = new Thread(stop::countDown, "clockwork-dashboard-stop");
        try {
            Javalin app;
            try {
                app = dashboard.start(host, port);
            } catch (RuntimeException e) {
                throw new CliException("cannot serve the dashboard on " + host + ":" + port + ": " + e.getMessage(), e);
            }
            Runtime.getRuntime().addShutdownHook(hook);
            PrintWriter out = spec.commandLine().getOut();
            String shown = host.contains(":") ? "[" + host + "]" : host;
            out.println("Dashboard on http://" + shown + ":" + app.port() + "/ for the queues on "
                    + (cluster ? "the redis cluster of " : "") + backend.where()
                    + (readOnly ? " (read-only)" : "") + (password != null ? " (sign-in required)" : ""));
            out.flush();
            try {
                stop.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 0;
        } finally {
            dashboard.close();
            source.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running
            }
        }
    }

    private char[] password() {
        if (passwordFile != null) {
            return SecretFile.firstLine(passwordFile, "--password-file", "the password or token", this::usage)
                    .toCharArray();
        }
        Object root = spec.commandLine().getCommandSpec().root().userObject();
        String env = root instanceof ClockworkCli cli ? cli.env(PASSWORD_ENV) : System.getenv(PASSWORD_ENV);
        return env == null || env.isBlank() ? null : env.strip().toCharArray();
    }

    /** Stops a running command (tests; the process's own stop is its shutdown hook). */
    void stop() {
        stop.countDown();
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}

package io.clockwork.cli.demo;

import io.clockwork.cli.DurationConverter;
import io.clockwork.cli.RedisOptions;
import io.clockwork.cli.RedisTarget;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code clockwork demo}: an online shop's payment deadlines, end to end, on the in-process queue or on Redis. Not
 * thread-safe: one instance per command line.
 */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs a shop's payment deadlines end to end and checks that no order is lost.",
            "",
            "Each order gets a payment deadline as a delayed message (due 0.5 s to 0.5 s + --spread after it is "
                    + "placed). Most customers pay in time, which cancels the deadline (payments arrive on a "
                    + "WheelTimer). The rest fall due and are delivered to worker threads, which expire the order "
                    + "and ack. Workers heartbeat sessions in a SessionTracker; --crashes of them stop mid-work, "
                    + "their sessions expire and replacements start, and their unacked orders are redelivered, "
                    + "where a TimeCacheMap of processed ids keeps the retry from expiring an order twice.",
            "",
            "The report reconciles every order id: each must be cancelled or delivered, never neither (lost) or "
                    + "both. Lateness is delivery time minus due time (wall clock).",
            "",
            "Without a Redis server the queue is the in-process InMemoryDelayedQueue. With one (--redis, "
                    + "--redis-file or " + RedisOptions.ENV + ") the queue lives in Redis: run '--role producer' (or 'all') once and any number of '--role worker' processes "
                    + "on the same --queue; workers send receipts back through Redis and the producer "
                    + "reconciles them. A worker process exits once the queue has been idle for 3 s."},
        footer = {"", "Exit codes: 0 every order accounted for, 1 an order was lost (or Redis failed), 2 bad usage.",
            "", "Examples:", "  clockwork demo", "  clockwork demo --orders 10000 --workers 8",
            "  clockwork demo --redis redis://127.0.0.1:6379 --role worker    (in other terminals)",
            "  clockwork demo --redis redis://127.0.0.1:6379 --role producer"})
public final class DemoCommand implements Callable<Integer> {

    /** Which parts of the demo run in this process. */
    public enum Role {
        /** producer and workers */
        ALL,
        /** orders and payments only; needs workers elsewhere (with --redis) */
        PRODUCER,
        /** workers only (with --redis) */
        WORKER
    }

    @Spec
    CommandSpec spec;

    /** Runs the demo on Redis instead of in-process when any of its sources names a server. */
    @Mixin
    RedisOptions server;

    @Option(names = "--queue", paramLabel = "NAME", defaultValue = "clockwork-demo",
            description = "The orders queue's name on Redis (default: ${DEFAULT-VALUE}).")
    String queue;

    @Option(names = "--role", paramLabel = "ROLE", defaultValue = "all",
            description = "all, producer or worker (default: ${DEFAULT-VALUE}); producer and worker need --redis.")
    Role role;

    @Option(names = "--orders", paramLabel = "N", defaultValue = "100000",
            description = "Orders to place, 1 to 10,000,000 (default: ${DEFAULT-VALUE}).")
    int orders;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "4",
            description = "Worker threads, 1 to 256 (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--crashes", paramLabel = "N", defaultValue = "2",
            description = "Workers that crash mid-work (stop acking and heartbeating), 0 to --workers "
                    + "(default: ${DEFAULT-VALUE}).")
    int crashes;

    @Option(names = "--paid", paramLabel = "PERCENT", defaultValue = "80",
            description = "Share of orders paid in time, 0 to 100 (default: ${DEFAULT-VALUE}).")
    int paidPercent;

    @Option(names = "--spread", paramLabel = "DURATION", defaultValue = "3s", converter = DurationConverter.class,
            description = "Deadlines are spread over this, after a 0.5 s minimum (default: ${DEFAULT-VALUE}).")
    Duration spread;

    @Option(names = "--visibility", paramLabel = "DURATION", defaultValue = "2s",
            converter = DurationConverter.class,
            description = "The queue's visibility timeout: when a crashed worker's order comes back "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration visibility;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "2m", converter = DurationConverter.class,
            description = "Give up waiting for orders to settle after this (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--progress", paramLabel = "STYLE", defaultValue = "auto",
            description = "auto (a bar on a terminal, lines otherwise), bar, lines or none "
                    + "(default: ${DEFAULT-VALUE}).")
    Progress.Style progress;

    @Option(names = "--seed", paramLabel = "N", description = "Random seed, for a repeatable run.")
    Long seed;

    @Override
    public Integer call() throws Exception {
        RedisTarget redis = server.target();
        check(orders >= 1 && orders <= 10_000_000, "--orders must be 1 to 10,000,000, was " + orders);
        check(workers >= 1 && workers <= 256, "--workers must be 1 to 256, was " + workers);
        check(crashes >= 0 && crashes <= workers, "--crashes must be 0 to --workers (" + workers + "), was "
                + crashes);
        check(paidPercent >= 0 && paidPercent <= 100, "--paid must be 0 to 100, was " + paidPercent);
        check(!spread.isNegative() && spread.compareTo(Duration.ofHours(1)) <= 0,
                "--spread must be 0 to 1h, was " + spread);
        check(visibility.toMillis() >= 10 && visibility.compareTo(Duration.ofMinutes(10)) <= 0,
                "--visibility must be 10ms to 10m, was " + visibility);
        check(timeout.toMillis() >= 1, "--timeout must be positive, was " + timeout);
        check(!queue.isBlank() && queue.length() <= 150, "--queue must be 1 to 150 characters");
        check(redis != null || role == Role.ALL, "--role " + role.name().toLowerCase() + " needs --redis: "
                + "in-process, producer and workers must share the process");
        DemoSettings settings = new DemoSettings(redis, queue, role, orders, workers, crashes, paidPercent, spread,
                visibility, timeout, progress, seed != null ? seed : System.nanoTime());
        return new DemoRun(settings, spec.commandLine().getOut()).run();
    }

    private void check(boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}

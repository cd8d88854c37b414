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
                    + "and ack. Workers heartbeat sessions in a SessionTrackerImpl; --crashes of them stop mid-work, "
                    + "their sessions expire and replacements start, and their unacked orders are redelivered, "
                    + "where a TimeCacheMap of processed ids keeps the retry from expiring an order twice.",
            "",
            "The report reconciles every order id: each must end cancelled or delivered, never both (see below for "
                    + "one that ends neither). Lateness is delivery time minus due time (wall clock).",
            "",
            "Without a Redis server the queue is the in-process InMemoryDelayedQueue. With one (--redis, "
                    + "--redis-file or " + RedisOptions.ENV + ") the queue lives in Redis: run '--role producer' "
                    + "(or 'all') once and any number of '--role worker' processes on the same --queue; workers "
                    + "send receipts back through Redis and the producer reconciles them. A worker process exits "
                    + "once the queue has been idle for 3 s. At the end the producer deletes the run's keys from "
                    + "Redis (its orders queue and its receipts queue) unless --keep is given.",
            "",
            "An order that is neither cancelled nor delivered when the run ends is 'not delivered yet' while the "
                    + "queue still holds it (delayed, ready or in flight, as when no worker took it before --timeout), "
                    + "and 'lost' only if the queue does not hold it either. The queue's counts decide, so they "
                    + "assume that the run is the only producer on its --queue."},
        footer = {"", "Exit codes: 0 every order accounted for; 1 an order was lost, orders were still in the queue "
                + "(not delivered yet) when --timeout ran out, or Redis failed; 2 bad usage.",
            "", "Examples:", "  clockwork demo", "  clockwork demo --orders 10000 --workers 8",
            "  clockwork demo --redis redis://127.0.0.1:6379 --role worker    (in other terminals)",
            "  clockwork demo --redis redis://127.0.0.1:6379 --role producer"})
public final class DemoCommand implements Callable<Integer> {

    /** Most orders a run places, in millions: a whole number, so that the help can say it in words. */
    public static final int MAX_ORDERS_MILLIONS = 10;
    /** Most orders a run places. */
    public static final int MAX_ORDERS = MAX_ORDERS_MILLIONS * 1_000_000;
    /** The range of {@code --orders}, as the help and the error state it. */
    public static final String ORDERS_RANGE = "1 to " + MAX_ORDERS_MILLIONS + " million";
    /** Most worker threads. */
    public static final int MAX_WORKERS = 256;
    /** The range of {@code --workers}. */
    public static final String WORKERS_RANGE = "1 to " + MAX_WORKERS;
    /** The range of {@code --crashes}. */
    public static final String CRASHES_RANGE = "0 to --workers";
    /** The range of {@code --paid}. */
    public static final String PAID_RANGE = "0 to 100";
    /** Longest {@code --spread}, in hours. */
    public static final int MAX_SPREAD_HOURS = 1;
    /** The range of {@code --spread}. */
    public static final String SPREAD_RANGE = "0 to " + MAX_SPREAD_HOURS + "h";
    /** Shortest {@code --visibility}, in milliseconds. */
    public static final int MIN_VISIBILITY_MS = 10;
    /** Longest {@code --visibility}, in minutes. */
    public static final int MAX_VISIBILITY_MINUTES = 10;
    /** The range of {@code --visibility}. */
    public static final String VISIBILITY_RANGE = MIN_VISIBILITY_MS + "ms to " + MAX_VISIBILITY_MINUTES + "m";
    /** Shortest {@code --timeout}, in milliseconds. */
    public static final int MIN_TIMEOUT_MS = 1;
    /** The range of {@code --timeout}. */
    public static final String TIMEOUT_RANGE = "at least " + MIN_TIMEOUT_MS + "ms";
    /** Longest {@code --queue} name, in characters. */
    public static final int MAX_QUEUE_NAME = 150;
    /** The range of {@code --queue}'s length. */
    public static final String QUEUE_RANGE = "1 to " + MAX_QUEUE_NAME + " characters";

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
            description = "The orders queue's name on Redis, " + QUEUE_RANGE + " (default: ${DEFAULT-VALUE}).")
    String queue;

    @Option(names = "--role", paramLabel = "ROLE", defaultValue = "all",
            description = "all, producer or worker (default: ${DEFAULT-VALUE}); producer and worker need a Redis "
                    + "server.")
    Role role;

    @Option(names = "--keep",
            description = "On Redis, keep the run's keys (its orders and receipts queues) at the end instead of "
                    + "deleting them, e.g. to look at them with 'clockwork queue'.")
    boolean keep;

    @Option(names = "--orders", paramLabel = "N", defaultValue = "100000",
            description = "Orders to place, " + ORDERS_RANGE + " (default: ${DEFAULT-VALUE}).")
    int orders;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "4",
            description = "Worker threads, " + WORKERS_RANGE + " (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--crashes", paramLabel = "N", defaultValue = "2",
            description = "Workers that crash mid-work (stop acking and heartbeating), " + CRASHES_RANGE
                    + " (default: ${DEFAULT-VALUE}).")
    int crashes;

    @Option(names = "--paid", paramLabel = "PERCENT", defaultValue = "80",
            description = "Share of orders paid in time, " + PAID_RANGE + " (default: ${DEFAULT-VALUE}).")
    int paidPercent;

    @Option(names = "--spread", paramLabel = "DURATION", defaultValue = "3s", converter = DurationConverter.class,
            description = "Deadlines are spread over this, after a 0.5 s minimum; " + SPREAD_RANGE
                    + " (default: ${DEFAULT-VALUE}).")
    Duration spread;

    @Option(names = "--visibility", paramLabel = "DURATION", defaultValue = "2s",
            converter = DurationConverter.class,
            description = "The queue's visibility timeout: when a crashed worker's order comes back; "
                    + VISIBILITY_RANGE + " (default: ${DEFAULT-VALUE}).")
    Duration visibility;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "2m", converter = DurationConverter.class,
            description = "Give up waiting for orders to settle after this, " + TIMEOUT_RANGE
                    + " (default: ${DEFAULT-VALUE}).")
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
        check(orders >= 1 && orders <= MAX_ORDERS, "--orders must be " + ORDERS_RANGE + ", was " + orders);
        check(workers >= 1 && workers <= MAX_WORKERS, "--workers must be " + WORKERS_RANGE + ", was " + workers);
        check(crashes >= 0 && crashes <= workers, "--crashes must be " + CRASHES_RANGE + " (" + workers + "), was "
                + crashes);
        check(paidPercent >= 0 && paidPercent <= 100, "--paid must be " + PAID_RANGE + ", was " + paidPercent);
        check(!spread.isNegative() && spread.compareTo(Duration.ofHours(MAX_SPREAD_HOURS)) <= 0,
                "--spread must be " + SPREAD_RANGE + ", was " + spread);
        check(visibility.toMillis() >= MIN_VISIBILITY_MS
                        && visibility.compareTo(Duration.ofMinutes(MAX_VISIBILITY_MINUTES)) <= 0,
                "--visibility must be " + VISIBILITY_RANGE + ", was " + visibility);
        check(timeout.toMillis() >= MIN_TIMEOUT_MS, "--timeout must be " + TIMEOUT_RANGE + ", was " + timeout);
        check(!queue.isBlank() && queue.length() <= MAX_QUEUE_NAME, "--queue must be " + QUEUE_RANGE + ", was "
                + queue.length());
        check(redis != null || role == Role.ALL, "--role " + role.name().toLowerCase() + " needs --redis: "
                + "in-process, producer and workers must share the process");
        DemoSettings settings = new DemoSettings(redis, queue, role, orders, workers, crashes, paidPercent, spread,
                visibility, timeout, progress, seed != null ? seed : System.nanoTime(), keep);
        return new DemoRun(settings, spec.commandLine().getOut()).run();
    }

    private void check(boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}

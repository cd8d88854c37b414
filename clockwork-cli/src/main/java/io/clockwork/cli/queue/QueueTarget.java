package io.clockwork.cli.queue;

import io.clockwork.cli.Arguments;
import io.clockwork.cli.Backend;
import io.clockwork.cli.CliException;
import io.clockwork.cli.ServerOptions;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.QueueNotFoundException;
import io.clockwork.redis.RedisQueueBuilder;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.Consumer;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options every {@code clockwork queue} subcommand shares, and opening the queue they name on the backend they
 * name (Redis or PostgreSQL, {@link ServerOptions}). Not thread-safe: one per command line.
 *
 * <p>The queue is opened with the bytes codec, so that an operator can inspect and requeue a message whatever its
 * producers' codec, even one that cannot be decoded. It is opened as an existing queue: a name no client has
 * created (most likely mistyped) is an error, and the command writes nothing. On Redis, its partition count is the one
 * stored with the queue when it was created, so no option is needed to find its keys; {@code --partitions} only checks
 * it (PostgreSQL queues have no partitions).
 * Its maximum attempts must match the queue's clients: they say what an expired delivery becomes when an admin
 * command's call happens to return it to the schedule.
 */
public final class QueueTarget {

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Mixin
    ServerOptions server;

    private Backend backend;

    @Option(names = "--queue", paramLabel = "NAME", required = true, converter = Arguments.QueueName.class,
            description = "The queue's name.")
    String queue;

    @Option(names = "--partitions", paramLabel = "N",
            description = "The partition count a Redis queue must have, 1 to " + RedisQueueBuilder.MAX_PARTITIONS
                    + "; the command fails if the queue stores another (default: the stored count).")
    Integer partitions;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "" + QueueOptions.DEFAULT_MAX_ATTEMPTS,
            description = "The queue's maxAttempts, as its clients build it (default: ${DEFAULT-VALUE}).")
    int maxAttempts;

    /**
     * Opens the queue (fails fast if the server is unreachable or the queue unknown).
     *
     * @return the queue, with raw byte values
     * @throws CliException if the server cannot be reached, has no such queue, or stores another partition count
     */
    DelayedQueue<byte[]> open() {
        backend = server.required();
        server.redisOnly(backend, "--partitions", partitions != null);
        if (partitions != null && (partitions < 1 || partitions > RedisQueueBuilder.MAX_PARTITIONS)) {
            throw new ParameterException(mixee.commandLine(), "--partitions must be 1 to "
                    + RedisQueueBuilder.MAX_PARTITIONS + ", was " + partitions);
        }
        if (maxAttempts < 1 || maxAttempts > QueueOptions.MAX_MAX_ATTEMPTS) {
            throw new ParameterException(mixee.commandLine(), "--max-attempts must be 1 to "
                    + QueueOptions.MAX_MAX_ATTEMPTS + ", was " + maxAttempts);
        }
        try {
            return backend.openExisting(queue, maxAttempts, partitions != null ? partitions : 0);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(mixee.commandLine(), "--queue: " + e.getMessage());
        } catch (CliException e) {
            if (e.getCause() instanceof QueueNotFoundException || e.getMessage().startsWith("unknown queue")) {
                throw new CliException(e.getMessage() + "; check --queue", e.getCause());
            }
            throw e;
        }
    }

    /**
     * Reads the queue's counts.
     *
     * @param q the open queue
     * @return its stats
     * @throws CliException if the server fails
     */
    QueueStats stats(DelayedQueue<byte[]> q) {
        try {
            return q.stats();
        } catch (RuntimeException e) {
            throw new CliException(describe() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Opens the queue, runs {@code op} on it and prints {@code "<done> <name>"}: a subcommand that changes the queue
     * as a whole ({@code pause}, {@code resume}).
     *
     * @return the exit code, 0
     * @throws CliException if the queue cannot be opened or the server fails
     */
    int apply(CommandSpec spec, Consumer<DelayedQueue<byte[]>> op, String done) {
        PrintWriter out = spec.commandLine().getOut();
        try (DelayedQueue<byte[]> q = open()) {
            try {
                op.accept(q);
            } catch (RuntimeException e) {
                throw new CliException(describe() + ": " + e.getMessage(), e);
            }
            out.println(done + " " + q.name());
        }
        out.flush();
        return 0;
    }

    /** @return e.g. {@code queue 'orders' on 127.0.0.1:6379}; the server without password */
    String describe() {
        return "queue '" + queue + "' on " + backend.where();
    }

    static String dueIn(QueueStats stats) {
        return stats.nextDueIn().map(QueueTarget::format).orElse("none delayed");
    }

    static String format(Duration d) {
        return io.clockwork.cli.DurationConverter.format(d);
    }
}

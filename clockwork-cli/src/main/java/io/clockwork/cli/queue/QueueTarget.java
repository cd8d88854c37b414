package io.clockwork.cli.queue;

import io.clockwork.cli.CliException;
import io.clockwork.cli.RedisOptions;
import io.clockwork.cli.RedisTarget;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.RedisDelayedQueue;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options every {@code clockwork queue} subcommand shares, and opening the queue they name. Not thread-safe:
 * one per command line.
 *
 * <p>The queue is opened with the bytes codec, so that an operator can inspect and requeue a message whatever its
 * producers' codec, even one that cannot be decoded. Its partition count and maximum attempts must match the
 * queue's clients: the first says where its keys are, the second what an expired delivery becomes when an admin
 * command's call happens to return it to the schedule.
 */
public final class QueueTarget {

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Mixin
    RedisOptions server;

    private RedisTarget redis;

    @Option(names = "--queue", paramLabel = "NAME", required = true, description = "The queue's name.")
    String queue;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "1",
            description = "The queue's partition count, as its clients build it (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "" + DelayedQueueBuilder.DEFAULT_MAX_ATTEMPTS,
            description = "The queue's maxAttempts, as its clients build it (default: ${DEFAULT-VALUE}).")
    int maxAttempts;

    /**
     * Opens the queue (fails fast if Redis is unreachable).
     *
     * @return the queue, with raw byte values
     */
    DelayedQueue<byte[]> open() {
        redis = server.required();
        if (partitions < 1 || partitions > 1024) {
            throw new ParameterException(mixee.commandLine(), "--partitions must be 1 to 1024, was " + partitions);
        }
        if (maxAttempts < 1 || maxAttempts > DelayedQueueBuilder.MAX_MAX_ATTEMPTS) {
            throw new ParameterException(mixee.commandLine(), "--max-attempts must be 1 to "
                    + DelayedQueueBuilder.MAX_MAX_ATTEMPTS + ", was " + maxAttempts);
        }
        return redis.open(queue, Codec.bytes(), DelayedQueueBuilder.DEFAULT_VISIBILITY_TIMEOUT, maxAttempts,
                partitions);
    }

    /**
     * Reads the queue's counts, failing if no client ever offered to a queue of that name: most likely a mistyped
     * name. An emptied queue still exists (its keys outlive its last message) and is reported normally.
     *
     * @param q the open queue
     * @return its stats
     * @throws CliException if the queue is unknown on the server
     */
    QueueStats knownStats(DelayedQueue<byte[]> q) {
        QueueStats stats;
        boolean exists;
        try {
            stats = q.stats();
            exists = q instanceof RedisDelayedQueue<byte[]> r ? r.exists() : stats.total() > 0;
        } catch (RuntimeException e) {
            throw new CliException("queue '" + queue + "' on " + redis.where() + ": " + e.getMessage(), e);
        }
        if (!exists) {
            throw new CliException("unknown queue '" + queue + "' on " + redis.where() + ": no client ever offered "
                    + "to a queue of that name" + (partitions == 1 ? "" : " and " + partitions + " partitions")
                    + "; check --queue");
        }
        return stats;
    }

    /** @return e.g. {@code queue 'orders' on 127.0.0.1:6379} */
    String describe() {
        return "queue '" + queue + "' on " + redis.where();
    }

    static String dueIn(QueueStats stats) {
        return stats.nextDueIn().map(QueueTarget::format).orElse("none delayed");
    }

    static String format(Duration d) {
        return io.clockwork.cli.DurationConverter.format(d);
    }
}

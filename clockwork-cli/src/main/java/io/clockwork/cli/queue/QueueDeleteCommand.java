package io.clockwork.cli.queue;

import io.clockwork.cli.Arguments;
import io.clockwork.cli.CliException;
import io.clockwork.cli.ClockworkCli;
import io.clockwork.cli.RedisOptions;
import io.clockwork.cli.RedisTarget;
import io.clockwork.queue.Codec;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.RedisDelayedQueue;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code clockwork queue delete NAME --yes}: deletes a queue and every key it has on Redis. Not thread-safe: one per
 * command line.
 *
 * <p>It runs {@link RedisDelayedQueue#delete()} on the queue opened as an existing one: every partition's messages
 * (delayed, ready, in flight, dead, in the compact store), its schedules, counters, wake-up signal and stored
 * partition count, and its name in the registry of queues, so that the dashboard no longer lists it.
 */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = {"Deletes a queue and everything stored for it on Redis: its messages in every state and "
                + "partition, dead letters, schedules and counters, and its entry in the list of queues (so the "
                + "dashboard no longer shows it). Needs --yes, because it cannot be undone.",
            "A client that still uses the queue creates it again when it next offers."})
public final class QueueDeleteCommand implements Callable<Integer> {

    @Mixin
    RedisOptions server;

    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", converter = Arguments.QueueName.class,
            description = "The queue's name.")
    String name;

    @Option(names = "--queue", paramLabel = "NAME", converter = Arguments.QueueName.class, description = "The queue's name, as the other queue commands "
            + "take it (instead of NAME).")
    String queueOption;

    @Option(names = "--yes", description = "Confirm the deletion.")
    boolean yes;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (name != null && queueOption != null) {
            throw usage("give the queue's name once: as NAME or as --queue, not both");
        }
        String queue = name != null ? name : queueOption;
        if (queue == null) {
            throw usage("missing the queue's name: clockwork queue delete [--redis URI] NAME --yes");
        }
        if (!yes) {
            throw usage("delete removes queue '" + queue + "' and all its messages for good; add --yes");
        }
        RedisTarget redis = server.required();
        PrintWriter out = spec.commandLine().getOut();
        try (RedisDelayedQueue<byte[]> q = redis.openExisting(queue, Codec.bytes(),
                QueueOptions.DEFAULT_VISIBILITY_TIMEOUT, QueueOptions.DEFAULT_MAX_ATTEMPTS, 0)) {
            String where = "queue '" + queue + "' on " + redis.where();
            long keys;
            QueueStats s;
            try {
                s = q.stats();
                keys = q.delete();
            } catch (RuntimeException e) {
                throw new CliException(where + ": " + ClockworkCli.oneLine(redis.redact(e.getMessage())), e);
            }
            out.println(String.format(Locale.ROOT, "deleted %s: %,d key%s (%d partition%s; %,d delayed, %,d ready, "
                    + "%,d in flight, %,d dead)", where, keys, keys == 1 ? "" : "s", q.partitions(),
                    q.partitions() == 1 ? "" : "s", s.delayed(), s.ready(), s.inFlight(), s.dead()));
        }
        out.flush();
        return 0;
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}

package io.clockwork.cli.queue;

import io.clockwork.cli.Arguments;
import io.clockwork.cli.CliException;
import io.clockwork.cli.ClockworkCli;
import io.clockwork.cli.RedisOptions;
import io.clockwork.cli.RedisTarget;
import io.clockwork.redis.RedisQueueException;
import io.clockwork.redisson.RedisRedisson;
import io.clockwork.redisson.RedissonMigration;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code clockwork queue migrate-redisson}: moves a Redisson {@code RDelayedQueue} into a queue of the Redisson
 * face ({@link RedissonMigration}). Not thread-safe: one per command line.
 */
@Command(name = "migrate-redisson", mixinStandardHelpOptions = true,
        description = {"Moves the elements of a Redisson RDelayedQueue (its redisson_delay_queue_timeout:{NAME} "
                + "sorted set, redisson_delay_queue:{NAME} list and the destination list NAME) into a Clockwork "
                + "queue of the Redisson face (io.clockwork.redisson.RedisRedisson), keeping each due time and the "
                + "offer order.",
            "",
            "Each batch is one atomic script, so a run that stops anywhere loses and doubles nothing; run it again "
                + "to go on, or after Redisson clients that still offer have stopped. Payloads move as Redisson "
                + "encoded them. The Redis server must be standalone (or the keys in one Cluster slot).",
            "",
            "Exit 1 when no key of the Redisson queue holds an element: the name is not a Redisson queue's, or "
                + "its queue has moved already."})
public final class QueueMigrateRedissonCommand implements Callable<Integer> {

    @Mixin
    RedisOptions server;

    @Option(names = "--from", paramLabel = "NAME", required = true, converter = Arguments.NonEmpty.class,
            description = "The Redisson destination queue's name (the name given to getBlockingQueue).")
    String from;

    @Option(names = "--to", paramLabel = "NAME", required = true, converter = Arguments.QueueName.class,
            description = "The Clockwork queue to fill (may be the same name: the keys differ).")
    String to;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "1000",
            description = "Elements per atomic step, 1 to " + RedissonMigration.MAX_BATCH + " (default: "
                    + "${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--dry-run", description = "Print what would move, and write nothing.")
    boolean dryRun;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (batch < 1 || batch > RedissonMigration.MAX_BATCH) {
            throw new ParameterException(spec.commandLine(), "--batch must be 1 to " + RedissonMigration.MAX_BATCH
                    + ", was " + batch);
        }
        RedisTarget redis = server.required();
        redis.checkReachable(RedisTarget.CONNECT_TIMEOUT);
        PrintWriter out = spec.commandLine().getOut();
        RedisRedisson client;
        try {
            client = RedisRedisson.create(redis.uri());
        } catch (RedisQueueException | IllegalArgumentException e) {
            throw new CliException(ClockworkCli.oneLine(redis.redact(e.getMessage())), e);
        }
        try {
            RedissonMigration.Report found = RedissonMigration.dryRun(client, from);
            if (found.remaining() == 0) {
                String tagged = from.contains("{") ? from : "{" + from + "}"; // as Redisson names the keys
                throw new CliException("no Redisson queue '" + from + "' with elements on " + redis.where()
                        + ": none of its keys (redisson_delay_queue_timeout:" + tagged + ", redisson_delay_queue:"
                        + tagged + ", " + from + ") holds one; check --from (a queue that has moved has none)");
            }
            if (dryRun) {
                RedissonMigration.Report r = found;
                out.println(String.format(Locale.ROOT, "dry run: would move %,d due and %,d delayed element%s of "
                        + "Redisson queue '%s' into '%s' on %s", r.due(), r.delayed(), r.delayed() == 1 ? "" : "s",
                        from, to, redis.where()));
            } else {
                RedissonMigration.Report r = RedissonMigration.run(client, from, to, batch);
                out.println(String.format(Locale.ROOT, "moved %,d due and %,d delayed element%s of Redisson queue "
                        + "'%s' into '%s' on %s in %,d batch%s; %,d left", r.due(), r.delayed(),
                        r.delayed() == 1 ? "" : "s", from, to, redis.where(), r.batches(),
                        r.batches() == 1 ? "" : "es", r.remaining()));
            }
        } catch (RedisQueueException | IllegalArgumentException | IllegalStateException e) {
            throw new CliException(ClockworkCli.oneLine(redis.redact(e.getMessage())), e);
        } finally {
            client.shutdown();
        }
        out.flush();
        return 0;
    }
}

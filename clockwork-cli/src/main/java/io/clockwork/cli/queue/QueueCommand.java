package io.clockwork.cli.queue;

import io.clockwork.cli.PostgresOptions;
import io.clockwork.cli.RedisOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code clockwork queue}: administration of a delayed queue on Redis or PostgreSQL through the public queue API. Not thread-safe:
 * one instance per command line.
 */
@Command(name = "queue",
        mixinStandardHelpOptions = true,
        description = {"Inspects and repairs a RedisDelayedQueue or a PostgresDelayedQueue, for operators.",
            "",
            "Every subcommand takes the server: Redis (--redis URI, --redis-file PATH or the environment variable "
                    + RedisOptions.ENV + ") or, all but migrate-redisson, PostgreSQL (--postgres JDBC-URL, with "
                    + "--postgres-user, the password in --postgres-password-file PATH or " + PostgresOptions.PASSWORD_ENV
                    + ", and --schema). All but migrate-redisson take --queue NAME (plus --max-attempts if the "
                    + "queue's clients change it). "
                    + "On Redis the partition count is read from the queue, which stores it when first created; "
                    + "--partitions only checks it. A queue that no client has created is reported as unknown "
                    + "(exit 1), most likely a mistyped name, and nothing is written for it."},
        subcommands = {QueueStatsCommand.class, QueuePeekCommand.class, QueueListCommand.class,
            QueueCancelCommand.class, QueuePromoteCommand.class, QueuePauseCommand.class, QueueResumeCommand.class,
            QueueRequeueDeadCommand.class, QueuePurgeDeadCommand.class,
            QueueMigrateRedissonCommand.class, QueueDeleteCommand.class},
        footer = {"", "Exit codes: 0 success, 1 failure (unreachable server, unknown queue, id not found), "
                + "2 bad usage."})
public final class QueueCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(),
                "missing subcommand: stats, peek, list, cancel, promote, pause, resume, requeue-dead, purge-dead, "
                        + "migrate-redisson or delete");
    }
}

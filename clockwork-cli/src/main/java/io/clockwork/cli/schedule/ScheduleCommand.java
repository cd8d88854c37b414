package io.clockwork.cli.schedule;

import io.clockwork.cli.PostgresOptions;
import io.clockwork.cli.RedisOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code clockwork schedule}: administration of the recurring schedules kept beside a delayed queue on Redis or
 * PostgreSQL. Not
 * thread-safe: one instance per command line.
 */
@Command(name = "schedule",
        mixinStandardHelpOptions = true,
        description = {"Lists, adds, pauses, resumes and deletes the recurring schedules of a RedisDelayedQueue or "
                + "a PostgresDelayedQueue.",
            "",
            "Every subcommand takes the server, Redis (--redis URI, --redis-file PATH or the environment variable "
                    + RedisOptions.ENV + ") or PostgreSQL (--postgres JDBC-URL, with --postgres-user, the password "
                    + "in --postgres-password-file PATH or " + PostgresOptions.PASSWORD_ENV + ", and --schema), and "
                    + "--queue NAME. The command only administers: occurrences are "
                    + "produced by the applications running schedulers (RedisSchedules.start(), "
                    + "PostgresSchedules.start()), exactly once per fire time however many run."},
        subcommands = {ScheduleListCommand.class, ScheduleAddCommand.class, SchedulePauseCommand.class,
            ScheduleResumeCommand.class, ScheduleDeleteCommand.class},
        footer = {"", "Exit codes: 0 success, 1 failure (unreachable server, unknown queue or schedule), "
                + "2 bad usage (a malformed rule, an unknown time zone, a name over the limit)."})
public final class ScheduleCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing subcommand: list, add, pause, resume or delete");
    }
}

package io.clockwork.cli.schedule;

import io.clockwork.cli.Arguments;
import io.clockwork.cli.Backend;
import io.clockwork.cli.CliException;
import io.clockwork.cli.ServerOptions;
import io.clockwork.schedule.ScheduleInfo;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * The options every {@code clockwork schedule} subcommand shares, and opening the schedules of the queue they name on
 * the backend they name (Redis or PostgreSQL, {@link ServerOptions}). Not thread-safe: one per command line.
 *
 * <p>The queue is opened with the bytes codec (a schedule's value is the UTF-8 of {@code --value}). {@code add} may
 * create the queue; the other subcommands open it as an existing queue, so a mistyped name is an error and writes
 * nothing.
 */
public final class ScheduleTarget {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_INSTANT;

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Mixin
    ServerOptions server;

    @Option(names = "--queue", paramLabel = "NAME", required = true, converter = Arguments.QueueName.class,
            description = "The queue the schedules' occurrences go to, and beside which the schedules are kept.")
    String queue;

    private Backend backend;

    /**
     * @param create whether a queue no client has created yet may be created ({@code add})
     * @return the queue's schedules (not started: the command runs no passes of its own)
     * @throws CliException if the server is unreachable or, unless {@code create}, the queue unknown
     */
    Backend.OpenSchedules open(boolean create) {
        backend = server.required();
        try {
            return backend.openSchedules(queue, create);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(mixee.commandLine(), "--queue: " + e.getMessage());
        } catch (CliException e) {
            throw new CliException(e.getMessage() + (create ? "" : "; check --queue"), e.getCause());
        }
    }

    /** @return e.g. {@code queue 'orders' on 127.0.0.1:6379} */
    String describe() {
        return "queue '" + queue + "' on " + backend.where();
    }

    /** @return one line describing a schedule: name, state, rule, misfire policy, next and last fire times */
    static String line(ScheduleInfo s) {
        return String.format("%-24s %-7s %-36s %-12s next %-24s last %s", s.name(), s.paused() ? "paused" : "active",
                s.rule(), s.misfire(), s.nextFire().map(ScheduleTarget::time).orElse("-"),
                s.lastFire().map(ScheduleTarget::time).orElse("-"));
    }

    private static String time(Instant t) {
        return TIME.format(t.truncatedTo(ChronoUnit.MILLIS).atOffset(ZoneOffset.UTC));
    }
}

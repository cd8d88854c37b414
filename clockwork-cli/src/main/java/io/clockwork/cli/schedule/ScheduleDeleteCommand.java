package io.clockwork.cli.schedule;

import io.clockwork.schedule.Schedules;
import picocli.CommandLine.Command;

/** {@code clockwork schedule delete}: deleted schedules by name. Not thread-safe: one per command line. */
@Command(name = "delete", mixinStandardHelpOptions = true, description = "Deletes schedules; occurrences already in the queue stay there. Exit 1 if any was unknown.")
public final class ScheduleDeleteCommand extends ScheduleNamesCommand {

    @Override
    boolean apply(Schedules<byte[]> schedules, String name) {
        return schedules.delete(name);
    }

    @Override
    String done() {
        return "deleted";
    }

    @Override
    String refusal() {
        return "unknown";
    }
}

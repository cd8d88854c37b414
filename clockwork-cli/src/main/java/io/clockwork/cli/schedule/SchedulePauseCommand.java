package io.clockwork.cli.schedule;

import io.clockwork.schedule.Schedules;
import picocli.CommandLine.Command;

/** {@code clockwork schedule pause}: paused schedules by name. Not thread-safe: one per command line. */
@Command(name = "pause", mixinStandardHelpOptions = true, description = "Pauses schedules: no occurrence is produced until resumed; fire times meanwhile are skipped. Exit 1 if any was unknown or already paused.")
public final class SchedulePauseCommand extends ScheduleNamesCommand {

    @Override
    boolean apply(Schedules<byte[]> schedules, String name) {
        return schedules.pause(name);
    }

    @Override
    String done() {
        return "paused";
    }

    @Override
    String refusal() {
        return "unknown or already paused";
    }
}

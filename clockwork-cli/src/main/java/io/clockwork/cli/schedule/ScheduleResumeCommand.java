package io.clockwork.cli.schedule;

import io.clockwork.schedule.Schedules;
import picocli.CommandLine.Command;

/** {@code clockwork schedule resume}: resumed schedules by name. Not thread-safe: one per command line. */
@Command(name = "resume", mixinStandardHelpOptions = true, description = "Resumes paused schedules from their next fire time after now. Exit 1 if any was unknown or not paused.")
public final class ScheduleResumeCommand extends ScheduleNamesCommand {

    @Override
    boolean apply(Schedules<byte[]> schedules, String name) {
        return schedules.resume(name);
    }

    @Override
    String done() {
        return "resumed";
    }

    @Override
    String refusal() {
        return "unknown or not paused";
    }
}

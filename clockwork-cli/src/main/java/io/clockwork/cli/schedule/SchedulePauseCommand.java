package io.clockwork.cli.schedule;

import io.clockwork.schedule.Schedule;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code clockwork schedule pause}: paused schedules by name. Not thread-safe: one per command line. */
@Command(name = "pause", mixinStandardHelpOptions = true, description = "Pauses schedules: no occurrence is produced until resumed; fire times meanwhile are skipped. Exit 1 if any was unknown or already paused.")
public final class SchedulePauseCommand implements Callable<Integer> {

    @Mixin
    ScheduleTarget target;

    @Parameters(paramLabel = "NAME", arity = "1..*", description = "Schedule names.")
    List<String> names;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        for (String n : names) {
            try {
                Schedule.checkName(n);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage(), e);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int missed = 0;
        try (ScheduleTarget.Open o = target.open(false)) {
            for (String n : names) {
                if (o.schedules().pause(n)) {
                    out.println("paused " + n);
                } else {
                    missed++;
                    err.println("not paused " + n + ": unknown or already paused");
                }
            }
        }
        out.flush();
        err.flush();
        return missed == 0 ? 0 : 1;
    }
}

package io.clockwork.cli.schedule;

import io.clockwork.cli.Backend;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.Schedules;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * A {@code clockwork schedule} command that applies one change to schedules named on the command line: every name is
 * checked before anything changes, then each is changed in turn and reported on its own line. Exit 0 if every one
 * changed, 1 if any did not. Not thread-safe: one per command line.
 */
abstract class ScheduleNamesCommand implements Callable<Integer> {

    @Mixin
    ScheduleTarget target;

    @Parameters(paramLabel = "NAME", arity = "1..*", description = "Schedule names.")
    List<String> names;

    @Spec
    CommandSpec spec;

    /**
     * Applies the change to one schedule.
     *
     * @return whether it changed
     */
    abstract boolean apply(Schedules<byte[]> schedules, String name);

    /** @return the past participle printed for a changed schedule, e.g. "paused" */
    abstract String done();

    /** @return why a schedule may not have changed, e.g. "unknown or already paused" */
    abstract String refusal();

    @Override
    public final Integer call() {
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
        try (Backend.OpenSchedules o = target.open(false)) {
            for (String n : names) {
                if (apply(o.schedules(), n)) {
                    out.println(done() + " " + n);
                } else {
                    missed++;
                    err.println("not " + done() + " " + n + ": " + refusal());
                }
            }
        }
        out.flush();
        err.flush();
        return missed == 0 ? 0 : 1;
    }
}

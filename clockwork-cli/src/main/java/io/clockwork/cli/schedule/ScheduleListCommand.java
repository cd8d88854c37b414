package io.clockwork.cli.schedule;

import io.clockwork.cli.Backend;
import io.clockwork.schedule.ScheduleInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code clockwork schedule list}: every schedule with its next fire time. Not thread-safe: one per command line. */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "Prints every schedule of the queue, in name order: state, rule, misfire policy, next and last "
                + "fire time (UTC).")
public final class ScheduleListCommand implements Callable<Integer> {

    @Mixin
    ScheduleTarget target;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (Backend.OpenSchedules o = target.open(false)) {
            List<ScheduleInfo> all = o.schedules().list();
            out.println(target.describe() + ": " + all.size() + (all.size() == 1 ? " schedule" : " schedules"));
            for (ScheduleInfo s : all) {
                out.println("  " + ScheduleTarget.line(s));
            }
        }
        out.flush();
        return 0;
    }
}

package io.clockwork.cli.schedule;

import io.clockwork.cli.Backend;
import io.clockwork.cli.DurationConverter;
import io.clockwork.cron.CronRule;
import io.clockwork.schedule.Misfire;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.schedule.ScheduleRule;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code clockwork schedule add}: creates or updates a schedule (idempotent). Not thread-safe: one per command line.
 */
@Command(name = "add", mixinStandardHelpOptions = true,
        description = {"Creates a schedule, or updates the one of that name: adding the same schedule again changes "
                + "nothing; changing its rule fires what the old rule has due first, so no occurrence is doubled or "
                + "dropped at the switch.",
            "Every occurrence is a message of the queue with id <name>@<fire time in epoch ms>."})
public final class ScheduleAddCommand implements Callable<Integer> {

    @Mixin
    ScheduleTarget target;

    @Option(names = "--name", paramLabel = "NAME", required = true,
            description = "The schedule's name (its id), at most " + Schedule.MAX_NAME_BYTES + " UTF-8 bytes.")
    String name;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Rule rule;

    /** Exactly one rule. */
    static final class Rule {
        @Option(names = "--cron", paramLabel = "EXPR",
                description = "A cron expression: 5 fields (minute hour day-of-month month day-of-week) or 6 with "
                        + "seconds first, e.g. '0 9 * * MON-FRI'.")
        String cron;

        @Option(names = "--every", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "A fixed rate, e.g. 30s or PT1H: fires at whole multiples of it since the epoch.")
        Duration every;

        @Option(names = "--delay-after", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "A fixed delay: fires this long after the previous occurrence was acked.")
        Duration delayAfter;
    }

    @Option(names = "--zone", paramLabel = "ZONE", defaultValue = "UTC",
            description = "The time zone of --cron, e.g. Europe/Paris (default: ${DEFAULT-VALUE}).")
    String zone;

    @Option(names = "--value", paramLabel = "TEXT", defaultValue = "",
            description = "Each occurrence's payload, as UTF-8 (default: empty).")
    String value;

    @Option(names = "--header", paramLabel = "NAME=VALUE", description = "A header of each occurrence; repeatable.")
    Map<String, String> headers = new LinkedHashMap<>();

    @Option(names = "--misfire", paramLabel = "POLICY", defaultValue = "once",
            description = "After a downtime: once (one occurrence now), skip, or catch-up:N (each missed fire time, "
                    + "up to N) (default: ${DEFAULT-VALUE}).")
    String misfire;

    @Option(names = "--spread", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Spread the occurrences of schedules due at the same time over this window (a fixed offset "
                    + "per name); default none.")
    Duration spread;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Schedule<byte[]> schedule;
        try {
            ScheduleRule r = rule.cron != null ? CronRule.of(rule.cron, zone)
                    : rule.every != null ? ScheduleRule.fixedRate(rule.every)
                    : ScheduleRule.fixedDelay(rule.delayAfter);
            schedule = Schedule.of(name, r, value.getBytes(StandardCharsets.UTF_8)).headers(headers)
                    .misfire(Misfire.parse(misfire));
            if (spread != null) {
                schedule = schedule.spread(spread);
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        try (Backend.OpenSchedules o = target.open(true)) {
            boolean existed = o.schedules().get(name).isPresent();
            ScheduleInfo info = o.schedules().put(schedule);
            out.println((existed ? "updated " : "added ") + target.describe() + ":");
            out.println("  " + ScheduleTarget.line(info));
        }
        out.flush();
        return 0;
    }
}

package io.clockwork.cron;

import io.clockwork.schedule.RuleParser;
import io.clockwork.schedule.ScheduleRule;

/**
 * Reads the {@code cron} kind of {@link ScheduleRule#parse(String)}: {@code cron:<expression>|<zone id>}, the zone
 * UTC when {@code |<zone id>} is left out. Stateless and thread-safe; found through {@link java.util.ServiceLoader}.
 */
public final class CronRuleParser implements RuleParser {

    /** Creates the parser (the service loader's constructor). */
    public CronRuleParser() {
    }

    @Override
    public String kind() {
        return CronRule.KIND;
    }

    @Override
    public ScheduleRule parse(String body) {
        int bar = body.lastIndexOf('|');
        if (bar < 0) {
            return CronRule.of(body);
        }
        return CronRule.of(body.substring(0, bar), body.substring(bar + 1));
    }
}

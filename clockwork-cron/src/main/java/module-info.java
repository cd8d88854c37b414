/**
 * Clockwork cron: {@code io.clockwork.cron.CronRule}, cron schedules for {@code io.clockwork.schedule}, parsed and
 * evaluated by cron-utils so that clockwork-core stays dependency-free. Provides the {@code cron} kind of
 * {@code ScheduleRule.parse}.
 */
module io.clockwork.cron {
    requires transitive io.clockwork.core;
    requires com.cronutils;

    exports io.clockwork.cron;

    provides io.clockwork.schedule.RuleParser with io.clockwork.cron.CronRuleParser;
}

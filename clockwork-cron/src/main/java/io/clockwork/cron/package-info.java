/**
 * Cron schedules: {@link io.clockwork.cron.CronRule}, a {@code ScheduleRule} evaluated by cron-utils, and
 * {@link io.clockwork.cron.CronRuleParser}, which lets {@code ScheduleRule.parse} read {@code cron:} specs.
 */
package io.clockwork.cron;

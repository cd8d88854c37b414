/**
 * Recurring schedules on the delayed queue: {@link io.clockwork.schedule.Schedules} (the contract),
 * {@link io.clockwork.schedule.Schedule}, {@link io.clockwork.schedule.ScheduleRule} (fixed rate, fixed delay; cron in
 * {@code clockwork-cron}), {@link io.clockwork.schedule.Misfire} with {@link io.clockwork.schedule.FirePlan} (the
 * planning step every backend shares), and the in-process backend {@link io.clockwork.schedule.InMemorySchedules}.
 */
package io.clockwork.schedule;

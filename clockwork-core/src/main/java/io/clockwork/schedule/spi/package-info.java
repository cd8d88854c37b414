/**
 * What a schedules backend needs and a user does not: {@link io.clockwork.schedule.spi.FirePlan}, the one planning
 * step of every backend. Exported to the backends only.
 */
package io.clockwork.schedule.spi;

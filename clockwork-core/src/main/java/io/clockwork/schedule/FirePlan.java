package io.clockwork.schedule;

import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;

/**
 * What one pass fires for one schedule whose rule fixes its fire times in advance (rate, cron): the fire times to
 * produce, oldest first, and the schedule's next fire time after them. Immutable and thread-safe.
 *
 * <p>It is the arithmetic of {@link Misfire}, part of the contract: every {@link Schedules} backend plans its passes
 * with it, so that misfire handling is the same everywhere.
 *
 * <p>From the stored next fire time, fire times up to {@code now - threshold} are <i>missed</i>: the first
 * {@link Misfire#bound()} of them fire, the rest are skipped (jumping to the rule's first fire time after
 * {@code now - threshold}, so a long downtime costs one rule step, not one per missed time). Fire times after that
 * and up to now are <i>on time</i> and each fires, up to {@link #MAX_ON_TIME} per pass (the rest fire in the next).
 *
 * @param fireTimes the fire times to produce, epoch ms, increasing
 * @param next      the next fire time after them, epoch ms, or {@link #NEVER}
 */
public record FirePlan(long[] fireTimes, long next) {

    /** The next fire time of a rule that never fires again. */
    public static final long NEVER = Long.MIN_VALUE;

    /** The most on-time fire times one pass produces for one schedule. */
    public static final int MAX_ON_TIME = 1000;

    /**
     * @param rule        the schedule's rule (not a fixed-delay rule)
     * @param misfire     its misfire policy
     * @param next        its stored next fire time, epoch ms
     * @param now         the backend's clock, epoch ms
     * @param thresholdMs the misfire threshold
     * @return the plan; empty fire times if {@code next} is after {@code now}
     */
    public static FirePlan of(ScheduleRule rule, Misfire misfire, long next, long now, long thresholdMs) {
        long[] fires = new long[8];
        int n = 0;
        long t = next;
        long missedUntil = now - thresholdMs;
        int missed = 0;
        while (t != NEVER && t <= missedUntil && missed < misfire.bound()) {
            fires = add(fires, n++, t);
            missed++;
            t = after(rule, t);
        }
        if (t != NEVER && t <= missedUntil) {
            t = after(rule, missedUntil);
        }
        int onTime = 0;
        while (t != NEVER && t <= now && onTime < MAX_ON_TIME) {
            fires = add(fires, n++, t);
            onTime++;
            t = after(rule, t);
        }
        return new FirePlan(Arrays.copyOf(fires, n), t);
    }

    /**
     * @param rule  a rule
     * @param after epoch ms
     * @return the rule's next fire time after it, or {@link #NEVER}
     */
    public static long after(ScheduleRule rule, long after) {
        Optional<Instant> next = rule.nextAfter(Instant.ofEpochMilli(after));
        return next.map(Instant::toEpochMilli).orElse(NEVER);
    }

    private static long[] add(long[] a, int n, long v) {
        if (n == a.length) {
            a = Arrays.copyOf(a, n * 2);
        }
        a[n] = v;
        return a;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FirePlan p && p.next == next && Arrays.equals(p.fireTimes, fireTimes);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(next) * 31 + Arrays.hashCode(fireTimes);
    }

    @Override
    public String toString() {
        return "FirePlan[" + Arrays.toString(fireTimes) + ", next " + next + "]";
    }
}

package io.clockwork.schedule;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a backend holds for one schedule: its rule, misfire policy, whether it is paused, the last fire time that
 * produced an occurrence and the next one due. Immutable.
 *
 * @param name     the schedule's name
 * @param rule     the rule's spec ({@link ScheduleRule#spec()})
 * @param misfire  the misfire policy's spec ({@link Misfire#spec()})
 * @param paused   whether the schedule is paused
 * @param lastFire the latest fire time that produced an occurrence; empty if none yet
 * @param nextFire the next fire time; empty while paused, while a fixed-delay schedule's occurrence is unfinished,
 *                 or when the rule never fires again
 */
public record ScheduleInfo(String name, String rule, String misfire, boolean paused, Optional<Instant> lastFire,
                           Optional<Instant> nextFire) {

    /** Validates the fields. */
    public ScheduleInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(misfire, "misfire");
        Objects.requireNonNull(lastFire, "lastFire");
        Objects.requireNonNull(nextFire, "nextFire");
    }
}

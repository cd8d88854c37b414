package io.clockwork.schedule;

import io.clockwork.queue.DelayedQueue;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;

/**
 * A rule firing at every whole multiple of a period since the epoch. Immutable and thread-safe.
 *
 * @param period the period, whole milliseconds in [1 ms, {@link DelayedQueue#MAX_DELAY}]
 */
record FixedRate(Duration period) implements ScheduleRule {

    static final String KIND = "rate";

    FixedRate {
        check("period", period);
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        long p = period.toMillis();
        long t = after.toEpochMilli();
        return Optional.of(Instant.ofEpochMilli(Math.floorDiv(t, p) * p + p));
    }

    @Override
    public String spec() {
        return KIND + ":" + period;
    }

    static Duration check(String argument, Duration d) {
        Objects.requireNonNull(d, argument);
        if (d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(DelayedQueue.MAX_DELAY) > 0) {
            throw new IllegalArgumentException(argument + " must be in [1 ms, " + DelayedQueue.MAX_DELAY.toMillis()
                    + " ms], was " + d);
        }
        if (d.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException(argument + " must be a whole number of milliseconds, was " + d);
        }
        return d;
    }

    static Duration duration(String argument, String text) {
        try {
            return Duration.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(argument + " must hold an ISO-8601 duration such as PT1S, was '" + text
                    + "'", e);
        }
    }
}

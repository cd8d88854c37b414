package io.clockwork.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A rule firing a delay after the previous occurrence finished. Immutable and thread-safe.
 *
 * @param delay the delay, whole milliseconds in [1 ms, {@link io.clockwork.queue.DelayedQueue#MAX_DELAY}]
 */
record FixedDelay(Duration delay) implements ScheduleRule {

    static final String KIND = "delay";

    FixedDelay {
        FixedRate.check("delay", delay);
    }

    /** The first fire time of a schedule created (or whose occurrence finished) at {@code after}. */
    @Override
    public Optional<Instant> nextAfter(Instant after) {
        return Optional.of(after.plus(delay));
    }

    @Override
    public Optional<Duration> delayAfterCompletion() {
        return Optional.of(delay);
    }

    @Override
    public String spec() {
        return KIND + ":" + delay;
    }
}

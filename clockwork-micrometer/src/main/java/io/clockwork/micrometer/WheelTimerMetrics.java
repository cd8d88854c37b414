package io.clockwork.micrometer;

import io.clockwork.timer.WheelTimer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * Binds a {@link WheelTimer}'s counts as meters {@code clockwork.timer.*} tagged {@code timer} (its name).
 * Thread-safe. Every meter reads a counter the timer keeps anyway, so a scrape costs the timer nothing.
 *
 * <pre>{@code
 * WheelTimer timer = WheelTimer.builder().name("payments")
 *         .latenessListener(WheelTimerMetrics.lateness(registry, "payments")).build();
 * new WheelTimerMetrics(timer).bindTo(registry);
 * }</pre>
 */
public final class WheelTimerMetrics implements MeterBinder {

    private final WheelTimer timer;

    /** @param timer the timer to bind */
    public WheelTimerMetrics(WheelTimer timer) {
        this.timer = Objects.requireNonNull(timer, "timer");
    }

    /**
     * Makes the listener that records a timer's lateness as {@code clockwork.timer.lateness}; pass it to
     * {@link WheelTimer.Builder#latenessListener(LongConsumer)} (lateness is measured as each timeout falls due, so
     * it is set when the timer is built).
     *
     * @param registry  where the meter goes
     * @param timerName the name the timer is built with (the {@code timer} tag)
     * @return a listener that records each lateness
     */
    public static LongConsumer lateness(MeterRegistry registry, String timerName) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(timerName, "timerName");
        Timer t = Timer.builder("clockwork.timer.lateness").tags(Tags.of("timer", timerName))
                .description("time from a timeout's deadline until the timer thread runs or hands off its task")
                .register(registry);
        return nanos -> t.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Tags tags = Tags.of("timer", timer.name());
        Gauge.builder("clockwork.timer.pending", timer, WheelTimer::pendingCount).tags(tags).baseUnit("timeouts")
                .description("timeouts scheduled and neither run nor cancelled").register(registry);
        FunctionCounter.builder("clockwork.timer.scheduled", timer, WheelTimer::scheduledCount).tags(tags)
                .baseUnit("timeouts").description("timeouts scheduled").register(registry);
        FunctionCounter.builder("clockwork.timer.expired", timer, WheelTimer::expiredCount).tags(tags)
                .baseUnit("timeouts").description("timeouts that fell due and ran or went to the executor")
                .register(registry);
        FunctionCounter.builder("clockwork.timer.cancelled", timer, WheelTimer::cancelledCount).tags(tags)
                .baseUnit("timeouts").description("timeouts cancelled before they fell due").register(registry);
        FunctionCounter.builder("clockwork.timer.rejected", timer, WheelTimer::rejectedCount).tags(tags)
                .baseUnit("timeouts").description("due timeouts the executor refused").register(registry);
    }
}

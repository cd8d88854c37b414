package io.clockwork.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * When a schedule fires: a fixed rate, a fixed delay after the previous occurrence finished, or (with
 * {@code clockwork-cron} on the class or module path) a cron expression. Implementations are immutable and
 * thread-safe.
 *
 * <p>A rule is stored as its {@link #spec()}, a one-line text {@code <kind>:<body>} that {@link #parse(String)} turns
 * back into an equal rule, so that every scheduler process (and the {@code clockwork schedule} command) computes the
 * same fire times from what the backend holds. Fire times are whole milliseconds since the epoch.
 */
public interface ScheduleRule {

    /**
     * The next fire time strictly after {@code after}.
     *
     * @param after an instant (whole milliseconds)
     * @return the next fire time, or empty if the rule never fires again
     */
    Optional<Instant> nextAfter(Instant after);

    /** @return the rule as {@code <kind>:<body>}, e.g. {@code rate:PT1M} or {@code cron:0 9 * * MON-FRI|UTC} */
    String spec();

    /**
     * @return the delay between an occurrence finishing (acked, cancelled or dead) and the next fire time, for a
     *         fixed-delay rule; empty for rules whose fire times are fixed in advance
     */
    default Optional<Duration> delayAfterCompletion() {
        return Optional.empty();
    }

    /**
     * A rule firing every {@code period}, at the instants that are whole multiples of it since the epoch
     * (1970-01-01T00:00Z), so that every process computes the same fire times: {@code fixedRate(Duration.ofHours(1))}
     * fires on the hour.
     *
     * @param period at least 1 ms, a whole number of milliseconds, at most
     *               {@link io.clockwork.queue.DelayedQueue#MAX_DELAY}
     * @return the rule
     * @throws IllegalArgumentException naming {@code period} if it is out of range or not whole milliseconds
     */
    static ScheduleRule fixedRate(Duration period) {
        return new FixedRate(period);
    }

    /**
     * A rule firing {@code delay} after the previous occurrence finished (acked, cancelled or dead), and first
     * {@code delay} after the schedule is created. A scheduler notices a finished occurrence within its poll
     * interval, so the gap is {@code delay} plus up to that interval.
     *
     * @param delay at least 1 ms, a whole number of milliseconds, at most
     *              {@link io.clockwork.queue.DelayedQueue#MAX_DELAY}
     * @return the rule
     * @throws IllegalArgumentException naming {@code delay} if it is out of range or not whole milliseconds
     */
    static ScheduleRule fixedDelay(Duration delay) {
        return new FixedDelay(delay);
    }

    /**
     * Reads a rule from its {@link #spec()}: {@code rate:<ISO-8601 duration>}, {@code delay:<ISO-8601 duration>}, or a
     * kind some {@link RuleParser} on the class or module path knows ({@code cron:} with {@code clockwork-cron}).
     *
     * @param spec the text
     * @return the rule
     * @throws IllegalArgumentException naming {@code rule} if the text is malformed or its kind unknown
     */
    static ScheduleRule parse(String spec) {
        Objects.requireNonNull(spec, "rule");
        int colon = spec.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("rule must be <kind>:<body> (rate:PT1S, delay:PT1S, cron:...), was '"
                    + spec + "'");
        }
        String kind = spec.substring(0, colon);
        String body = spec.substring(colon + 1);
        switch (kind) {
            case FixedRate.KIND:
                return new FixedRate(FixedRate.duration("rule", body));
            case FixedDelay.KIND:
                return new FixedDelay(FixedRate.duration("rule", body));
            default:
                for (RuleParser p : ServiceLoader.load(RuleParser.class, ScheduleRule.class.getClassLoader())) {
                    if (p.kind().equals(kind)) {
                        return p.parse(body);
                    }
                }
                throw new IllegalArgumentException("rule kind '" + kind + "' is unknown: rate and delay are built in,"
                        + " cron needs clockwork-cron on the class path; rule was '" + spec + "'");
        }
    }
}

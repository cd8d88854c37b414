package io.clockwork.cron;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.clockwork.schedule.ScheduleRule;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link ScheduleRule} firing at the times a cron expression names, in a time zone. Immutable and thread-safe.
 *
 * <p>Two forms, told apart by their field count: the standard 5 fields {@code minute hour day-of-month month
 * day-of-week} (Unix cron), and 6 fields with seconds first, {@code second minute hour day-of-month month
 * day-of-week} (Spring's form, {@code ?} allowed in a day field). Parsing and evaluation are cron-utils'; an
 * expression that is malformed, or that no date ever matches (February 30th), is rejected when the rule is made.
 *
 * <p><b>Daylight saving time</b>, in zones that have it:
 * <ul>
 *   <li><i>Gap</i> (clocks jump forward, e.g. 02:00 to 03:00): local times inside the gap do not exist. If the
 *   expression matches any of them, the rule fires once at the end of the gap (03:00 local, the first instant after
 *   the jump), as Vixie cron runs such jobs; a match at the gap's end itself merges with it. A daily
 *   {@code 30 2 * * *} thus fires at 03:00 on the day clocks spring forward.</li>
 *   <li><i>Overlap</i> (clocks fall back, e.g. 03:00 to 02:00): local times in the repeated hour occur twice. An
 *   expression that names the hour ({@code 30 2 * * *}) fires once, at the first of the two; one whose hour field is
 *   a wildcard or step ({@code 0/30 * * * *}) fires at each instant that matches, so in both passes of the hour.</li>
 * </ul>
 * Fire times are whole seconds; the rule reads instants at millisecond precision.
 */
public final class CronRule implements ScheduleRule {

    /** The kind of a cron rule's spec: {@code cron:<expression>|<zone id>}. */
    public static final String KIND = "cron";

    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final CronParser WITH_SECONDS =
            new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));
    private static final Instant PROBE_FROM = Instant.parse("2000-01-01T00:00:00Z");

    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime times;

    private CronRule(String expression, ZoneId zone) {
        this.expression = expression;
        this.zone = zone;
        this.times = ExecutionTime.forCron(parse(expression));
        if (times.nextExecution(PROBE_FROM.atZone(zone)).isEmpty()) {
            throw new IllegalArgumentException("cron '" + expression + "' never fires: no date matches it (such as"
                    + " February 30th)");
        }
    }

    /**
     * @param expression a 5-field or 6-field (seconds first) cron expression
     * @param zone       the time zone its local times are in
     * @return the rule
     * @throws IllegalArgumentException naming {@code cron} if the expression is malformed or never fires
     */
    public static CronRule of(String expression, ZoneId zone) {
        Objects.requireNonNull(expression, "cron");
        Objects.requireNonNull(zone, "zone");
        return new CronRule(expression.trim().replaceAll("\\s+", " "), zone);
    }

    /**
     * @param expression a 5-field or 6-field cron expression
     * @param zone       a time zone id, e.g. {@code Europe/Paris} or {@code UTC}
     * @return the rule
     * @throws IllegalArgumentException naming {@code zone} if the zone is unknown, or {@code cron} as
     *                                  {@link #of(String, ZoneId)}
     */
    public static CronRule of(String expression, String zone) {
        Objects.requireNonNull(zone, "zone");
        ZoneId id;
        try {
            id = ZoneId.of(zone);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("zone '" + zone + "' is not a known time zone id (such as UTC or"
                    + " Europe/Paris)", e);
        }
        return of(expression, id);
    }

    /**
     * @param expression a cron expression
     * @return the rule in UTC
     */
    public static CronRule of(String expression) {
        return of(expression, ZoneOffset.UTC);
    }

    private static Cron parse(String expression) {
        int fields = expression.isEmpty() ? 0 : expression.split(" ").length;
        CronParser parser;
        if (fields == 5) {
            parser = UNIX;
        } else if (fields == 6) {
            parser = WITH_SECONDS;
        } else {
            throw new IllegalArgumentException("cron must have 5 fields (minute hour day-of-month month day-of-week)"
                    + " or 6 (second first), had " + fields + ": '" + expression + "'");
        }
        try {
            return parser.parse(expression).validate();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cron '" + expression + "' is malformed: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        Instant from = after.truncatedTo(ChronoUnit.SECONDS);
        Optional<ZonedDateTime> next = times.nextExecution(from.atZone(zone));
        Instant candidate = next.map(ZonedDateTime::toInstant).orElse(null);
        Instant gapEnd = firstMatchedGap(after, candidate);
        if (gapEnd != null) {
            return Optional.of(gapEnd);
        }
        return Optional.ofNullable(candidate);
    }

    /**
     * The end of the first daylight-saving gap after {@code after} and before {@code until} (null: unbounded, up to
     * a year on) in which the expression matches a local time that does not exist; null if none.
     */
    private Instant firstMatchedGap(Instant after, Instant until) {
        ZoneRules rules = zone.getRules();
        if (rules.isFixedOffset()) {
            return null;
        }
        Instant limit = until != null ? until : after.plus(366, ChronoUnit.DAYS);
        ZoneOffsetTransition t = rules.nextTransition(after);
        while (t != null && t.getInstant().isBefore(limit)) {
            if (t.isGap()) {
                LocalDateTime gapStart = t.getDateTimeBefore();
                ZonedDateTime justBefore = gapStart.minusSeconds(1).atZone(t.getOffsetBefore());
                Optional<ZonedDateTime> match = times.nextExecution(justBefore);
                if (match.isPresent() && match.get().toLocalDateTime().isBefore(t.getDateTimeAfter())) {
                    return t.getInstant();
                }
            }
            t = rules.nextTransition(t.getInstant());
        }
        return null;
    }

    @Override
    public String spec() {
        return KIND + ":" + expression + "|" + zone.getId();
    }

    /** @return the expression, with single spaces between fields */
    public String expression() {
        return expression;
    }

    /** @return the time zone */
    public ZoneId zone() {
        return zone;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CronRule c && c.expression.equals(expression) && c.zone.equals(zone);
    }

    @Override
    public int hashCode() {
        return expression.hashCode() * 31 + zone.hashCode();
    }

    @Override
    public String toString() {
        return spec();
    }
}

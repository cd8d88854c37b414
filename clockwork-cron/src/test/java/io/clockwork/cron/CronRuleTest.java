package io.clockwork.cron;

import io.clockwork.queue.Delivery;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.schedule.InMemorySchedules;
import io.clockwork.schedule.Occurrence;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleRule;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CronRuleTest {

    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

    private static List<Instant> next(ScheduleRule rule, String from, int n) {
        List<Instant> out = new ArrayList<>();
        Instant t = Instant.parse(from);
        for (int i = 0; i < n; i++) {
            t = rule.nextAfter(t).orElseThrow();
            out.add(t);
        }
        return out;
    }

    @Test
    void fiveFieldExpressionsFireAtTheMinutesTheyNameInTheirZone() {
        CronRule weekdays = CronRule.of("0 9 * * MON-FRI", PARIS);
        assertThat(next(weekdays, "2026-01-02T07:59:00Z", 3)).containsExactly(
                Instant.parse("2026-01-02T08:00:00Z"), // Friday 09:00 in Paris (UTC+1)
                Instant.parse("2026-01-05T08:00:00Z"),
                Instant.parse("2026-01-06T08:00:00Z"));
    }

    @Test
    void sixFieldExpressionsHaveSecondsFirst() {
        CronRule everyFive = CronRule.of("*/5 * * * * *");
        assertThat(next(everyFive, "2026-01-01T00:00:01.500Z", 3)).containsExactly(
                Instant.parse("2026-01-01T00:00:05Z"), Instant.parse("2026-01-01T00:00:10Z"),
                Instant.parse("2026-01-01T00:00:15Z"));
    }

    @Test
    void nextAfterAFireTimeIsStrictlyLaterEvenWithinItsSecond() {
        CronRule everyMinute = CronRule.of("* * * * *");
        assertThat(everyMinute.nextAfter(Instant.parse("2026-01-01T00:01:00Z")))
                .contains(Instant.parse("2026-01-01T00:02:00Z"));
        assertThat(everyMinute.nextAfter(Instant.parse("2026-01-01T00:01:00.999Z")))
                .contains(Instant.parse("2026-01-01T00:02:00Z"));
    }

    @Test
    void aDailyTimeInsideTheSpringForwardGapFiresOnceAtTheGapsEnd() {
        // Paris, 2026-03-29: 02:00 local jumps to 03:00 (01:00Z)
        CronRule daily = CronRule.of("30 2 * * *", PARIS);
        assertThat(next(daily, "2026-03-27T12:00:00Z", 3)).containsExactly(
                Instant.parse("2026-03-28T01:30:00Z"), // 02:30+01:00
                Instant.parse("2026-03-29T01:00:00Z"), // the gap's end, 03:00+02:00
                Instant.parse("2026-03-30T00:30:00Z")); // 02:30+02:00
        CronRule halfHourly = CronRule.of("0/30 * * * *", PARIS);
        assertThat(next(halfHourly, "2026-03-29T00:15:00Z", 3)).containsExactly(
                Instant.parse("2026-03-29T00:30:00Z"), // 01:30+01:00
                Instant.parse("2026-03-29T01:00:00Z"), // 02:00 and 02:30 do not exist; 03:00+02:00 once
                Instant.parse("2026-03-29T01:30:00Z")); // 03:30+02:00
    }

    @Test
    void inTheFallBackOverlapANamedHourFiresOnceAndAWildcardHourFiresInBothPasses() {
        // Paris, 2026-10-25: 03:00 local falls back to 02:00 (01:00Z), so 02:00-03:00 local happens twice
        CronRule daily = CronRule.of("30 2 * * *", PARIS);
        assertThat(next(daily, "2026-10-24T12:00:00Z", 2)).containsExactly(
                Instant.parse("2026-10-25T00:30:00Z"), // the first 02:30 (+02:00) only
                Instant.parse("2026-10-26T01:30:00Z"));
        CronRule halfHourly = CronRule.of("0/30 * * * *", PARIS);
        assertThat(next(halfHourly, "2026-10-24T23:45:00Z", 4)).containsExactly(
                Instant.parse("2026-10-25T00:00:00Z"), Instant.parse("2026-10-25T00:30:00Z"),
                Instant.parse("2026-10-25T01:00:00Z"), Instant.parse("2026-10-25T01:30:00Z"));
    }

    @Test
    void malformedImpossibleAndMiscountedExpressionsAreRejectedNamingCron() {
        assertThatThrownBy(() -> CronRule.of("61 * * * *")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cron '61 * * * *' is malformed");
        assertThatThrownBy(() -> CronRule.of("0 0 30 2 *")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cron '0 0 30 2 *' never fires");
        assertThatThrownBy(() -> CronRule.of("* * *")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cron must have 5 fields");
        assertThatThrownBy(() -> CronRule.of("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cron must have 5 fields");
        assertThatThrownBy(() -> CronRule.of("* * * * *", "Mars/Olympus")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("zone 'Mars/Olympus' is not a known time zone");
        assertThat(CronRule.of("0 0 29 2 *").nextAfter(Instant.parse("2026-01-01T00:00:00Z")))
                .contains(Instant.parse("2028-02-29T00:00:00Z"));
    }

    @Test
    void specsReadBackThroughScheduleRuleParse() {
        CronRule rule = CronRule.of("  0   9 * *  MON-FRI ", PARIS);
        assertThat(rule.spec()).isEqualTo("cron:0 9 * * MON-FRI|Europe/Paris");
        assertThat(ScheduleRule.parse(rule.spec())).isEqualTo(rule);
        assertThat(ScheduleRule.parse("cron:*/5 * * * * *")).isEqualTo(CronRule.of("*/5 * * * * *"));
        assertThatThrownBy(() -> ScheduleRule.parse("cron:0 0 30 2 *|UTC"))
                .hasMessageStartingWith("cron '0 0 30 2 *' never fires");
    }

    @Test
    void aCronScheduleInProcessFiresAtItsSecondsOnTheManualClock() throws InterruptedException {
        ManualTicker ticker = new ManualTicker();
        Instant epoch = Instant.parse("2026-06-01T12:00:00.400Z");
        try (InMemoryDelayedQueue<String> queue = InMemoryDelayedQueue.<String>builder().ticker(ticker).build();
             InMemorySchedules<String> schedules = InMemorySchedules.builder(queue).ticker(ticker).epoch(epoch)
                     .misfireThreshold(Duration.ofMinutes(1))
                     .build()) {
            schedules.put(Schedule.of("ten-seconds", CronRule.of("*/10 * * * * *"), "tick"));
            ticker.advance(Duration.ofSeconds(35));
            assertThat(schedules.fireDue()).isEqualTo(3);
            List<Instant> fired = new ArrayList<>();
            for (Delivery<String> d : queue.poll(10, Duration.ZERO)) {
                fired.add(Occurrence.of(d.id()).orElseThrow().fireTime());
            }
            assertThat(fired).containsExactly(Instant.parse("2026-06-01T12:00:10Z"),
                    Instant.parse("2026-06-01T12:00:20Z"), Instant.parse("2026-06-01T12:00:30Z"));
        }
    }
}

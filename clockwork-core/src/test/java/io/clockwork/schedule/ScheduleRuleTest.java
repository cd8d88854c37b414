package io.clockwork.schedule;

import io.clockwork.queue.DelayedQueue;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScheduleRuleTest {

    @Test
    void fixedRateFiresAtWholeMultiplesOfItsPeriodSinceTheEpoch() {
        ScheduleRule hourly = ScheduleRule.fixedRate(Duration.ofHours(1));
        assertThat(hourly.nextAfter(Instant.parse("2026-03-01T10:15:00Z")))
                .contains(Instant.parse("2026-03-01T11:00:00Z"));
        assertThat(hourly.nextAfter(Instant.parse("2026-03-01T11:00:00Z")))
                .contains(Instant.parse("2026-03-01T12:00:00Z"));
    }

    @Test
    void zeroNegativeAndSubMillisecondPeriodsAreRejectedNamingTheArgument() {
        assertThatThrownBy(() -> ScheduleRule.fixedRate(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("period must be in [1 ms");
        assertThatThrownBy(() -> ScheduleRule.fixedRate(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("period");
        assertThatThrownBy(() -> ScheduleRule.fixedRate(Duration.ofNanos(1_500_000)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole number of milliseconds");
        assertThatThrownBy(() -> ScheduleRule.fixedRate(DelayedQueue.MAX_DELAY.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("period");
        assertThatThrownBy(() -> ScheduleRule.fixedDelay(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("delay must be in [1 ms");
    }

    @Test
    void specsReadBackToEqualRules() {
        for (ScheduleRule r : new ScheduleRule[] {ScheduleRule.fixedRate(Duration.ofMillis(50)),
                ScheduleRule.fixedDelay(Duration.ofMinutes(5))}) {
            assertThat(ScheduleRule.parse(r.spec())).isEqualTo(r);
        }
        assertThat(ScheduleRule.fixedRate(Duration.ofSeconds(1)).spec()).isEqualTo("rate:PT1S");
    }

    @Test
    void malformedAndUnknownSpecsAreRejectedNamingTheRule() {
        assertThatThrownBy(() -> ScheduleRule.parse("every minute")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("rule must be <kind>:<body>");
        assertThatThrownBy(() -> ScheduleRule.parse("rate:often")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("rule must hold an ISO-8601 duration");
        assertThatThrownBy(() -> ScheduleRule.parse("rate:PT0S")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("period");
        assertThatThrownBy(() -> ScheduleRule.parse("lunar:full")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rule kind 'lunar' is unknown");
    }

    @Test
    void misfireSpecsReadBackAndBadOnesAreRejected() {
        for (Misfire m : new Misfire[] {Misfire.FIRE_ONCE, Misfire.SKIP, Misfire.catchUp(7)}) {
            assertThat(Misfire.parse(m.spec())).isEqualTo(m);
        }
        assertThatThrownBy(() -> Misfire.catchUp(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("max must be in [1, 1000]");
        assertThatThrownBy(() -> Misfire.parse("sometimes")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("misfire must be");
    }

    @Test
    void badNamesAreRejectedNamingTheArgument() {
        ScheduleRule r = ScheduleRule.fixedRate(Duration.ofSeconds(1));
        assertThatThrownBy(() -> Schedule.of("", r, "x")).hasMessage("name must not be empty");
        assertThatThrownBy(() -> Schedule.of("a\uD800", r, "x")).hasMessageStartingWith("name must be well-formed");
        assertThatThrownBy(() -> Schedule.of("é".repeat(101), r, "x"))
                .hasMessageStartingWith("name must be at most 200 UTF-8 bytes");
        assertThat(Schedule.of("é".repeat(100), r, "x").name()).hasSize(100);
        assertThatThrownBy(() -> Schedule.of("a", r, "x").spread(Duration.ofMillis(-1)))
                .hasMessageStartingWith("spread must be");
    }

    @Test
    void occurrenceIdsRoundTripAndOthersAreNotOccurrences() {
        String id = Occurrence.id("re@port", 1_700_000_000_123L);
        assertThat(id).isEqualTo("re@port@1700000000123");
        assertThat(Occurrence.of(id)).contains(new Occurrence("re@port", Instant.ofEpochMilli(1_700_000_000_123L)));
        assertThat(Occurrence.of(id + "~3")).contains(new Occurrence("re@port",
                Instant.ofEpochMilli(1_700_000_000_123L)));
        assertThat(Occurrence.of("plain-id")).isEmpty();
        assertThat(Occurrence.of("a@b")).isEmpty();
        assertThat(Occurrence.of("@12")).isEmpty();
    }

    @Test
    void aPlanFiresOnTimeFireTimesAndAppliesTheMisfirePolicyToOlderOnes() {
        ScheduleRule second = ScheduleRule.fixedRate(Duration.ofSeconds(1));
        // next 10 s, now 20.5 s, threshold 3 s: 10..17 missed, 18..20 on time
        assertThat(FirePlan.of(second, Misfire.SKIP, 10_000, 20_500, 3_000))
                .isEqualTo(new FirePlan(new long[] {18_000, 19_000, 20_000}, 21_000));
        assertThat(FirePlan.of(second, Misfire.FIRE_ONCE, 10_000, 20_500, 3_000))
                .isEqualTo(new FirePlan(new long[] {10_000, 18_000, 19_000, 20_000}, 21_000));
        assertThat(FirePlan.of(second, Misfire.catchUp(2), 10_000, 20_500, 3_000))
                .isEqualTo(new FirePlan(new long[] {10_000, 11_000, 18_000, 19_000, 20_000}, 21_000));
        assertThat(FirePlan.of(second, Misfire.catchUp(100), 10_000, 20_500, 3_000).fireTimes())
                .hasSize(11);
        assertThat(FirePlan.of(second, Misfire.FIRE_ONCE, 21_000, 20_500, 3_000))
                .isEqualTo(new FirePlan(new long[0], 21_000));
    }

    @Test
    void aPlanAfterAYearOfDowntimeTakesOneRuleStepForTheSkippedFireTimes() {
        ScheduleRule ms = ScheduleRule.fixedRate(Duration.ofMillis(1));
        long year = Duration.ofDays(365).toMillis();
        FirePlan plan = FirePlan.of(ms, Misfire.FIRE_ONCE, 1, year, 5);
        assertThat(plan.fireTimes()).hasSize(1 + 5);
        assertThat(plan.fireTimes()[0]).isEqualTo(1);
        assertThat(plan.next()).isEqualTo(year + 1);
    }
}

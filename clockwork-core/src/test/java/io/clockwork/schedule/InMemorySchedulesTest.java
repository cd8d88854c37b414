package io.clockwork.schedule;

import io.clockwork.engine.SharedDriver;
import io.clockwork.queue.Delivery;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InMemorySchedulesTest {

    private static final Instant EPOCH = Instant.parse("2026-03-01T10:00:00Z");

    @Test
    void startedSchedulesFireOnTheEngineDriverAsTheManualClockMoves() throws InterruptedException {
        ManualTicker ticker = new ManualTicker();
        try (InMemoryDelayedQueue<String> queue = InMemoryDelayedQueue.<String>builder().ticker(ticker).build();
             InMemorySchedules<String> schedules = InMemorySchedules.builder(queue).ticker(ticker).epoch(EPOCH)
                     .build().start()) {
            schedules.put(Schedule.of("minutely", ScheduleRule.fixedRate(Duration.ofMinutes(1)), "m"));
            assertThat(SharedDriver.isRunning(ticker)).isTrue();
            List<Instant> seen = new ArrayList<>();
            for (int minute = 1; minute <= 3; minute++) {
                ticker.advance(Duration.ofMinutes(1));
                Delivery<String> d = queue.poll(Duration.ofSeconds(20)); // wakes when the driver's pass offers
                assertThat(d).isNotNull();
                seen.add(Occurrence.of(d.id()).orElseThrow().fireTime());
                d.ack();
            }
            assertThat(seen).containsExactly(EPOCH.plusSeconds(60), EPOCH.plusSeconds(120), EPOCH.plusSeconds(180));
            assertThat(queue.poll(Duration.ZERO)).isNull();
        }
        Await.until("the engine driver stops with the last lease", () -> !SharedDriver.isRunning(ticker));
    }

    @Test
    void aScheduleAddedAfterStartWithAnEarlierFireTimeWakesTheDriverEarlier() throws InterruptedException {
        ManualTicker ticker = new ManualTicker();
        try (InMemoryDelayedQueue<String> queue = InMemoryDelayedQueue.<String>builder().ticker(ticker).build();
             InMemorySchedules<String> schedules = InMemorySchedules.builder(queue).ticker(ticker).epoch(EPOCH)
                     .build().start()) {
            schedules.put(Schedule.of("hourly", ScheduleRule.fixedRate(Duration.ofHours(1)), "h"));
            schedules.put(Schedule.of("secondly", ScheduleRule.fixedRate(Duration.ofSeconds(1)), "s"));
            ticker.advance(Duration.ofSeconds(1));
            Delivery<String> d = queue.poll(Duration.ofSeconds(20));
            assertThat(d).isNotNull();
            assertThat(d.value()).isEqualTo("s");
        }
    }

    @Test
    void occurrencesOfASpreadScheduleFallDueAtTheirNamesOffsetButKeepTheirFireTime() throws InterruptedException {
        ManualTicker ticker = new ManualTicker();
        try (InMemoryDelayedQueue<String> queue = InMemoryDelayedQueue.<String>builder().ticker(ticker).build();
             InMemorySchedules<String> schedules = InMemorySchedules.builder(queue).ticker(ticker).epoch(EPOCH)
                     .build()) {
            Schedule<String> s = Schedule.of("spread", ScheduleRule.fixedRate(Duration.ofMinutes(1)), "x")
                    .spread(Duration.ofSeconds(30));
            long offset = s.spreadOffsetMillis();
            assertThat(offset).isBetween(0L, 29_999L).isEqualTo(Schedule.offsetMillis("spread", 30_000));
            schedules.put(s);
            ticker.advance(Duration.ofMinutes(1));
            assertThat(schedules.fireDue()).isEqualTo(1);
            if (offset > 0) {
                ticker.advance(Duration.ofMillis(offset - 1));
                assertThat(queue.poll(Duration.ZERO)).as("not due before its offset").isNull();
                ticker.advance(Duration.ofMillis(1));
            }
            Delivery<String> d = queue.poll(Duration.ZERO);
            assertThat(Occurrence.of(d.id()).orElseThrow().fireTime()).isEqualTo(EPOCH.plusSeconds(60));
        }
    }

    @Test
    void spreadOffsetsOfManyNamesCoverTheWindow() {
        long[] buckets = new long[10];
        for (int i = 0; i < 10_000; i++) {
            buckets[(int) (Schedule.offsetMillis("job-" + i, 10_000) / 1000)]++;
        }
        for (long b : buckets) {
            assertThat(b).isBetween(800L, 1200L);
        }
    }

    @Test
    void aClosedSchedulesRefusesChanges() {
        try (InMemoryDelayedQueue<String> queue = InMemoryDelayedQueue.<String>builder().build()) {
            InMemorySchedules<String> schedules = InMemorySchedules.builder(queue).build();
            schedules.close();
            schedules.close();
            assertThatThrownBy(() -> schedules.put(Schedule.of("a", ScheduleRule.fixedRate(Duration.ofSeconds(1)),
                    "x"))).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        }
    }

    @Test
    void builderRejectsThresholdsBelowOneMillisecond() {
        try (InMemoryDelayedQueue<String> queue = InMemoryDelayedQueue.<String>builder().build()) {
            assertThatThrownBy(() -> InMemorySchedules.builder(queue).misfireThreshold(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("misfireThreshold");
            assertThatThrownBy(() -> InMemorySchedules.builder(queue).pollInterval(Duration.ofNanos(5)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pollInterval");
        }
    }
}

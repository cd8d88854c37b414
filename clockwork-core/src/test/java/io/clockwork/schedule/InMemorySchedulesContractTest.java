package io.clockwork.schedule;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.testing.schedule.SchedulesContract;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.time.Instant;

/**
 * The schedules contract in process, on a manual clock. One process holds one schedule store, so every scheduler the
 * contract asks for is the same instance; the contract's concurrent passes then race on its lock.
 */
class InMemorySchedulesContractTest extends SchedulesContract {

    private final ManualTicker ticker = new ManualTicker();
    private final InMemoryDelayedQueue<String> queue = InMemoryDelayedQueue.<String>builder().ticker(ticker).build();
    private InMemorySchedules<String> schedules;

    @Override
    protected Schedules<String> newSchedules(Duration misfireThreshold) {
        if (schedules == null) {
            schedules = InMemorySchedules.builder(queue).ticker(ticker).epoch(Instant.parse("2026-03-01T10:00:00.250Z"))
                    .misfireThreshold(misfireThreshold).build();
        }
        return schedules;
    }

    @Override
    protected DelayedQueue<String> queue() {
        return queue;
    }

    @Override
    protected void passTime(Duration d) {
        ticker.advance(d);
    }

    @Override
    protected Duration period() {
        return Duration.ofSeconds(1);
    }

    @AfterEach
    void close() {
        if (schedules != null) {
            schedules.close();
        }
        queue.close();
    }
}

package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.schedule.Schedules;
import io.clockwork.testing.schedule.SchedulesContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link SchedulesContract} on a real PostgreSQL server: every scheduler the contract asks for is a client of
 * its own (its own {@link PostgresDelayedQueue} instance over the test's queue name, on the JVM's pool), and time
 * passes on the database's clock.
 */
@ExtendWith(PostgresExtension.class)
class PostgresSchedulesIT extends SchedulesContract {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final String name = "schedules-" + NAMES.incrementAndGet();
    private final List<AutoCloseable> open = new ArrayList<>();
    private PostgresDelayedQueue<String> queue;

    private PostgresDelayedQueue<String> newQueue() {
        PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(ContractQueues.dataSource(), name,
                Codec.string()).build();
        open.add(q);
        return q;
    }

    @Override
    protected Schedules<String> newSchedules(Duration misfireThreshold) {
        // A poll interval below the period, so that a pass one period after an ack sees the occurrence finished.
        PostgresSchedules<String> s = PostgresSchedules.builder(newQueue()).misfireThreshold(misfireThreshold)
                .pollInterval(Duration.ofMillis(40)).build();
        open.add(0, s);
        return s;
    }

    @Override
    protected DelayedQueue<String> queue() {
        if (queue == null) {
            queue = newQueue();
        }
        return queue;
    }

    @Override
    protected void passTime(Duration d) {
        ContractQueues.passTime(d);
    }

    /** On the server's real clock a pass may start seconds late on a loaded machine: that is not a misfire here. */
    @Override
    protected Duration onTimeThreshold() {
        return Duration.ofSeconds(10);
    }

    @Override
    protected Duration period() {
        return Duration.ofMillis(60);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }
}

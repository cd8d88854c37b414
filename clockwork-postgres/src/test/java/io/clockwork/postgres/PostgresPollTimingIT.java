package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The timing options of a consumer's waits: {@code recheckInterval} (how often an idle consumer takes again without a
 * notification) and {@code ticker} (the clock of {@code poll(wait)}). Real time is the subject of these tests.
 */
@ExtendWith(PostgresExtension.class)
class PostgresPollTimingIT {

    private final ContractQueues queues = new ContractQueues("timing-");
    private final ExecutorService background = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        background.shutdownNow();
        queues.close();
    }

    @Test
    void badTimingOptionsAreRefusedNamingTheOptionAndItsRange() {
        PostgresQueueBuilder<String> b = queues.builder(Codec.string());
        assertThatThrownBy(() -> b.recheckInterval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("recheckInterval must be in [PT0.001S, PT1S], was PT0S");
        assertThatThrownBy(() -> b.recheckInterval(Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recheckInterval must be in");
        assertThatThrownBy(() -> b.recheckInterval(Duration.ofMillis(1001)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("recheckInterval must be in [PT0.001S, PT1S], was PT1.001S");
        assertThatThrownBy(() -> b.recheckInterval(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("recheckInterval");
        assertThatThrownBy(() -> b.ticker(null)).isInstanceOf(NullPointerException.class).hasMessage("ticker");
        b.recheckInterval(PostgresQueueBuilder.MAX_RECHECK_INTERVAL).ticker(new ManualTicker());
        assertThatThrownBy(() -> b.recheckInterval(Duration.ofMillis(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("recheckInterval");
        assertThatThrownBy(() -> b.ticker(new ManualTicker())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ticker");
        assertThat(queues.builder(Codec.string()).recheckInterval(Duration.ofMillis(1))).isNotNull();
    }

    @Test
    void anIdleConsumerTakesAgainEveryRecheckInterval() throws Exception {
        CountingDataSource counting = new CountingDataSource(ContractQueues.dataSource());
        PostgresDelayedQueue<String> q = queues.track(PostgresDelayedQueue.builder(counting, "timing-recheck-"
                + System.nanoTime(), Codec.string()).recheckInterval(Duration.ofMillis(100)).build());
        q.offer("far", Duration.ofHours(1));
        ContractQueues.listening(q);
        long before = counting.taken();
        assertThat(q.poll(Duration.ofMillis(1500))).isNull();
        // About 15 takes; the default interval makes at most 4 in the same wait (PostgresQueueWaitIT).
        assertThat(counting.taken() - before).as("takes in 1.5 s of waiting, one per 100 ms").isBetween(8L, 20L);
    }

    @Test
    void aShortRecheckIntervalBoundsTheDelayOfAMessageWhoseNotificationIsLost() throws Exception {
        PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> ((PostgresQueueBuilder<String>) b)
                .recheckInterval(Duration.ofMillis(50)));
        q.offer("far", "far", Duration.ofHours(1));
        ContractQueues.listening(q);
        Future<Delivery<String>> waiting = background.submit(() -> q.poll(Duration.ofSeconds(20)));
        long start = System.nanoTime();
        // Due now without a notification: a statement of no unit, as a pooler that drops LISTEN would leave it.
        try (Connection c = ContractQueues.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE clockwork.clockwork_messages SET due = clock_timestamp() WHERE queue = ? AND id = 'far'")) {
            ps.setString(1, q.name());
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        assertThat(waiting.get(20, TimeUnit.SECONDS).value()).isEqualTo("far");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("found by a recheck")
                .isLessThan(700);
    }

    @Test
    void aPollWaitsOnTheTickerWhileDueTimesFollowTheDatabasesClock() throws Exception {
        ManualTicker ticker = new ManualTicker();
        PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> ((PostgresQueueBuilder<String>) b)
                .ticker(ticker));
        Future<Delivery<String>> waiting = background.submit(() -> q.poll(Duration.ofMillis(300)));
        assertThatThrownBy(() -> waiting.get(1500, TimeUnit.MILLISECONDS))
                .as("300 ms of real time are not 300 ms of the ticker").isInstanceOf(TimeoutException.class);
        Await.until("300 ms of the ticker end the poll", () -> {
            ticker.advance(Duration.ofMillis(300));
            return waiting.isDone();
        });
        assertThat(waiting.get()).as("the ticker's jump ended the wait").isNull();

        Future<Delivery<String>> hour = background.submit(() -> q.poll(Duration.ofHours(1)));
        // The poll reads the ticker when it starts, which may come after an advance made here (a loaded machine may
        // start its thread late): advance an hour at a time until one falls after that read and ends the wait.
        Await.until("an hour of the ticker ends the poll", () -> {
            ticker.advance(Duration.ofHours(1));
            return hour.isDone();
        });
        assertThat(hour.get()).as("an hour of the ticker, not of real time").isNull();

        q.offer("soon", Duration.ofMillis(200));
        Delivery<String> d = q.poll(Duration.ofHours(1));
        assertThat(d.value()).as("due on the database's clock while the ticker stands still").isEqualTo("soon");
        assertThat(d.ack()).isTrue();
    }
}

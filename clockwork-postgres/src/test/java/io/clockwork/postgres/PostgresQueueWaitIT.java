package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a consumer waits: it sleeps (never polls the database in a loop) until the next due time it read, a
 * notification, or at most a second; real time is the subject of these tests.
 */
@ExtendWith(PostgresExtension.class)
class PostgresQueueWaitIT {

    private final ContractQueues queues = new ContractQueues("wait-");
    private final ExecutorService background = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        background.shutdownNow();
        queues.close();
    }

    @Test
    void anIdlePollSleepsInsteadOfQueryingInALoop() throws Exception {
        CountingDataSource counting = new CountingDataSource(ContractQueues.dataSource());
        PostgresDelayedQueue<String> q = queues.track(PostgresDelayedQueue.builder(counting, "wait-idle-"
                + System.nanoTime(), Codec.string()).build());
        q.offer("far", Duration.ofHours(1));
        ContractQueues.listening(q);
        long before = counting.taken();
        assertThat(q.poll(Duration.ofMillis(1500))).isNull();
        assertThat(counting.taken() - before).as("takes in 1.5 s of waiting: at most one a second, and the last")
                .isLessThanOrEqualTo(4);
    }

    @Test
    void aSleepingConsumerWakesAtTheNextDueTimeItRead() throws Exception {
        PostgresDelayedQueue<String> q = queues.fresh(Codec.string(), b -> { });
        long start = System.nanoTime();
        q.offer("soon", Duration.ofMillis(300));
        Delivery<String> d = q.poll(Duration.ofSeconds(5));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(d.value()).isEqualTo("soon");
        // Counted from before the offer: not early; and before the one-second recheck the poll would otherwise wait.
        assertThat(tookMillis).as("woke at the due time").isBetween(290L, 999L);
    }

    @Test
    void aSleepingConsumerIsWokenByAnOfferOfAnotherClient() throws Exception {
        PostgresDelayedQueue<String> consumer = queues.fresh(Codec.string(), b -> { });
        PostgresDelayedQueue<String> producer = queues.track(PostgresDelayedQueue.builder(
                ContractQueues.dataSource(), consumer.name(), Codec.string()).build());
        producer.offer("far", Duration.ofHours(1));
        long before = consumer.notificationsReceived();
        Future<Delivery<String>> waiting = background.submit(() -> consumer.poll(Duration.ofSeconds(20)));
        Await.until("the waiting poll opened the listener", consumer::isListening);
        producer.offer("now", Duration.ZERO);
        assertThat(waiting.get(20, TimeUnit.SECONDS).value()).isEqualTo("now");
        Await.until("the offer's NOTIFY arrived", () -> consumer.notificationsReceived() > before);
    }
}

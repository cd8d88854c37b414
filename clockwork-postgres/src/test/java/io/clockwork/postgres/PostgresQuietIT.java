package io.clockwork.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.testing.Await;
import io.clockwork.worker.Worker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A consumer at low load runs one statement per take that finds something, not also takes that find nothing: each
 * queue operation takes one connection of its pool ({@link CountingDataSource}), so the connections a consumer's
 * client takes count its statements. The quiet (PollLoop) and the timed notifications (Listener) are what keep the
 * count down; a message offered meanwhile, by this client or another, is still taken when due.
 */
@ExtendWith(PostgresExtension.class)
class PostgresQuietIT {

    private HikariDataSource pool;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void openPool() {
        pool = ContractQueues.pool(PostgresServerProcess.shared().jdbcUrl(), 8);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        pool.close();
    }

    private PostgresDelayedQueue<String> client(String name, CountingDataSource counted) {
        PostgresDelayedQueue<String> q = PostgresDelayedQueue.builder(counted, name, Codec.string()).build();
        open.add(q);
        return q;
    }

    @Test
    void aWorkerAtLowLoadTakesEachJobOnceAndOnlyAcksAfterIt() throws Exception {
        int jobs = 12;
        CountingDataSource producerPool = new CountingDataSource(pool);
        PostgresDelayedQueue<String> producer = client("quiet-worker", producerPool);
        for (int i = 0; i < jobs; i++) {
            producer.offer("job-" + i, Duration.ofMillis(400 + 150L * i)); // 150 ms apart, the first in 400 ms
        }
        CountingDataSource consumerPool = new CountingDataSource(pool);
        PostgresDelayedQueue<String> consumer = client("quiet-worker", consumerPool);
        ConcurrentLinkedQueue<String> handled = new ConcurrentLinkedQueue<>();
        try (Worker<String> worker = Worker.builder(consumer, job -> handled.add(job.value())).concurrency(1)
                .build()) {
            Await.until("every job handled", Duration.ofSeconds(30), () -> handled.size() == jobs);
        } // closing the worker waits for its acks
        assertThat(producer.stats().inFlight()).as("jobs not acked").isZero();
        assertThat(handled).hasSize(jobs).doesNotHaveDuplicates();
        // Per job: the take that finds it (with the next due time) and its ack. Takes that would find nothing (the
        // ack's own take, the poller's first take after each job) do not run while the client is quiet. Besides:
        // the listener's connection, the first take, and spare for a slow machine's extra takes (a job that
        // slipped past its successor's due time merges two takes instead).
        long perJobBound = 2L * jobs;
        assertThat(consumerPool.taken()).as("connections the consumer took for %d jobs", jobs)
                .isLessThanOrEqualTo(perJobBound + 8);
    }

    @Test
    void aNotificationOfAMessageDueLaterWakesTheWaitingConsumerWhenItIsDueNotAtOnce() throws Exception {
        CountingDataSource consumerPool = new CountingDataSource(pool);
        PostgresDelayedQueue<String> consumer = client("quiet-timed", consumerPool);
        PostgresDelayedQueue<String> producer = client("quiet-timed", new CountingDataSource(pool));
        CompletableFuture<Delivery<String>> polled = CompletableFuture.supplyAsync(() -> {
            try {
                return consumer.poll(Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // The listener's connection and the first (empty) take.
        Await.until("the consumer listens and waits", Duration.ofSeconds(20),
                () -> consumer.isListening() && consumerPool.taken() >= 2);
        long before = consumerPool.taken();
        long offered = System.nanoTime();
        producer.offer("soon", Duration.ofMillis(600)); // earlier than any scheduled, within a second: notifies
        Delivery<String> d = polled.get(20, TimeUnit.SECONDS);
        long tookNanos = System.nanoTime() - offered;
        assertThat(d).isNotNull();
        assertThat(d.value()).isEqualTo("soon");
        assertThat(tookNanos).as("delivered when due, never early").isGreaterThanOrEqualTo(
                TimeUnit.MILLISECONDS.toNanos(600));
        // One take when it fell due; a recheck (every second) may add one on a slow machine.
        assertThat(consumerPool.taken() - before).as("takes after the notification").isBetween(1L, 2L);
    }

    @Test
    void anOfferOfThisClientEndsTheQuietAtOnce() throws Exception {
        PostgresDelayedQueue<String> q = client("quiet-own", new CountingDataSource(pool));
        q.offer("first", Duration.ZERO);
        q.offer("far", Duration.ofHours(1));
        Delivery<String> first = q.poll(Duration.ofSeconds(10)); // a waiting poll: the listener runs
        assertThat(first.value()).isEqualTo("first");
        q.offer("now", Duration.ZERO); // this client's change: the next take cannot be skipped
        assertThat(q.ackAndPoll(first).next()).as("ackAndPoll right after this client's offer")
                .isNotNull().extracting(Delivery::value).isEqualTo("now");
    }

    @Test
    void anotherClientsOfferDueNowReachesAQuietConsumer() throws Exception {
        PostgresDelayedQueue<String> consumer = client("quiet-other", new CountingDataSource(pool));
        PostgresDelayedQueue<String> producer = client("quiet-other", new CountingDataSource(pool));
        producer.offer("first", Duration.ZERO);
        producer.offer("far", Duration.ofHours(1));
        Delivery<String> first = consumer.poll(Duration.ofSeconds(10));
        assertThat(first.value()).isEqualTo("first");
        assertThat(consumer.ackAndPoll(first).acked()).isTrue(); // quiet: only acks
        long offered = System.nanoTime();
        producer.offer("now", Duration.ZERO); // its notification ends the consumer's quiet
        Delivery<String> next = consumer.poll(Duration.ofSeconds(10));
        assertThat(next).isNotNull().extracting(Delivery::value).isEqualTo("now");
        assertThat(System.nanoTime() - offered).as("taken on the notification, before the quiet's second ends")
                .isLessThan(TimeUnit.MILLISECONDS.toNanos(900));
    }

    @Test
    void aNotificationPayloadIsADelayInMillisecondsOrAWakeUpNow() {
        assertThat(Listener.delayMillis("250")).isEqualTo(250);
        assertThat(Listener.delayMillis("0")).isZero();
        assertThat(Listener.delayMillis("")).isZero();
        assertThat(Listener.delayMillis(null)).isZero();
        assertThat(Listener.delayMillis("-5")).isZero();
        assertThat(Listener.delayMillis("1e3")).isZero();
        assertThat(Listener.delayMillis("12345678901")).as("longer than any wake-up the units send").isZero();
    }
}

package io.clockwork.micrometer;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.ForwardingDelayedQueue;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.queue.QueueStats;
import io.clockwork.worker.RetryPolicy;
import io.clockwork.worker.Worker;
import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link MeteredDelayedQueue} on a real {@link InMemoryDelayedQueue}, read back from a {@link SimpleMeterRegistry}. */
class QueueMetricsTest {

    private final ManualTicker ticker = new ManualTicker();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MutableClock clock = new MutableClock();
    private QueueStatsSampler sampler;

    /** A wall clock the test moves. */
    static final class MutableClock extends Clock {
        volatile long millis = 1_700_000_000_000L;

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }
    }

    @AfterEach
    void close() {
        if (sampler != null) {
            sampler.close();
        }
    }

    private InMemoryDelayedQueue<String> inMemory(String name) {
        return InMemoryDelayedQueue.<String>builder().name(name).codec(Codec.string()).ticker(ticker).maxAttempts(5)
                .build();
    }

    private double count(String name, String queue) {
        return registry.get(name).tag("queue", queue).counter().count();
    }

    @Test
    void countersCountWhatEachCallChanged() throws InterruptedException {
        try (MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(inMemory("orders"), registry).build()) {
            q.offer("a", Duration.ZERO);
            assertThat(q.offer("id-b", "b", Duration.ZERO)).isTrue();
            assertThat(q.offer("id-b", "b again", Duration.ZERO)).as("a duplicate id stores nothing").isFalse();
            q.offerAll(List.of("c", "d"), Duration.ZERO);
            q.offer(Message.of("e"));
            assertThat(count("clockwork.queue.offered", "orders")).isEqualTo(5);

            List<Delivery<String>> got = q.poll(5, Duration.ZERO);
            assertThat(got).hasSize(5);
            assertThat(count("clockwork.queue.delivered", "orders")).isEqualTo(5);

            assertThat(got.get(0).ack()).isTrue();
            assertThat(got.get(0).ack()).as("a second ack changes nothing").isFalse();
            assertThat(q.ackAll(List.of(got.get(1), got.get(2)))).containsExactly(true, true);
            assertThat(got.get(3).nack(Duration.ZERO)).isTrue();
            assertThat(got.get(4).deadLetter("bad")).isTrue();
            assertThat(count("clockwork.queue.acked", "orders")).isEqualTo(3);
            assertThat(count("clockwork.queue.retried", "orders")).isEqualTo(1);
            assertThat(count("clockwork.queue.dead.lettered", "orders")).isEqualTo(1);
            assertThat(registry.get("clockwork.queue.offered").counter().getId().getTag("backend")).isEqualTo("memory");
        }
        assertThat(registry.find("clockwork.queue.offered").meters()).as("close removes the meters").isEmpty();
    }

    @Test
    void deliveryLatenessIsFirstDeliveryMinusDueTimeAndRetriesAreNotRecorded() throws InterruptedException {
        try (MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(inMemory("late"), registry).clock(clock)
                .deliveryLateness(true).build()) {
            q.offer("a", Duration.ofSeconds(5));
            ticker.advance(Duration.ofSeconds(5));
            clock.millis += 7_000; // the consumer's clock reads 2 s past the due time
            Delivery<String> d = q.poll(Duration.ZERO);
            assertThat(d.headers()).as("the metered handle hides its header").isEmpty();
            assertThat(((io.clockwork.queue.ForwardingDelivery<String>) d).delegate().headers())
                    .containsKey(MeteredDelayedQueue.DUE_HEADER);
            Timer lateness = registry.get("clockwork.queue.delivery.lateness").timer();
            assertThat(lateness.count()).isEqualTo(1);
            assertThat(lateness.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(2_000);
            d.nack(Duration.ZERO);
            assertThat(q.poll(Duration.ZERO).attempt()).isEqualTo(2);
            assertThat(lateness.count()).as("a redelivery's due time is not the header's").isEqualTo(1);
        }
    }

    @Test
    void withoutLatenessOffersCarryNoHeader() throws InterruptedException {
        try (MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(inMemory("plain"), registry)
                .build()) {
            q.offer("a", Duration.ZERO);
            assertThat(((io.clockwork.queue.ForwardingDelivery<String>) q.poll(Duration.ZERO)).delegate().headers())
                    .isEmpty();
            assertThat(registry.get("clockwork.queue.delivery.lateness").timer().count()).isZero();
            assertThat(count("clockwork.queue.offered", "plain")).isEqualTo(1);
        }
    }

    @Test
    void workerAcksRetriesDeathsAndHandlerTimesAreCounted() throws Exception {
        InMemoryDelayedQueue<String> backend = InMemoryDelayedQueue.<String>builder().name("jobs")
                .codec(Codec.string()).build();
        try (MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(backend, registry).build()) {
            AtomicInteger calls = new AtomicInteger();
            Worker<String> worker = Worker.builder(q, job -> {
                calls.incrementAndGet();
                if (job.value().equals("retry-once") && job.attempt() == 1) {
                    throw new IllegalStateException("later");
                }
                if (job.value().equals("fatal")) {
                    throw new IllegalArgumentException("never");
                }
            }).listener(q.workerListener()).concurrency(2).retryPolicy(RetryPolicy.builder()
                    .initialDelay(Duration.ofMillis(1)).jitter(0).noRetry(IllegalArgumentException.class).build())
                    .build();
            q.offerAll(List.of("ok-1", "ok-2", "retry-once", "fatal"), Duration.ZERO);
            Await.until("every job settled", () -> count("clockwork.queue.acked", "jobs") == 3
                    && count("clockwork.queue.dead.lettered", "jobs") == 1);
            worker.shutdown(Duration.ofSeconds(10));
            assertThat(count("clockwork.queue.retried", "jobs")).isEqualTo(1);
            assertThat(count("clockwork.queue.delivered", "jobs")).isEqualTo(5);
            assertThat(registry.get("clockwork.queue.handler").tag("outcome", "success").timer().count())
                    .isEqualTo(3);
            assertThat(registry.get("clockwork.queue.handler").tag("outcome", "failure").timer().count())
                    .isEqualTo(2);
            assertThat(calls).hasValue(5);
        }
    }

    @Test
    void jobsInterruptedAtTheirTimeoutAreCounted() throws Exception {
        InMemoryDelayedQueue<String> backend = InMemoryDelayedQueue.<String>builder().name("slow")
                .codec(Codec.string()).build();
        try (MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(backend, registry).build()) {
            Worker<String> worker = Worker.builder(q, job -> {
                if (job.attempt() == 1) {
                    new java.util.concurrent.CountDownLatch(1).await(); // only the timeout's interrupt ends it
                }
            }).listener(q.workerListener()).timeout(Duration.ofMillis(100)).retryPolicy(RetryPolicy.builder()
                    .initialDelay(Duration.ofMillis(1)).jitter(0).build()).build();
            q.offer("stuck", Duration.ZERO);
            Await.until("the retry acked", () -> count("clockwork.queue.acked", "slow") == 1);
            worker.shutdown(Duration.ofSeconds(10));
            assertThat(registry.get("clockwork.queue.handler.timeouts").tag("queue", "slow").counter().count())
                    .isEqualTo(1);
            assertThat(count("clockwork.queue.retried", "slow")).isEqualTo(1);
        }
    }

    /** Counts the stats reads that reach the backend. */
    static final class CountingStats<V> extends ForwardingDelayedQueue<V> {
        final AtomicInteger reads = new AtomicInteger();
        volatile boolean failing;

        CountingStats(DelayedQueue<V> delegate) {
            super(delegate);
        }

        @Override
        public QueueStats stats() {
            reads.incrementAndGet();
            if (failing) {
                throw new IllegalStateException("backend down");
            }
            return super.stats();
        }
    }

    @Test
    void gaugesShowTheLastSampleAndAScrapeNeverReadsTheBackend() throws InterruptedException {
        sampler = QueueStatsSampler.every(Duration.ofMillis(20));
        CountingStats<String> backend = new CountingStats<>(inMemory("sampled"));
        try (MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(backend, registry).sampler(sampler)
                .build()) {
            q.offer("later", Duration.ofHours(1));
            q.offerAll(List.of("r1", "r2", "r3"), Duration.ZERO);
            q.poll(Duration.ZERO);
            q.poll(Duration.ZERO).deadLetter("bad");
            Await.until("a sample with the offers", () -> gauge("dead") == 1);
            assertThat(gauge("delayed")).isEqualTo(1);
            assertThat(gauge("ready")).isEqualTo(1);
            assertThat(gauge("in_flight")).isEqualTo(1);

            sampler.close(); // no more samples: a scrape must still answer, from the last sample
            int reads = backend.reads.get();
            for (int i = 0; i < 100; i++) {
                registry.getMeters().forEach(Meter::measure);
            }
            assertThat(backend.reads.get()).isEqualTo(reads);
        }
    }

    @Test
    void aFailingBackendTurnsTheGaugesToNaNUntilItAnswers() {
        sampler = QueueStatsSampler.every(Duration.ofMillis(20));
        CountingStats<String> backend = new CountingStats<>(inMemory("flaky"));
        try (MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(backend, registry).sampler(sampler)
                .build()) {
            q.offer("a", Duration.ZERO);
            Await.until("first sample", () -> gauge("ready") == 1);
            backend.failing = true;
            Await.until("unknown while down", () -> Double.isNaN(gauge("ready")));
            backend.failing = false;
            Await.until("back after a good read", () -> gauge("ready") == 1);
        }
    }

    @Test
    void thePausedGaugeFollowsPauseAndResume() {
        sampler = QueueStatsSampler.every(Duration.ofMillis(20));
        try (MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(inMemory("pausing"), registry)
                .sampler(sampler).build()) {
            Await.until("a sample, not paused", () -> paused() == 0);
            q.pause();
            Await.until("a sample while paused", () -> paused() == 1);
            q.resume();
            Await.until("a sample after resume", () -> paused() == 0);
        }
    }

    @Test
    void theRateLimitedCounterCountsPollsARateLimitHeldBackAndKeepsItsCountWhenAReadFails()
            throws InterruptedException {
        sampler = QueueStatsSampler.every(Duration.ofMillis(20));
        CountingStats<String> backend = new CountingStats<>(InMemoryDelayedQueue.<String>builder().name("limited")
                .codec(Codec.string()).ticker(ticker).rateLimit(1, Duration.ofSeconds(1)).build());
        try (MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(backend, registry).sampler(sampler)
                .build()) {
            Await.until("a first sample", () -> paused() == 0);
            assertThat(rateLimited()).isZero();
            q.offerAll(List.of("a", "b"), Duration.ZERO);
            assertThat(q.poll(Duration.ZERO).value()).isEqualTo("a");
            assertThat(q.poll(Duration.ZERO)).as("b waits for the next permit").isNull();
            Await.until("the held-back poll sampled", () -> rateLimited() == 1);

            ticker.advance(Duration.ofSeconds(1));
            assertThat(q.poll(Duration.ZERO).value()).isEqualTo("b");
            assertThat(q.poll(Duration.ZERO)).as("nothing due: no rate-limited wait").isNull();
            awaitSamples(backend, 2);
            assertThat(rateLimited()).isEqualTo(1);

            backend.failing = true;
            Await.until("the gauges turn unknown", () -> Double.isNaN(gauge("ready")));
            assertThat(rateLimited()).as("a counter never goes down or turns unknown").isEqualTo(1);
        }
    }

    private static void awaitSamples(CountingStats<?> backend, int n) {
        int from = backend.reads.get();
        Await.until(n + " more samples", () -> backend.reads.get() >= from + n);
    }

    private double rateLimited() {
        return registry.get("clockwork.queue.rate.limited").tag("queue", "limited").functionCounter().count();
    }

    private double paused() {
        return registry.get("clockwork.queue.paused").gauge().value();
    }

    private double gauge(String state) {
        return registry.get("clockwork.queue.messages").tag("state", state).gauge().value();
    }

    @Test
    void badOptionsAreRejectedByName() {
        InMemoryDelayedQueue<String> q = inMemory("opts");
        assertThatThrownBy(() -> MeteredDelayedQueue.builder(null, registry)).hasMessageContaining("queue");
        assertThatThrownBy(() -> MeteredDelayedQueue.builder(q, null)).hasMessageContaining("registry");
        assertThatThrownBy(() -> MeteredDelayedQueue.builder(q, registry).backend(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backend");
        assertThatThrownBy(() -> MeteredDelayedQueue.builder(q, registry).deliveryLateness(true)
                .deliveryLateness(false)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deliveryLateness");
        assertThatThrownBy(() -> QueueStatsSampler.every(Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("interval");
        q.close();
    }

    @Test
    void tagsCarryNoMessageIds() throws InterruptedException {
        try (MeteredDelayedQueue<String> q = MeteredDelayedQueue.builder(inMemory("tags"), registry).build()) {
            for (int i = 0; i < 20; i++) {
                q.offer("id-" + i, "v", Duration.ZERO);
            }
            q.poll(20, Duration.ZERO).forEach(Delivery::ack);
            assertThat(registry.getMeters()).allSatisfy(m -> assertThat(m.getId().getTags())
                    .allSatisfy(t -> assertThat(t.getKey()).isIn("queue", "backend", "outcome", "state")));
            assertThat(registry.getMeters()).allSatisfy(m -> assertThat(m.getId().getName()).startsWith("clockwork."));
            assertThat(Map.of("acked", count("clockwork.queue.acked", "tags"))).containsEntry("acked", 20.0);
        }
    }
}

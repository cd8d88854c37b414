package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Delivery;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.time.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The sampler keeps counts and derives rates over ticker time. */
class SamplerTest {

    @Test
    void samplesCountsAndDerivesTheEventRatesFromTheQueuesCounters() throws Exception {
        ManualTicker ticker = new ManualTicker();
        try (InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder().name("jobs").maxAttempts(2)
                .ticker(ticker).build()) {
            Sampler sampler = new Sampler(InProcessQueueSource.of(List.of(q)), ticker, 1_000_000L, 10);
            q.offer("a", Duration.ofMinutes(1));
            sampler.sampleAll();
            for (int i = 0; i < 4; i++) {
                q.offer("x" + i, Duration.ZERO);
            }
            List<Delivery<String>> d = q.poll(4, Duration.ZERO);
            assertThat(d).hasSize(4);
            assertThat(d.get(0).ack()).isTrue();
            assertThat(d.get(1).nack(Duration.ofMinutes(5))).isTrue();
            assertThat(d.get(2).deadLetter("bad")).isTrue();
            assertThat(d.get(3).deadLetter("bad")).isTrue();
            ticker.advance(Duration.ofSeconds(2));
            sampler.sampleAll();

            List<Sample> s = sampler.samples("jobs");
            assertThat(s).hasSize(2);
            assertThat(s.get(0).atMillis()).isEqualTo(1_000_000L);
            assertThat(s.get(0).delayed()).isEqualTo(1);
            assertThat(s.get(0).offeredPerSecond()).as("the first sample has no rate").isNaN();
            assertThat(s.get(0).deadLetteredPerSecond()).isNaN();
            assertThat(s.get(1).atMillis()).isEqualTo(1_002_000L);
            assertThat(s.get(1).dead()).isEqualTo(2);
            assertThat(s.get(1).offeredPerSecond()).isEqualTo(2.0);
            assertThat(s.get(1).deliveredPerSecond()).isEqualTo(2.0);
            assertThat(s.get(1).ackedPerSecond()).isEqualTo(0.5);
            assertThat(s.get(1).retriedPerSecond()).isEqualTo(0.5);
            assertThat(s.get(1).deadLetteredPerSecond()).isEqualTo(1.0);
        }
    }

    @Test
    void derivesTheRateOfPollsARateLimitHeldBack() throws Exception {
        ManualTicker ticker = new ManualTicker();
        try (InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder().name("paced")
                .rateLimit(1, Duration.ofHours(1)).ticker(ticker).build()) {
            Sampler sampler = new Sampler(InProcessQueueSource.of(List.of(q)), ticker, 0, 10);
            q.offer("a", Duration.ZERO);
            q.offer("b", Duration.ZERO);
            assertThat(q.poll(Duration.ZERO).value()).isEqualTo("a");
            sampler.sampleAll();
            for (int i = 0; i < 6; i++) {
                assertThat(q.poll(Duration.ZERO)).as("b waits for the next permit").isNull();
            }
            ticker.advance(Duration.ofSeconds(2));
            sampler.sampleAll();

            List<Sample> s = sampler.samples("paced");
            assertThat(s.get(0).rateLimitedPerSecond()).as("the first sample has no rate").isNaN();
            assertThat(s.get(1).rateLimitedPerSecond()).isEqualTo(3.0);
            assertThat(s.get(1).deliveredPerSecond()).isZero();
        }
    }

    @Test
    void dropsTheSamplesOfAQueueNoLongerListed() {
        ManualTicker ticker = new ManualTicker();
        try (InMemoryDelayedQueue<String> jobs = InMemoryDelayedQueue.<String>builder().name("jobs").build();
             InMemoryDelayedQueue<String> mail = InMemoryDelayedQueue.<String>builder().name("mail").build()) {
            List<InMemoryDelayedQueue<String>> listed = new java.util.concurrent.CopyOnWriteArrayList<>(
                    List.of(jobs, mail));
            Sampler sampler = new Sampler(InProcessQueueSource.live(() -> listed, "in-process"), ticker, 0, 10);
            sampler.sampleAll();
            assertThat(sampler.samples("jobs")).hasSize(1);
            listed.remove(jobs);
            sampler.sampleAll();
            assertThat(sampler.samples("jobs")).isEmpty();
            assertThat(sampler.samples("mail")).hasSize(2);
            sampler.forget("mail");
            assertThat(sampler.samples("mail")).isEmpty();
        }
    }

    @Test
    void derivesRatesOverTickerTimeAndKeepsTheLastSamples() {
        ManualTicker ticker = new ManualTicker();
        long[] counter = {100};
        Sampler sampler = new Sampler(sourceOf(new FixedView(counter)), ticker, 0, 10);
        for (int i = 0; i < 12; i++) {
            sampler.sampleAll();
            counter[0] += 50;
            ticker.advance(Duration.ofMillis(500));
        }
        List<Sample> s = sampler.samples("fixed");
        assertThat(s).hasSize(10);
        assertThat(s.get(0).atMillis()).isEqualTo(1_000);
        assertThat(s).allSatisfy(x -> {
            assertThat(x.offeredPerSecond()).isEqualTo(100.0);
            assertThat(x.deliveredPerSecond()).isEqualTo(100.0);
            assertThat(x.ackedPerSecond()).isEqualTo(50.0);
            assertThat(x.retriedPerSecond()).isZero();
            assertThat(x.deadLetteredPerSecond()).isZero();
        });
        assertThat(s.get(9).oldestReadySeconds()).isEqualTo(1.5);
        assertThat(sampler.samples("unknown")).isEmpty();
    }

    @Test
    void aBackendWithoutCountersHasNoRatesAndACounterThatFallsCountsAsNoEvents() {
        ManualTicker ticker = new ManualTicker();
        long[] counter = {-1};
        Sampler sampler = new Sampler(sourceOf(new FixedView(counter)), ticker, 0, 10);
        sampler.sampleAll();
        ticker.advance(Duration.ofSeconds(1));
        sampler.sampleAll();
        assertThat(sampler.samples("fixed")).allSatisfy(x -> assertThat(x.offeredPerSecond()).isNaN());

        counter[0] = 500;
        sampler.sampleAll(); // the first sample with counters: no rate yet
        ticker.advance(Duration.ofSeconds(1));
        counter[0] = 10; // the queue was deleted and created again
        sampler.sampleAll();
        List<Sample> s = sampler.samples("fixed");
        assertThat(s.get(2).offeredPerSecond()).isNaN();
        assertThat(s.get(3).offeredPerSecond()).isZero();
    }

    private static QueueSource sourceOf(QueueView view) {
        return new QueueSource() {
            @Override
            public List<String> names() {
                return List.of(view.name());
            }

            @Override
            public Optional<QueueView> queue(String name) {
                return Optional.of(view);
            }

            @Override
            public String describe() {
                return "test";
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * A view whose counters the test moves: offered and delivered are the counter, acked half of it, the others 0;
     * none while the counter is negative.
     */
    private record FixedView(long[] counter) implements QueueView {
        @Override
        public String name() {
            return "fixed";
        }

        @Override
        public String backend() {
            return "test";
        }

        @Override
        public QueueStats stats() {
            return new QueueStats(0, 1, 0, 0, Optional.empty());
        }

        @Override
        public Optional<Duration> oldestReady() {
            return Optional.of(Duration.ofMillis(1500));
        }

        @Override
        public Optional<QueueCounters> counters() {
            long n = counter[0];
            return n < 0 ? Optional.empty() : Optional.of(new QueueCounters(n, n, n / 2, 0, 0));
        }

        @Override
        public MessagePage page(MessageState state, Optional<String> cursor, int size) {
            return new MessagePage(List.of(), 0, Optional.empty(), true);
        }

        @Override
        public Optional<MessageRow> find(String id) {
            return Optional.empty();
        }

        @Override
        public boolean browsable() {
            return true;
        }

        @Override
        public boolean cancel(String id) {
            return false;
        }

        @Override
        public boolean reschedule(String id, Duration delay) {
            return false;
        }

        @Override
        public boolean requeueDead(String id) {
            return false;
        }

        @Override
        public long requeueAllDead() {
            return 0;
        }

        @Override
        public long purgeDead() {
            return 0;
        }

        @Override
        public boolean isPaused() {
            return false;
        }

        @Override
        public void pause() {
            throw new UnsupportedOperationException("the sampler never pauses a queue");
        }

        @Override
        public void resume() {
            throw new UnsupportedOperationException("the sampler never resumes a queue");
        }

        @Override
        public List<ScheduleInfo> schedules() {
            return List.of();
        }

        @Override
        public boolean pauseSchedule(String name) {
            return false;
        }

        @Override
        public boolean resumeSchedule(String name) {
            return false;
        }
    }
}

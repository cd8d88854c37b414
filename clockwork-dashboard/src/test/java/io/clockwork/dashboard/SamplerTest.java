package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Delivery;
import io.clockwork.queue.InMemoryDelayedQueue;
import io.clockwork.queue.QueueStats;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.time.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The sampler keeps counts and derives rates over ticker time. */
class SamplerTest {

    @Test
    void samplesCountsAndDerivesTheDeadLetterRate() throws Exception {
        ManualTicker ticker = new ManualTicker();
        try (InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder().name("jobs").maxAttempts(1)
                .ticker(ticker).build()) {
            Sampler sampler = new Sampler(InProcessQueueSource.of(List.of(q)), ticker, 1_000_000L, 10);
            q.offer("a", Duration.ZERO);
            q.offer("b", Duration.ofMinutes(1));
            sampler.sampleAll();
            for (int i = 0; i < 4; i++) {
                q.offer("x" + i, Duration.ZERO);
                Delivery<String> d = q.poll(Duration.ZERO);
                d.nack(Duration.ZERO);
            }
            ticker.advance(Duration.ofSeconds(2));
            sampler.sampleAll();

            List<Sample> s = sampler.samples("jobs");
            assertThat(s).hasSize(2);
            assertThat(s.get(0).atMillis()).isEqualTo(1_000_000L);
            assertThat(s.get(0).deadPerSecond()).isNaN();
            assertThat(s.get(0).delayed()).isEqualTo(1);
            assertThat(s.get(1).atMillis()).isEqualTo(1_002_000L);
            assertThat(s.get(1).dead()).isEqualTo(4);
            assertThat(s.get(1).deadPerSecond()).isEqualTo(2.0);
            assertThat(s.get(1).scheduledPerSecond()).as("in-process queues keep no counter").isNaN();
        }
    }

    @Test
    void derivesTheSchedulingRateFromTheCounterAndKeepsTheLastSamples() {
        ManualTicker ticker = new ManualTicker();
        long[] counter = {100};
        QueueView view = new FixedView(counter);
        QueueSource source = new QueueSource() {
            @Override
            public List<String> names() {
                return List.of("fixed");
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
        Sampler sampler = new Sampler(source, ticker, 0, 10);
        for (int i = 0; i < 12; i++) {
            sampler.sampleAll();
            counter[0] += 50;
            ticker.advance(Duration.ofMillis(500));
        }
        List<Sample> s = sampler.samples("fixed");
        assertThat(s).hasSize(10);
        assertThat(s.get(0).atMillis()).isEqualTo(1_000);
        assertThat(s).allSatisfy(x -> assertThat(x.scheduledPerSecond()).isEqualTo(100.0));
        assertThat(s.get(9).oldestReadySeconds()).isEqualTo(1.5);
        assertThat(sampler.samples("unknown")).isEmpty();
    }

    /** A view whose counter the test moves. */
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
        public OptionalLong scheduled() {
            return OptionalLong.of(counter[0]);
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

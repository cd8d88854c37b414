package io.clockwork.worker;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.Codec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link WorkerListener#compose}: every listener hears every event, in order, whatever another one throws. */
class WorkerListenerComposeTest {

    /** Writes "name:event" into a shared log; throws after writing if told to. */
    private static final class Recording implements WorkerListener<String> {
        private final String name;
        private final List<String> log;
        private final boolean fails;

        Recording(String name, List<String> log, boolean fails) {
            this.name = name;
            this.log = log;
            this.fails = fails;
        }

        private void hear(String event) {
            log.add(name + ":" + event);
            if (fails) {
                throw new IllegalStateException(name + " fails on " + event);
            }
        }

        @Override
        public void delivered(Job<String> job) {
            hear("delivered");
        }

        @Override
        public void handled(Job<String> job, long nanos, Throwable failure) {
            hear("handled " + nanos + " " + (failure == null ? "ok" : failure.getMessage()));
        }

        @Override
        public void acked(Job<String> job) {
            hear("acked");
        }

        @Override
        public void retried(Job<String> job, Duration delay, String error) {
            hear("retried " + delay + " " + error);
        }

        @Override
        public void deadLettered(Job<String> job, String reason) {
            hear("deadLettered " + reason);
        }

        @Override
        public void released(Job<String> job) {
            hear("released");
        }

        @Override
        public void leaseLost(Job<String> job) {
            hear("leaseLost");
        }

        @Override
        public void backendError(String operation, RuntimeException error) {
            hear("backendError " + operation + " " + error.getMessage());
        }
    }

    @Test
    void everyEventReachesEveryListenerInOrderWithItsArguments() {
        List<String> log = new CopyOnWriteArrayList<>();
        WorkerListener<String> both = WorkerListener.compose(new Recording("a", log, false),
                new Recording("b", log, false));

        both.delivered(null);
        both.handled(null, 42, new IllegalStateException("boom"));
        both.acked(null);
        both.retried(null, Duration.ofSeconds(3), "E: x");
        both.deadLettered(null, "E: y");
        both.released(null);
        both.leaseLost(null);
        both.backendError("poll", new IllegalStateException("down"));

        assertThat(log).containsExactly("a:delivered", "b:delivered", "a:handled 42 boom", "b:handled 42 boom",
                "a:acked", "b:acked", "a:retried PT3S E: x", "b:retried PT3S E: x", "a:deadLettered E: y",
                "b:deadLettered E: y", "a:released", "b:released", "a:leaseLost", "b:leaseLost",
                "a:backendError poll down", "b:backendError poll down");
    }

    @Test
    void aThrowingListenerDoesNotStopTheOthersAndItsFailureIsThrownOnceAllHaveHeard() {
        List<String> log = new CopyOnWriteArrayList<>();
        WorkerListener<String> all = WorkerListener.compose(new Recording("a", log, true),
                new Recording("b", log, false), new Recording("c", log, true));

        assertThatThrownBy(() -> all.acked(null)).isInstanceOf(IllegalStateException.class)
                .hasMessage("a fails on acked")
                .satisfies(e -> assertThat(e.getSuppressed()).extracting(Throwable::getMessage)
                        .containsExactly("c fails on acked"));
        assertThat(log).containsExactly("a:acked", "b:acked", "c:acked");
    }

    @Test
    void oneListenerIsReturnedAsItIsAndBadArgumentsAreRefusedByName() {
        WorkerListener<String> only = new WorkerListener<>() { };
        assertThat(WorkerListener.compose(only)).isSameAs(only);
        assertThatThrownBy(() -> WorkerListener.<String>compose()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("listeners").hasMessageContaining("at least one");
        assertThatThrownBy(() -> WorkerListener.compose(only, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("listeners[1]");
        assertThatThrownBy(() -> WorkerListener.compose((WorkerListener<String>[]) null))
                .isInstanceOf(NullPointerException.class).hasMessage("listeners");
    }

    @Test
    void aWorkerWithComposedListenersTellsBothWhileOneThrowsOnEveryEvent() throws Exception {
        AtomicInteger acked = new AtomicInteger();
        AtomicInteger handled = new AtomicInteger();
        WorkerListener<String> counting = new WorkerListener<>() {
            @Override
            public void handled(Job<String> job, long nanos, Throwable failure) {
                handled.incrementAndGet();
            }

            @Override
            public void acked(Job<String> job) {
                acked.incrementAndGet();
            }
        };
        List<String> log = new CopyOnWriteArrayList<>();
        try (InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder().name("composed")
                .codec(Codec.string()).build();
             Worker<String> w = Worker.builder(q, job -> { })
                     .listener(WorkerListener.compose(new Recording("throwing", log, true), counting)).build()) {
            q.offer("m-1", "one", Duration.ZERO);
            q.offer("m-2", "two", Duration.ZERO);
            Await.until("both messages acked and heard by the second listener", () -> acked.get() == 2);
            assertThat(handled.get()).isEqualTo(2);
            assertThat(log).contains("throwing:acked").filteredOn(s -> s.equals("throwing:acked")).hasSize(2);
            Await.until("the queue is empty", () -> q.stats().inFlight() == 0 && q.stats().ready() == 0);
            assertThat(w.held()).isZero();
        }
    }
}

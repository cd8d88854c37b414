package io.clockwork.inprocess;

import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-process queue forgets a group once nothing refers to it, so many short-lived group keys cost no memory. */
class FlowGateMemoryTest {

    private static int groups(InMemoryDelayedQueue<?> q) {
        q.guard().lock();
        try {
            return q.guard().store().groupCount();
        } finally {
            q.guard().unlock();
        }
    }

    @Test
    void aGroupIsForgottenWhenItsLastMessageIsAckedCancelledOrDead() throws Exception {
        try (InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder().maxInFlightPerGroup(1)
                .maxAttempts(1).ticker(new ManualTicker()).build()) {
            for (int i = 0; i < 1000; i++) {
                q.offer(Message.of("v").group("tenant-" + i));
            }
            q.offer(Message.of("cancelled").id("c").group("c").delay(Duration.ofHours(1)));
            assertThat(groups(q)).isEqualTo(1001);
            List<Delivery<String>> taken = q.poll(1000, Duration.ZERO);
            for (int i = 0; i < taken.size(); i++) {
                if (i % 2 == 0) {
                    taken.get(i).ack();
                } else {
                    taken.get(i).nack(Duration.ZERO); // its one attempt: dead
                }
            }
            assertThat(q.cancel("c")).isTrue();
            assertThat(groups(q)).isZero();
            assertThat(q.requeueDead(taken.get(1).id())).isTrue();
            assertThat(groups(q)).as("a requeued dead letter names its group again").isEqualTo(1);
        }
    }

    @Test
    void aGroupWithARateLimitIsForgottenOnceItsWindowHoldsNoDelivery() throws Exception {
        ManualTicker ticker = new ManualTicker();
        try (InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder()
                .groupRateLimit(1, Duration.ofSeconds(1)).ticker(ticker).build()) {
            for (int i = 0; i < 100; i++) {
                q.offer(Message.of("v").group("tenant-" + i));
            }
            for (Delivery<String> d : q.poll(100, Duration.ZERO)) {
                d.ack();
            }
            assertThat(groups(q)).as("their deliveries still count against the limit").isEqualTo(100);
            ticker.advance(Duration.ofSeconds(1));
            assertThat(q.poll(Duration.ZERO)).isNull();
            assertThat(groups(q)).isZero();
        }
    }
}

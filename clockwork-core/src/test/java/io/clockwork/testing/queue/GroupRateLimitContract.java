package io.clockwork.testing.queue;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a {@link DelayedQueue} keeps its per-group rate limits (each group key's sliding log of
 * {@link io.clockwork.queue.RateLimit}, alone and together with the queue's), written once for every backend that
 * supports message groups; {@link RateLimitContract} holds the queue-wide limit's tests. A backend's test extends
 * this class as it extends {@link DelayedQueueContract}.
 *
 * <p>The tests never sleep: where time must pass they call {@link #passTime}; a consumer that must block polls from a
 * background thread.
 */
public abstract class GroupRateLimitContract extends QueueContractBase {

    /** How long a test waits, in real time, for a background poll before it fails. */
    private static final long REAL_TIME_LIMIT_SECONDS = 20;
    private static final Duration DEFAULT_INTERVAL = Duration.ofMillis(100);

    /**
     * @return the limits' interval in these tests: 100 ms; a real-time backend may return more, so that the half
     *         interval a test step may take covers its own latency
     */
    protected Duration interval() {
        return DEFAULT_INTERVAL;
    }

    private DelayedQueue<String> queue(Consumer<DelayedQueueBuilder<String, ?>> options) {
        return newQueue(Codec.string(), options);
    }

    private static List<String> values(List<Delivery<String>> deliveries) {
        return deliveries.stream().map(Delivery::value).toList();
    }

    /** The backend's count of polls held back by a rate limit: a backend with rate limits keeps counters. */
    private static long rateLimited(DelayedQueue<?> q) {
        return q.counters().orElseThrow().rateLimited();
    }

    @Test
    void eachGroupHasItsOwnRateWhileOtherGroupsAndTheUngroupedGoOn() throws Exception {
        DelayedQueue<String> q = queue(b -> b.groupRateLimit(2, interval()));
        for (int i = 0; i < 4; i++) {
            q.offer(Message.of("a" + i).group("a"));
            q.offer(Message.of("b" + i).group("b"));
            q.offer(Message.of("u" + i));
        }
        List<String> first = values(q.poll(20, Duration.ZERO));
        assertThat(first).containsExactlyInAnyOrder("a0", "a1", "b0", "b1", "u0", "u1", "u2", "u3");
        assertThat(q.poll(Duration.ZERO)).isNull();
        passTime(interval());
        assertThat(values(q.poll(20, Duration.ZERO))).containsExactlyInAnyOrder("a2", "a3", "b2", "b3");
    }

    @Test
    void aPollWaitingForAGroupsPermitWakesWhenItFrees() throws Exception {
        DelayedQueue<String> q = queue(b -> b.groupRateLimit(1, interval()));
        q.offer(Message.of("a0").group("a"));
        q.offer(Message.of("a1").group("a"));
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("a0");
        Future<Delivery<String>> poll = background.submit(() -> q.poll(Duration.ofSeconds(REAL_TIME_LIMIT_SECONDS)));
        Await.until("the poll is held back by the limit", () -> rateLimited(q) > 0);
        passTime(interval().dividedBy(2));
        assertThat(poll.isDone()).isFalse();
        passTime(interval().dividedBy(2));
        assertThat(poll.get(REAL_TIME_LIMIT_SECONDS, TimeUnit.SECONDS).value()).isEqualTo("a1");
    }

    @Test
    void theQueueAndGroupLimitsHoldTogether() throws Exception {
        DelayedQueue<String> q = queue(b -> b.rateLimit(3, interval()).groupRateLimit(1, interval()));
        for (int i = 0; i < 3; i++) {
            for (String g : List.of("a", "b", "c", "d")) {
                q.offer(Message.of(g + i).group(g));
            }
        }
        List<String> delivered = new ArrayList<>();
        for (int window = 0; window < 4; window++) {
            List<String> got = values(q.poll(20, Duration.ZERO));
            assertThat(got.size()).as("window %d: %s", window, got).isEqualTo(3);
            assertThat(got.stream().map(v -> v.charAt(0)).distinct().count()).as("one per group").isEqualTo(3);
            delivered.addAll(got);
            passTime(interval());
        }
        assertThat(delivered).hasSize(12).doesNotHaveDuplicates();
    }

    @Test
    void onlyAPollThatARateLimitKeepsFromDueMessagesCountsAsAWait() throws Exception {
        DelayedQueue<String> q = queue(b -> b.groupRateLimit(1, interval()).maxInFlightPerGroup(1));
        q.offer(Message.of("a0").group("a"));
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("a0");
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(rateLimited(q)).as("group a waits for a permit but has nothing ready").isZero();
        passTime(interval());
        q.offer(Message.of("a1").group("a"));
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(rateLimited(q)).as("a1 waits for a0's slot, not for a permit").isZero();
        q.offer(Message.of("b0").group("b"));
        q.offer(Message.of("b1").group("b"));
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("b0");
        assertThat(q.poll(Duration.ZERO)).as("b1 waits for a permit (and for b0's slot)").isNull();
        assertThat(rateLimited(q)).isEqualTo(1);
    }
}

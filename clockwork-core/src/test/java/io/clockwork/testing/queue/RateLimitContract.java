package io.clockwork.testing.queue;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a {@link DelayedQueue} keeps its queue-wide rate limit (at most N deliveries in any interval, by the sliding log
 * of {@link io.clockwork.queue.RateLimit}), written once for every backend that supports it. A backend's test extends
 * this class as it extends {@link DelayedQueueContract}; {@link GroupRateLimitContract} holds the per-group limits.
 *
 * <p>The tests never sleep: where time must pass they call {@link #passTime}, in steps no shorter than the limits'
 * intervals allow a real-time backend to keep; a consumer that must block polls from a background thread. A
 * real-time backend may lengthen the interval ({@link #interval()}) so that a test's steps keep their order on a busy
 * machine.
 */
public abstract class RateLimitContract extends QueueContractBase {

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

    private static void offer(DelayedQueue<String> q, int n, String prefix) {
        for (int i = 0; i < n; i++) {
            q.offer(prefix + i, Duration.ZERO);
        }
    }

    /** The backend's count of polls held back by a rate limit: a backend with rate limits keeps counters. */
    private static long rateLimited(DelayedQueue<?> q) {
        return q.counters().orElseThrow().rateLimited();
    }

    @Test
    void theQueuesRateLimitLetsAtMostPermitsGoPerIntervalAndDropsNothing() throws Exception {
        DelayedQueue<String> q = queue(b -> b.rateLimit(3, interval()));
        offer(q, 8, "m");
        assertThat(values(q.poll(10, Duration.ZERO))).containsExactly("m0", "m1", "m2");
        assertThat(q.poll(Duration.ZERO)).as("held back, not dropped").isNull();
        assertThat(q.stats().ready()).isEqualTo(5);
        passTime(interval());
        assertThat(values(q.poll(10, Duration.ZERO))).containsExactly("m3", "m4", "m5");
        passTime(interval());
        assertThat(values(q.poll(10, Duration.ZERO))).containsExactly("m6", "m7");
        assertThat(q.stats().ready()).isZero();
    }

    @Test
    void thePermitsFreeAsTheWindowSlidesPastEachDelivery() throws Exception {
        DelayedQueue<String> q = queue(b -> b.rateLimit(3, interval()));
        offer(q, 10, "m");
        assertThat(q.poll(2, Duration.ZERO)).hasSize(2);
        passTime(interval().dividedBy(2));
        assertThat(q.poll(10, Duration.ZERO)).as("the third permit").hasSize(1);
        passTime(interval().dividedBy(2));
        assertThat(q.poll(10, Duration.ZERO)).as("the first two deliveries left the window").hasSize(2);
        assertThat(q.poll(10, Duration.ZERO)).isEmpty();
        passTime(interval().dividedBy(2));
        assertThat(q.poll(10, Duration.ZERO)).as("the third left it").hasSize(1);
    }

    @Test
    void aPollThatWaitsSleepsUntilTheNextPermitAndCountsOneRateLimitedWait() throws Exception {
        DelayedQueue<String> q = queue(b -> b.rateLimit(1, interval()));
        offer(q, 2, "m");
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("m0");
        long before = rateLimited(q);
        Future<Delivery<String>> poll = background.submit(() -> q.poll(Duration.ofSeconds(REAL_TIME_LIMIT_SECONDS)));
        Await.until("the poll is held back by the limit", () -> rateLimited(q) > before);
        passTime(interval().dividedBy(2));
        assertThat(poll.isDone()).as("no permit yet").isFalse();
        passTime(interval().dividedBy(2));
        assertThat(poll.get(REAL_TIME_LIMIT_SECONDS, TimeUnit.SECONDS).value()).isEqualTo("m1");
        assertThat(rateLimited(q) - before).as("one wait, however long").isEqualTo(1);
    }

    @Test
    void aPollWithoutWaitHeldBackByTheLimitCountsARateLimitedWait() throws Exception {
        DelayedQueue<String> q = queue(b -> b.rateLimit(1, interval()));
        assertThat(q.poll(Duration.ZERO)).isNull();
        offer(q, 2, "m");
        assertThat(q.poll(Duration.ZERO)).isNotNull();
        assertThat(rateLimited(q)).as("an empty queue or a poll that got its message is no wait").isZero();
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(q.poll(5, Duration.ZERO)).isEmpty();
        assertThat(rateLimited(q)).isEqualTo(2);
    }

    @Test
    void redeliveriesCountAgainstTheLimit() throws Exception {
        DelayedQueue<String> q = queue(b -> b.rateLimit(2, interval()));
        offer(q, 3, "m");
        Delivery<String> d = q.poll(Duration.ZERO);
        assertThat(d.nack(Duration.ZERO)).isTrue();
        assertThat(q.poll(5, Duration.ZERO)).as("the redelivery took the second permit").hasSize(1);
        assertThat(q.poll(5, Duration.ZERO)).isEmpty();
    }
}

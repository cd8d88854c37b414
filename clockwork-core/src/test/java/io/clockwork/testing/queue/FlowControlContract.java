package io.clockwork.testing.queue;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How every {@link DelayedQueue} backend controls the flow of deliveries, written once and run against each: pause
 * and resume, and promote. A backend's test extends this class as it extends {@link DelayedQueueContract}.
 *
 * <p>The tests never sleep: where time must pass they call {@link #passTime}; a consumer that must block polls from
 * a background thread, and the test waits for it with a real-time limit.
 */
public abstract class FlowControlContract extends QueueContractBase {

    /** A delay that never passes during a test. */
    private static final Duration FAR = Duration.ofHours(1);
    /** How long a test waits, in real time, for a background poll before it fails. */
    private static final long REAL_TIME_LIMIT_SECONDS = 20;

    private DelayedQueue<String> queue() {
        return newQueue(Codec.string(), options -> { });
    }

    // ---- pause and resume ----

    @Test
    void aPausedQueueDeliversNothingUntilResumedThenEverythingInOrder() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("a", Duration.ZERO);
        q.offer("b", Duration.ZERO);
        assertThat(q.isPaused()).isFalse();
        q.pause();
        assertThat(q.isPaused()).isTrue();
        q.offer("c", Duration.ZERO);
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(q.poll(10, Duration.ZERO)).isEmpty();
        assertThat(q.stats().ready()).as("paused messages stay ready").isEqualTo(3);
        q.resume();
        assertThat(q.isPaused()).isFalse();
        assertThat(q.poll(10, Duration.ZERO)).extracting(Delivery::value).containsExactly("a", "b", "c");
    }

    @Test
    void aPauseLetsOffersAcksNacksCancelsAndReschedulesGoOn() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("acked", Duration.ZERO);
        q.offer("nacked", Duration.ZERO);
        List<Delivery<String>> taken = q.poll(2, Duration.ZERO);
        assertThat(taken).hasSize(2);
        q.pause();
        assertThat(taken.get(0).ack()).isTrue();
        assertThat(taken.get(1).nack(Duration.ZERO)).isTrue();
        assertThat(q.offer("kept", "x", FAR)).isTrue();
        assertThat(q.reschedule("kept", Duration.ZERO)).isTrue();
        assertThat(q.offer("gone", "y", FAR)).isTrue();
        assertThat(q.cancel("gone")).isTrue();
        assertThat(q.poll(Duration.ZERO)).isNull();
        q.resume();
        List<Delivery<String>> after = q.poll(10, Duration.ZERO);
        assertThat(after).extracting(Delivery::value).containsExactlyInAnyOrder("nacked", "x");
        assertThat(after).filteredOn(d -> d.value().equals("nacked")).extracting(Delivery::attempt)
                .containsExactly(2);
    }

    @Test
    void aPollWaitingOnAPausedQueueWakesOnResume() throws Exception {
        DelayedQueue<String> q = queue();
        q.pause();
        q.offer("waiting", Duration.ZERO);
        Future<Delivery<String>> poll = background.submit(() -> q.poll(Duration.ofSeconds(REAL_TIME_LIMIT_SECONDS)));
        passTime(Duration.ofMillis(100));
        assertThat(poll.isDone()).as("a paused queue delivers nothing, however long the poll waits").isFalse();
        q.resume();
        Delivery<String> d = poll.get(REAL_TIME_LIMIT_SECONDS, TimeUnit.SECONDS);
        assertThat(d).isNotNull();
        assertThat(d.value()).isEqualTo("waiting");
    }

    @Test
    void aPollOnAPausedQueueWaitsItsWaitAndReturnsNothing() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer("held", Duration.ZERO);
        q.pause();
        Future<Delivery<String>> poll = background.submit(() -> q.poll(Duration.ofMillis(200)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(REAL_TIME_LIMIT_SECONDS);
        while (!poll.isDone() && System.nanoTime() < deadline) {
            passTime(Duration.ofMillis(100)); // the poll's wait counts on the backend's clock
        }
        assertThat(poll.get(1, TimeUnit.SECONDS)).isNull();
        assertThat(q.stats().ready()).isEqualTo(1);
    }

    @Test
    void pauseAndResumeAreIdempotent() throws Exception {
        DelayedQueue<String> q = queue();
        q.pause();
        q.pause();
        assertThat(q.isPaused()).isTrue();
        q.resume();
        q.resume();
        assertThat(q.isPaused()).isFalse();
        q.offer("x", Duration.ZERO);
        assertThat(q.poll(Duration.ZERO)).isNotNull();
    }

    @Test
    void aClosedQueueRefusesPauseResumeAndIsPaused() {
        DelayedQueue<String> q = queue();
        q.close();
        assertThatThrownBy(q::pause).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(q::resume).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(q::isPaused).isInstanceOf(IllegalStateException.class);
    }

    // ---- promote ----

    @Test
    void promoteMakesADelayedMessageDueNowKeepingItsIdHeadersAndAttempts() throws Exception {
        DelayedQueue<String> q = queue();
        Offered o = q.offer(Message.of("order").id("order-1").header("tenant", "acme"));
        Delivery<String> first = q.poll(Duration.ZERO);
        assertThat(first.nack(FAR)).isTrue();
        q.offer("later", FAR);
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(q.promote(o.id())).isTrue();
        Delivery<String> d = q.poll(Duration.ZERO);
        assertThat(d).isNotNull();
        assertThat(d.id()).isEqualTo("order-1");
        assertThat(d.value()).isEqualTo("order");
        assertThat(d.headers()).isEqualTo(Map.of("tenant", "acme"));
        assertThat(d.attempt()).isEqualTo(2);
        assertThat(q.poll(Duration.ZERO)).as("only the promoted message is due").isNull();
    }

    @Test
    void promoteRefusesUnknownInFlightAndDeadMessages() throws Exception {
        DelayedQueue<String> q = newQueue(Codec.string(), b -> b.maxAttempts(1));
        assertThat(q.promote("unknown")).isFalse();
        q.offer("held", "v", Duration.ZERO);
        Delivery<String> d = q.poll(Duration.ZERO);
        assertThat(q.promote("held")).as("in flight").isFalse();
        d.nack(Duration.ZERO);
        assertThat(q.promote("held")).as("dead after its one attempt").isFalse();
        assertThatThrownBy(() -> q.promote("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.promote(null)).isInstanceOf(NullPointerException.class);
    }
}

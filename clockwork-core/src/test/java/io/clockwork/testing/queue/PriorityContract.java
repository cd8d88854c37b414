package io.clockwork.testing.queue;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a {@link DelayedQueue} orders due messages by priority, written once for every backend that supports
 * priorities: the highest priority first, then the earliest due time, then offer order, through every way of taking,
 * and a message keeps its priority through retries, timeouts, reschedules and promotes. A backend's test
 * extends this class as it extends {@link DelayedQueueContract}.
 *
 * <p>The tests never sleep: where time must pass they call {@link #passTime}; a consumer that must block polls from a
 * background thread, and the test waits for it with a real-time limit.
 */
public abstract class PriorityContract extends QueueContractBase {

    /** A delay that never passes during a test. */
    private static final Duration FAR = Duration.ofHours(1);
    private DelayedQueue<String> queue() {
        return newQueue(Codec.string(), options -> { });
    }

    private DelayedQueue<String> queue(Consumer<DelayedQueueBuilder<String, ?>> options) {
        return newQueue(Codec.string(), options);
    }

    // ---- priorities ----

    @Test
    void aHigherPriorityIsDeliveredFirstAmongDueMessages() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer(Message.of("normal"));
        q.offer(Message.of("low").priority(-5));
        q.offer(Message.of("high").priority(7));
        q.offer(Message.of("highest").priority(Message.MAX_PRIORITY));
        q.offer(Message.of("high, later").priority(7));
        q.offer(Message.of("lowest").priority(Message.MIN_PRIORITY));
        assertThat(drainValues(q)).containsExactly("highest", "high", "high, later", "normal", "low", "lowest");
    }

    @Test
    void withinOnePriorityTheEarlierDueTimeGoesFirst() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer(Message.of("due second").priority(3).delay(Duration.ofMillis(40)));
        q.offer(Message.of("due first").priority(3).delay(Duration.ofMillis(20)));
        q.offer(Message.of("other priority").priority(2));
        passTime(Duration.ofMillis(60));
        assertThat(drainValues(q)).containsExactly("due first", "due second", "other priority");
    }

    @Test
    void aHighPriorityMessageThatIsNotDueIsNotDeliveredEarly() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer(Message.of("urgent, later").priority(Message.MAX_PRIORITY).delay(FAR));
        q.offer(Message.of("plain, now"));
        assertThat(drainValues(q)).containsExactly("plain, now");
        assertThat(q.stats().delayed()).isEqualTo(1);
    }

    @Test
    void aPollOfOneTheBatchPollAndAckAndPollHonourPriority() throws Exception {
        DelayedQueue<String> q = queue();
        for (int i = 0; i < 3; i++) {
            q.offer(Message.of("p0-" + i));
            q.offer(Message.of("p1-" + i).priority(1));
        }
        Delivery<String> first = q.poll(Duration.ZERO);
        assertThat(first.value()).isEqualTo("p1-0");
        AckAndPoll<String> next = q.ackAndPoll(first);
        assertThat(next.acked()).isTrue();
        assertThat(next.next().value()).isEqualTo("p1-1");
        assertThat(valuesOf(q.poll(3, Duration.ZERO))).containsExactly("p1-2", "p0-0", "p0-1");
    }

    @Test
    void aRetriedTimedOutRescheduledOrPromotedMessageKeepsItsPriority() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(Duration.ofMillis(50)));
        q.offer(Message.of("urgent").id("u").priority(9));
        q.offer(Message.of("plain-1"));
        q.offer(Message.of("plain-2"));
        Delivery<String> d = q.poll(Duration.ZERO);
        assertThat(d.value()).isEqualTo("urgent");
        assertThat(d.headers()).containsEntry(Message.PRIORITY_HEADER, "9");
        assertThat(d.nack(Duration.ZERO)).isTrue();
        d = q.poll(Duration.ZERO);
        assertThat(d.value()).as("after a nack").isEqualTo("urgent");
        passTime(Duration.ofMillis(60));
        d = q.poll(Duration.ZERO);
        assertThat(d.value()).as("after its visibility timeout").isEqualTo("urgent");
        assertThat(d.attempt()).isEqualTo(3);
        assertThat(d.nack(FAR)).isTrue();
        assertThat(q.promote("u")).isTrue();
        d = q.poll(Duration.ZERO);
        assertThat(d.value()).as("after a promote").isEqualTo("urgent");
        assertThat(d.nack(FAR)).isTrue();
        assertThat(q.reschedule("u", Duration.ZERO)).isTrue();
        assertThat(q.poll(Duration.ZERO).value()).as("after a reschedule").isEqualTo("urgent");
    }

    @Test
    void aReplacingOfferTakesTheNewPriority() throws Exception {
        DelayedQueue<String> q = queue();
        q.offer(Message.of("first").id("x").priority(5));
        q.offer(Message.of("other").priority(1));
        q.offer(Message.of("replaced").id("x").priority(-1).onConflict(Message.Conflict.REPLACE));
        assertThat(drainValues(q)).containsExactly("other", "replaced");
    }
}

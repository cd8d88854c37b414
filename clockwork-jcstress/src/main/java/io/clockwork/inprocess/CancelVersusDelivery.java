package io.clockwork.inprocess;

import io.clockwork.queue.Delivery;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.time.Duration;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A cancel racing a consumer that polls and acks the same ready message, in {@link InMemoryDelayedQueue}. When the
 * consumer holds the queue's lock the cancel does not wait for it: it ends the message with a CAS on its claim word
 * and leaves the unlinking to the next lock holder, so this is the race between that CAS and the poll's take and
 * the ack's own CAS. Exactly one side may remove the message: the cancel before the delivery, the cancel of the
 * delivered message (whose ack then fails), or the ack.
 *
 * <p>Result: whether the cancel returned true; what the consumer got (0 nothing, 1 a delivery whose ack failed, 2 a
 * delivery it acked).
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "cancelled before the poll took it")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "delivered, then cancelled: the ack fails")
@Outcome(id = "0, 2", expect = ACCEPTABLE, desc = "delivered and acked before the cancel")
@Outcome(id = "1, 2", expect = FORBIDDEN, desc = "both the cancel and the ack removed it")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "the ack failed though nobody cancelled")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "neither cancelled nor delivered: lost")
@State
public class CancelVersusDelivery {

    private final InMemoryDelayedQueue<String> queue = Queues.standingStill();

    public CancelVersusDelivery() {
        queue.offer("m", "value", Duration.ZERO);
    }

    @Actor
    public void cancel(II_Result r) {
        r.r1 = queue.cancel("m") ? 1 : 0;
    }

    @Actor
    public void consume(II_Result r) {
        Delivery<String> d = Queues.pollNow(queue);
        r.r2 = d == null ? 0 : d.ack() ? 2 : 1;
    }
}

package io.clockwork.inprocess;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.time.Duration;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * An offer of a caller's id, then a poll, racing a cancel of the same id, in {@link InMemoryDelayedQueue}: each call
 * may run without the queue's lock or under it (whoever gets it first), so the offer may be registered but not yet
 * filed when the cancel finds it, or filed by the poll before the cancel's CAS. The message must end up cancelled,
 * delivered or waiting, exactly as the calls' answers say.
 *
 * <p>Result: whether the cancel returned true; whether the poll got the message; whether it is still ready at the
 * end (the arbiter polls again).
 */
@JCStressTest
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the cancel came before the offer, then the poll took it")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the cancel removed it before the poll")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "polled, then cancelled in flight")
@Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "not cancelled, yet the poll right after the offer missed it")
@Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "cancelled, yet still delivered later")
@Outcome(id = "1, 1, 1", expect = FORBIDDEN, desc = "cancelled, yet delivered twice")
@Outcome(id = "0, 1, 1", expect = FORBIDDEN, desc = "delivered twice")
@Outcome(id = "0, 0, 0", expect = FORBIDDEN, desc = "not cancelled, never delivered: lost")
@State
public class OfferVersusCancel {

    private final InMemoryDelayedQueue<String> queue = Queues.standingStill();

    @Actor
    public void offerThenPoll(III_Result r) {
        if (!queue.offer("m", "value", Duration.ZERO)) {
            throw new AssertionError("the id was free");
        }
        r.r2 = Queues.pollNow(queue) != null ? 1 : 0;
    }

    @Actor
    public void cancel(III_Result r) {
        r.r1 = queue.cancel("m") ? 1 : 0;
    }

    @Arbiter
    public void after(III_Result r) {
        r.r3 = Queues.pollNow(queue) != null ? 1 : 0;
    }
}

package io.clockwork.inprocess;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.time.Duration;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * A batch offer racing a reader of the queue's counts, in {@link InMemoryDelayedQueue}: when the reader holds the
 * lock the batch is handed over without it, in one step, so the reader (or anyone after it) sees all of the batch
 * or none of it.
 *
 * <p>Result: how many ready messages the reader saw.
 */
@JCStressTest
@Outcome(id = "0", expect = ACCEPTABLE, desc = "the reader came first")
@Outcome(id = "3", expect = ACCEPTABLE, desc = "the batch came first, whole")
@Outcome(id = {"1", "2"}, expect = FORBIDDEN, desc = "part of the batch")
@State
public class BatchOfferIsWhole {

    private final InMemoryDelayedQueue<String> queue = Queues.standingStill();

    @Actor
    public void offer() {
        queue.offerAll(List.of("a", "b", "c"), Duration.ZERO);
    }

    @Actor
    public void read(I_Result r) {
        r.r1 = (int) queue.stats().ready();
    }
}

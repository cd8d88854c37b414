package io.clockwork.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A producer's lane publishes a freshly allocated entry, whole, to the owner with a release store and no locked
 * instruction ({@link ProducerLanes}): a drain that sees the entry sees the stores that initialised it, an entry is
 * taken exactly once, and one the owner's drain missed (it ran first) is taken by its next drain.
 *
 * <p>Result: whether the producer got a lane, what the owner's drain took, what the drains took in all. A drain
 * counts an entry whose deadline is not the one the producer wrote as -100, so a torn entry shows up as a forbidden
 * count.
 */
@JCStressTest
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "the owner's drain took the entry, whole")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE_INTERESTING,
        desc = "the owner's drain ran before the publication; its next drain took the entry")
@Outcome(expect = FORBIDDEN, desc = "no lane, or the entry was lost, torn or taken twice")
@State
public class LanePublication {

    static final long DEADLINE = 42L;

    private final ProducerLanes<Probe> lanes = new ProducerLanes<>(() -> { });
    private int ownerTook;

    @Actor
    public void producer(III_Result r) {
        Probe entry = new Probe();
        entry.deadline(DEADLINE);
        r.r1 = lanes.offer(entry) ? 1 : 0;
    }

    @Actor
    public void owner(III_Result r) {
        ownerTook = drain();
        r.r2 = ownerTook;
    }

    @Arbiter
    public void nextDrain(III_Result r) {
        r.r3 = ownerTook + drain();
    }

    private int drain() {
        int[] taken = {0};
        lanes.drain(e -> taken[0] += e.deadline() == DEADLINE ? 1 : -100);
        return taken[0];
    }
}

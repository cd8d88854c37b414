package io.clockwork.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The handshake for an entry due later than the owner's longest sleep plus a tick: the producer publishes it in its
 * lane without a fence, so the producer and the owner may each miss the other (the producer's store still in its
 * store buffer when it reads the owner's planned wake-up). That is allowed because the owner, before any sleep
 * longer than {@link TimerCore#MAX_PARK_NANOS}, first sleeps that long and looks again ({@code awaitWork}), and the
 * entry is not due before that look. The arbiter is that second look: it must find the entry, however the first
 * two went.
 *
 * <p>Result: whether the owner's first look took the entry; whether the producer claimed the wake-up; whether the
 * entry was taken by the end of the owner's second look.
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "the owner's first look took the entry")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "the producer saw the planned sleep and woke the owner")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "both")
@Outcome(id = "0, 0, 1", expect = ACCEPTABLE_INTERESTING,
        desc = "each missed the other (no fence on the producer's side); the owner's second look took the entry")
@Outcome(expect = FORBIDDEN, desc = "the entry was not taken by the second look")
@State
public class FarWakeUp {

    static final long TICK = TimeUnit.MILLISECONDS.toNanos(1);
    static final long OWNER_SLEEP = TimeUnit.SECONDS.toNanos(1);
    static final long DELAY = TimeUnit.MILLISECONDS.toNanos(50);

    private final TimerCore<Probe> core = new TimerCore<>("jcstress", () -> 0L, TICK, 64, Long.MAX_VALUE, e -> { });

    @Actor
    public void producer() {
        core.scheduleAt(new Probe(), DELAY, DELAY);
    }

    @Actor
    public void owner(III_Result r) {
        r.r1 = OwnerLook.takes(core, OWNER_SLEEP);
    }

    @Arbiter
    public void secondLook(III_Result r) {
        r.r2 = OwnerLook.wakeClaimed(core);
        r.r3 = OwnerLook.takes(core, OWNER_SLEEP);
    }
}

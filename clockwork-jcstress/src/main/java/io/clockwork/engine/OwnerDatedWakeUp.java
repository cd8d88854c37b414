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
 * The handshake for an entry the owner dates ({@link TimerCore}'s far deadlines): the producer reads no clock, stores
 * {@code ~delay} in the entry and publishes it in its lane without a fence, comparing a lower bound of its deadline
 * with the owner's planned wake-up. As for {@link FarWakeUp}, the producer and the owner may each miss the other; the
 * owner's second look must take the entry, and the entry it takes must carry the undated delay the producer wrote
 * (the lane's release store publishes it), so that the nursery sweep dates it rather than filing a garbage deadline.
 *
 * <p>Result: whether the owner's first look took the entry; whether the producer claimed the wake-up; whether the
 * second look found the entry taken with the delay it was given.
 */
@JCStressTest
@Outcome(id = {"1, 0, 1", "0, 1, 1", "1, 1, 1"}, expect = ACCEPTABLE,
        desc = "the owner's first look took the undated entry, or the producer woke it, or both")
@Outcome(id = "0, 0, 1", expect = ACCEPTABLE_INTERESTING, desc = "each missed the other; the second look took it")
@Outcome(expect = FORBIDDEN, desc = "the entry was not taken by the second look, or not with its undated delay")
@State
public class OwnerDatedWakeUp {

    static final long TICK = TimeUnit.MILLISECONDS.toNanos(1);
    /** Longer than the least owner-dated delay (14.3 s), so that a producer that sees this sleep wakes the owner. */
    static final long OWNER_SLEEP = TimeUnit.MINUTES.toNanos(1);

    private final TimerCore<Probe> core = new TimerCore<>("jcstress", () -> 0L, TICK, 64, Long.MAX_VALUE, true,
            e -> { });
    private final Probe entry = new Probe();
    private final long delay = core.ownerDatedDelayNanos();

    @Actor
    public void producer() {
        core.schedule(entry, delay);
    }

    @Actor
    public void owner(III_Result r) {
        r.r1 = OwnerLook.takes(core, OWNER_SLEEP);
    }

    @Arbiter
    public void secondLook(III_Result r) {
        r.r2 = OwnerLook.wakeClaimed(core);
        r.r3 = OwnerLook.takes(core, OWNER_SLEEP) == 1 && entry.deadline() == ~delay ? 1 : 0;
    }
}

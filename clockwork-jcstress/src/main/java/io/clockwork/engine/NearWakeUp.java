package io.clockwork.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The wake-up handshake for an entry due sooner than the owner's longest sleep ({@link TimerCore#MAX_PARK_NANOS}):
 * the owner, about to sleep 5 ms, publishes when it will wake and looks at the lanes ({@code settleWakeAt}); a
 * producer schedules an entry due in 1 ms and reads that time. Both sides fence, so at least one sees the other:
 * the owner takes the entry before it sleeps, or the producer claims the wake-up (and unparks the owner). The
 * forbidden outcome is the one in which the entry would wait for the 5 ms wake-up.
 *
 * <p>Result: whether the owner took the entry in; whether the producer claimed the wake-up ({@code wakeAt} is
 * {@code AWAKE} at the end).
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the owner took the entry in before sleeping")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the producer saw the planned sleep and woke the owner")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both: the owner took the entry in, and was woken as well")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "neither saw the other: the entry waits for a later wake-up")
@State
public class NearWakeUp {

    static final long TICK = TimeUnit.MILLISECONDS.toNanos(1);
    static final long OWNER_SLEEP = TimeUnit.MILLISECONDS.toNanos(5);
    static final long DELAY = TimeUnit.MILLISECONDS.toNanos(1);

    private final TimerCore<Probe> core = new TimerCore<>("jcstress", () -> 0L, TICK, 64, Long.MAX_VALUE, e -> { });

    @Actor
    public void producer() {
        core.scheduleAt(new Probe(), DELAY, DELAY);
    }

    @Actor
    public void owner(II_Result r) {
        r.r1 = OwnerLook.takes(core, OWNER_SLEEP);
    }

    @Arbiter
    public void wokenUp(II_Result r) {
        r.r2 = OwnerLook.wakeClaimed(core);
    }
}

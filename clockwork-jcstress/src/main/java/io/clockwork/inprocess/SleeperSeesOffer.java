package io.clockwork.inprocess;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.clockwork.engine.MpscInbox;
import io.clockwork.engine.WheelEntry;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The wake-up pair of {@link InMemoryDelayedQueue}'s producers that do not take the lock ({@link Sleepers}): a poll
 * about to sleep until 5 ms publishes itself and looks at the inbox; a producer hands over a message due at 1 ms
 * through the inbox and asks whether a sleeper could oversleep it. At least one must see the other: the poll takes
 * the message in before sleeping, or the producer takes the lock to wake it.
 *
 * <p>Result: whether the poll saw the message in the inbox; whether the producer decided to wake it.
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the producer came first; the poll sees its message")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the poll came first; the producer wakes it")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "each saw the other")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "neither saw the other: the message waits for a later wake-up")
@State
public class SleeperSeesOffer {

    static final long POLL_WAKES_AT = 5_000_000L;
    static final long MESSAGE_DUE = 1_000_000L;

    private final Sleepers sleepers = new Sleepers();
    private final MpscInbox<Message> inbox = new MpscInbox<>(1);

    @Actor
    public void poll(II_Result r) {
        sleepers.enter(POLL_WAKES_AT);
        r.r1 = inbox.isEmpty() ? 0 : 1;
    }

    @Actor
    public void produce(II_Result r) {
        inbox.offer(new Message());
        r.r2 = sleepers.mayOversleep(MESSAGE_DUE) ? 1 : 0;
    }

    /** An inbox entry standing for a message. */
    static final class Message extends WheelEntry {
    }
}

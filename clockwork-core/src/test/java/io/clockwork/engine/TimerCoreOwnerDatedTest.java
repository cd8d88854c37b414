package io.clockwork.engine;

import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Far deadlines dated by the owner ({@link TimerCore}'s class comment): the test thread is both producer and owner,
 * and a manual ticker stands for the time that passes between a call and the owner's passes, so every reading the
 * owner takes is known.
 */
class TimerCoreOwnerDatedTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ManualTicker ticker = new ManualTicker();
    private final List<Probe> expired = new ArrayList<>();

    static final class Probe extends TimerEntry {
    }

    private TimerCore<Probe> core(boolean ownerDates) {
        return new TimerCore<>("owner-dated", ticker, MS, 64, Long.MAX_VALUE, ownerDates, expired::add);
    }

    @Test
    void theThresholdIsAThousandTimesTheMostDatingMayAdd() {
        long most = TimerCore.MAX_PARK_NANOS + TimerCore.NURSERY_TICKS * MS;
        assertThat(core(true).ownerDatedDelayNanos()).isEqualTo(TimerCore.OWNER_DATED_FACTOR * most)
                .isEqualTo(TimeUnit.MILLISECONDS.toNanos(14_336));
        assertThat(core(false).ownerDatedDelayNanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aFarEntryIsDatedByTheSweepThatFilesItAndNeverFallsDueBeforeItsDelay() {
        TimerCore<Probe> core = core(true);
        long delay = core.ownerDatedDelayNanos();
        ticker.advance(2 * MS, TimeUnit.NANOSECONDS);
        core.expireDue(); // the first sweep: the next is due 4 ticks later, at 6 ms
        Probe far = new Probe();
        core.schedule(far, delay); // called at 2 ms
        assertThat(far.deadline()).as("undated until the owner dates it").isEqualTo(~delay);
        ticker.advance(3 * MS, TimeUnit.NANOSECONDS);
        core.expireDue(); // takes it into the nursery, still undated
        assertThat(far.deadline()).isEqualTo(~delay);
        assertThat(core.heldCount()).isOne();
        ticker.advance(MS, TimeUnit.NANOSECONDS);
        core.expireDue(); // 6 ms: the sweep files it, dated from its reading
        assertThat(far.deadline()).isEqualTo(6 * MS + delay);
        assertThat(far.isLinked()).isTrue();

        // A tick past the deadline the call would have given it (2 ms + delay).
        ticker.advance(delay - 3 * MS, TimeUnit.NANOSECONDS);
        core.expireDue();
        assertThat(expired).as("4 ms later than dated at the call, never earlier").isEmpty();
        ticker.advance(3 * MS, TimeUnit.NANOSECONDS); // 6 ms + delay
        core.expireDue();
        assertThat(expired).containsExactly(far);
        assertThat(core.latenessNanos(far)).isZero();
    }

    @Test
    void aNearerEntryIsDatedAtTheCall() {
        TimerCore<Probe> core = core(true);
        long delay = core.ownerDatedDelayNanos() - 1;
        ticker.advance(2 * MS, TimeUnit.NANOSECONDS);
        Probe near = new Probe();
        core.schedule(near, delay);
        assertThat(near.deadline()).isEqualTo(2 * MS + delay);
    }

    @Test
    void withoutOwnerDatingEveryEntryIsDatedAtTheCall() {
        TimerCore<Probe> core = core(false);
        ticker.advance(2 * MS, TimeUnit.NANOSECONDS);
        Probe far = new Probe();
        core.schedule(far, TimeUnit.HOURS.toNanos(1));
        assertThat(far.deadline()).isEqualTo(2 * MS + TimeUnit.HOURS.toNanos(1));
    }

    @Test
    void anEntryCancelledBeforeTheSweepIsDroppedUndated() {
        TimerCore<Probe> core = core(true);
        Probe far = new Probe();
        core.schedule(far, TimeUnit.HOURS.toNanos(1));
        core.expireDue();
        assertThat(far.transition(TimerEntry.CANCELLED)).isTrue();
        core.entryCancelled();
        ticker.advance(TimerCore.NURSERY_TICKS * MS, TimeUnit.NANOSECONDS);
        core.expireDue();
        assertThat(core.heldCount()).isZero();
        assertThat(far.deadline()).isEqualTo(~TimeUnit.HOURS.toNanos(1));
        assertThat(core.pendingCount()).isZero();
    }

    @Test
    void anUndatedEntryWakesAnIdleOwnerButNotOneThatLooksSoonerThanItCouldFallDue() {
        TimerCore<Probe> idle = core(true);
        idle.expireDue();
        ticker.advance(MS, TimeUnit.NANOSECONDS);
        idle.settleWakeAt(ticker.read(), Long.MAX_VALUE); // idle: asleep until woken
        idle.schedule(new Probe(), idle.ownerDatedDelayNanos());
        assertThat(idle.wakeAt()).as("the producer claimed the wake-up").isEqualTo(TimerCore.AWAKE);

        TimerCore<Probe> busy = core(true);
        busy.schedule(new Probe(), TimeUnit.MINUTES.toNanos(5));
        busy.expireDue();
        busy.settleWakeAt(ticker.read(), TimerCore.MAX_PARK_NANOS);
        long planned = busy.wakeAt();
        busy.schedule(new Probe(), busy.ownerDatedDelayNanos());
        assertThat(busy.wakeAt()).as("its lower bound is later than the planned wake-up").isEqualTo(planned);
    }

    @Test
    void abandoningTakesUndatedEntriesFromTheLanesAndTheNursery() {
        TimerCore<Probe> core = core(true);
        Probe inNursery = new Probe();
        core.schedule(inNursery, TimeUnit.HOURS.toNanos(1));
        core.expireDue();
        Probe inLane = new Probe();
        core.schedule(inLane, TimeUnit.HOURS.toNanos(2));
        core.markStopped();
        List<Probe> abandoned = new ArrayList<>();
        assertThat(core.abandonAll(abandoned::add)).isEqualTo(2);
        assertThat(abandoned).containsExactlyInAnyOrder(inNursery, inLane);
        assertThat(core.pendingCount()).isZero();
    }
}

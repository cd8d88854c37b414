package io.clockwork.engine;

import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A producer that outruns the owner: past {@link ProducerLanes#MAX_BACKLOG} untaken entries it yields its core to
 * the owner once per chunk, but an owner that takes nothing (held up in a task, or never started, as here) never
 * holds it up, and nothing is lost.
 */
class TimerCoreBacklogTest {

    @Test
    void aProducerWhoseOwnerTakesNothingIsHeldUpABoundedTimeAndLosesNothing() {
        TimerCore<TimerCoreOwnerDatedTest.Probe> core = new TimerCore<>("backlog", new ManualTicker(),
                TimeUnit.MILLISECONDS.toNanos(1), 64, Long.MAX_VALUE, e -> { });
        int count = ProducerLanes.MAX_BACKLOG + 40 * ProducerLanes.CHUNK;
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            core.schedule(new TimerCoreOwnerDatedTest.Probe(), TimeUnit.HOURS.toNanos(1));
        }
        long took = System.nanoTime() - start;
        // 40 chunks past the backlog, each costing the producer one yield: far under this generous bound
        assertThat(took).as("ns to schedule %d with no owner", count).isLessThan(TimeUnit.SECONDS.toNanos(20));
        assertThat(core.pendingCount()).isEqualTo(count);
        core.expireDue(); // this thread becomes the owner and takes them all
        assertThat(core.heldCount()).isEqualTo(count);
        assertThat(core.inboxIsEmpty()).isTrue();
    }
}

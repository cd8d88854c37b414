package io.clockwork.benchmarks.queue;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CancelCostHarness at a tiny size on a real redis-server: its script reads the queue's compact store as the queue
 * writes it (every message located, every cancel done, the backlog back to its size after each round), and each
 * phase's script time is measured at both sizes.
 */
class CancelCostHarnessIT {

    @Test
    void aTinyRunCancelsEveryMessageEachWayAndTimesEachPhase() throws Exception {
        Map<Integer, Map<String, double[]>> bySize = CancelCostHarness.measure("redis-server", 100, 3_000, 1_600, 2);

        assertThat(bySize).containsOnlyKeys(100, 3_000);
        for (Map<String, double[]> phases : bySize.values()) {
            assertThat(phases.keySet()).containsExactlyElementsOf(CancelCostHarness.PHASES);
            for (double[] usec : phases.values()) {
                assertThat(usec).hasSize(2);
                assertThat(Math.min(usec[0], usec[1])).isPositive();
            }
        }
    }
}

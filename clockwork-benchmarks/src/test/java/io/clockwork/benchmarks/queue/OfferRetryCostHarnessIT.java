package io.clockwork.benchmarks.queue;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * OfferRetryCostHarness at a tiny size on a real redis-server: both queues store every batch (the harness checks the
 * count) and each round's script time per message is measured for both.
 */
class OfferRetryCostHarnessIT {

    @Test
    void aTinyRunTimesOffersWithAndWithoutRetries() throws Exception {
        Map<String, double[]> usec = OfferRetryCostHarness.measure("redis-server", 20, 2);

        assertThat(usec.keySet()).containsExactlyElementsOf(OfferRetryCostHarness.PHASES);
        for (double[] rounds : usec.values()) {
            assertThat(rounds).hasSize(2);
            assertThat(Math.min(rounds[0], rounds[1])).isPositive();
        }
    }
}

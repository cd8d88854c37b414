package io.clockwork.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.QueueStats;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Reconciling orders by id, and splitting the unsettled ones by what the queue still holds. */
class LedgerTest {

    /** Ten orders: 0-2 cancelled, 3-4 delivered, 5-9 unsettled. */
    private static Ledger.Reconciliation tenOrdersFiveUnsettled() {
        Ledger ledger = new Ledger("run1", 10);
        for (int i = 0; i < 10; i++) {
            ledger.scheduled(i);
        }
        for (int i = 0; i < 3; i++) {
            ledger.cancelled(i);
        }
        ledger.delivered("run1-3", 100);
        ledger.delivered("run1-4", 100);
        ledger.delivered("other-7", 100); // another run's receipt settles nothing
        return ledger.reconcile();
    }

    private static QueueStats stats(long delayed, long ready, long inFlight, long dead) {
        return new QueueStats(delayed, ready, inFlight, dead, Optional.empty());
    }

    @Test
    void unsettledOrdersTheQueueStillHoldsAreNotDeliveredYet() {
        Ledger.Reconciliation r = tenOrdersFiveUnsettled();
        assertThat(r.unsettled()).isEqualTo(5);
        assertThat(r.outcome(stats(2, 2, 1, 0))).isEqualTo(new Ledger.Outcome(5, 0, 0, true));
        assertThat(r.outcome(stats(100, 0, 0, 0))).isEqualTo(new Ledger.Outcome(5, 0, 0, true));
    }

    @Test
    void onlyWhatTheQueueDoesNotHoldIsLost() {
        Ledger.Reconciliation r = tenOrdersFiveUnsettled();
        assertThat(r.outcome(stats(1, 1, 1, 1))).isEqualTo(new Ledger.Outcome(3, 1, 1, true));
        assertThat(r.outcome(stats(0, 0, 0, 0))).isEqualTo(new Ledger.Outcome(0, 0, 5, true));
    }

    @Test
    void unreadableCountsLeaveEveryUnsettledOrderUnaccountedFor() {
        assertThat(tenOrdersFiveUnsettled().outcome(null)).isEqualTo(new Ledger.Outcome(0, 0, 5, false));
    }
}

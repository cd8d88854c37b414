package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.time.ManualTicker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ExpiryQueueTest {

    private final ManualTicker ticker = new ManualTicker();
    private final ExpiryQueue<String> queue = new ExpiryQueue<>(1000, ticker);

    private void advanceMs(long ms) {
        ticker.advance(ms, TimeUnit.MILLISECONDS);
    }

    @Test
    void countsTrackedElementsAndExpirations() {
        queue.update("a", 1000);
        queue.update("b", 1000);
        queue.update("c", 5000);
        assertThat(queue.size()).isEqualTo(3);
        advanceMs(2000);
        assertThat(queue.poll()).containsExactlyInAnyOrder("a", "b");
        assertThat(queue.poll()).isEmpty();
        assertThat(queue.expiredCount()).isEqualTo(2);
        assertThat(queue.size()).as("expired elements stay until removed, as in ZooKeeper").isEqualTo(3);
        queue.remove("a");
        assertThat(queue.size()).isEqualTo(2);
    }

    @Test
    void updateRoundsDeadlineUpToTheNextIntervalBoundary() {
        advanceMs(300);
        assertThat(queue.update("a", 2500)).isEqualTo(3000L); // (2800 / 1000 + 1) * 1000
        assertThat(queue.update("b", 2700)).isEqualTo(4000L); // an exact boundary still rounds up
    }

    @Test
    void updateWithinTheSameBucketReturnsNull() {
        queue.update("a", 2500);
        advanceMs(400);
        assertThat(queue.update("a", 2500)).isNull();
        assertThat(queue.updateExpiry("a", 2500)).isEqualTo(ExpiryQueue.NONE);
    }

    @Test
    void updateIntoALaterBucketReturnsTheNewExpiry() {
        queue.update("a", 2500);
        advanceMs(600);
        assertThat(queue.update("a", 2500)).isEqualTo(4000L);
        assertThat(queue.updateExpiry("a", 5000)).isEqualTo(6000L);
    }

    @Test
    void pollBeforeTheBoundaryIsDueReturnsAnEmptySet() {
        queue.update("a", 1);
        advanceMs(999);
        assertThat(queue.poll()).isEmpty();
        assertThat(queue.getWaitTime()).isEqualTo(1);
    }

    @Test
    void getWaitTimeCountsDownToTheNextBoundaryAndIsZeroWhenDue() {
        assertThat(queue.getWaitTime()).isEqualTo(1000);
        advanceMs(250);
        assertThat(queue.getWaitTime()).isEqualTo(750);
        advanceMs(5000);
        assertThat(queue.getWaitTime()).isZero();
        queue.poll();
        assertThat(queue.getWaitTime()).isEqualTo(1000 - 250); // next boundary after now (5250) is 6000
    }

    @Test
    void pollReturnsDueElementsOnce() {
        queue.update("a", 500);
        queue.update("b", 900);
        queue.update("c", 1500);
        advanceMs(1000);
        assertThat(queue.poll()).containsExactlyInAnyOrder("a", "b");
        assertThat(queue.poll()).isEmpty();
        advanceMs(1000);
        assertThat(queue.poll()).containsExactly("c");
        advanceMs(1000);
        assertThat(queue.poll()).isEmpty();
    }

    @Test
    void touchedElementIsNotPolledAtItsOldTime() {
        queue.update("a", 500);
        advanceMs(900);
        queue.update("a", 2000); // now 3000
        advanceMs(100);
        assertThat(queue.poll()).isEmpty();
        advanceMs(1000);
        assertThat(queue.poll()).isEmpty();
        advanceMs(1000);
        assertThat(queue.poll()).containsExactly("a");
    }

    @Test
    void shorterTimeoutMovesTheElementEarlier() {
        queue.update("a", 9000);   // 10000
        queue.update("a", 1500);   // 2000
        advanceMs(2000);
        assertThat(queue.poll()).containsExactly("a");
        advanceMs(10_000);
        assertThat(queue.poll()).isEmpty();
    }

    @Test
    void removedElementIsNeverPolledAndRemoveReturnsItsExpiry() {
        queue.update("a", 1500);
        assertThat(queue.remove("a")).isEqualTo(2000L);
        assertThat(queue.remove("a")).isNull();
        assertThat(queue.removeExpiry("a")).isEqualTo(ExpiryQueue.NONE);
        advanceMs(5000);
        assertThat(queue.poll()).isEmpty();
    }

    @Test
    void polledElementStaysKnownUntilRemovedAsInZooKeeper() {
        queue.update("a", 500);
        advanceMs(1000);
        assertThat(queue.poll()).containsExactly("a");
        assertThat(queue.getExpiryMap()).isEmpty();
        assertThat(queue.remove("a")).isEqualTo(1000L);
    }

    @Test
    void updateAfterPollTracksTheElementAgain() {
        queue.update("a", 500);
        advanceMs(1000);
        assertThat(queue.poll()).containsExactly("a");
        assertThat(queue.update("a", 500)).isEqualTo(2000L);
        advanceMs(1000);
        assertThat(queue.poll()).containsExactly("a");
    }

    @Test
    void lateCallerGetsEveryDueElementInOnePollThenWaitsForTheNextBoundary() {
        queue.update("a", 100);   // 1000
        queue.update("b", 3500);  // 4000
        queue.update("c", 7200);  // 8000
        queue.update("d", 20_000); // 21000
        advanceMs(9_500);
        assertThat(queue.poll()).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(queue.getWaitTime()).isEqualTo(500);
        assertThat(queue.poll()).isEmpty();
        advanceMs(11_500);
        assertThat(queue.poll()).containsExactly("d");
    }

    @Test
    void noEmptyBucketIsKept() {
        for (int i = 0; i < 100; i++) {
            queue.update("e" + i, 1000 * (i + 1));
        }
        for (int i = 0; i < 100; i++) {
            queue.remove("e" + i);
        }
        assertThat(queue.getExpiryMap()).isEmpty();
        queue.update("x", 100);
        advanceMs(1_000_000);
        assertThat(queue.poll()).containsExactly("x");
        assertThat(queue.getExpiryMap()).isEmpty();
    }

    @Test
    void hugeTimeoutsExpireOnTimeWithATinyInterval() {
        ExpiryQueue<String> fine = new ExpiryQueue<>(1, ticker);
        fine.update("max", Integer.MAX_VALUE);
        fine.update("day", 86_400_000);
        advanceMs(86_400_000);
        assertThat(fine.poll()).isEmpty();
        advanceMs(1);
        assertThat(fine.poll()).containsExactly("day");
        advanceMs(Integer.MAX_VALUE - 86_400_000L);
        assertThat(fine.poll()).containsExactly("max");
    }

    @Test
    void elementsSpreadOverMoreIntervalsThanTheRingHasSlotsEachExpireInTheirOwnBucket() {
        int buckets = 3 * KeyRing.SLOTS + 5;
        for (int i = 1; i <= buckets; i++) {
            queue.update("e" + i, i * 1000 - 500); // due at i * 1000
        }
        for (int i = 1; i <= buckets; i++) {
            advanceMs(999);
            assertThat(queue.poll()).as("just before %d s", i).isEmpty();
            advanceMs(1);
            assertThat(queue.poll()).as("at %d s", i).containsExactly("e" + i);
        }
        assertThat(queue.filings()).isZero();
    }

    @Test
    void anElementMovedBackAndForthExpiresOnceAtItsLastExpiryAndLeavesNoFilingBehind() {
        for (int i = 0; i < 1000; i++) {
            queue.update("a", 9000);  // 10000
            queue.update("a", 1500);  // 2000: earlier, so filed anew
        }
        assertThat(queue.update("a", 4500)).isEqualTo(5000L);
        advanceMs(4999);
        assertThat(queue.poll()).isEmpty();
        advanceMs(1);
        assertThat(queue.poll()).containsExactly("a");
        advanceMs(20_000);
        assertThat(queue.poll()).isEmpty();
        assertThat(queue.filings()).isZero();
    }

    @Test
    void anElementRemovedAndAddedAgainExpiresOnceAtItsNewTime() {
        for (int i = 0; i < 100; i++) {
            queue.update("a", 1500);  // 2000
            queue.remove("a");
        }
        queue.update("a", 6500);      // 7000
        advanceMs(2000);
        assertThat(queue.poll()).isEmpty();
        advanceMs(5000);
        assertThat(queue.poll()).containsExactly("a");
        advanceMs(70_000);
        assertThat(queue.poll()).isEmpty();
        assertThat(queue.filings()).isZero();
    }

    @Test
    void aStormExpiresEveryDueElementOnceAndKeepsTheOthersOnTime() {
        for (int i = 0; i < 6000; i++) {
            queue.update("due" + i, 1500);   // 2000
        }
        for (int i = 0; i < 4000; i++) {
            queue.update("later" + i, 4500); // 5000
        }
        queue.update("later0", 9500);        // moved later, to 10000
        advanceMs(2000);
        Set<String> storm = queue.poll();    // 6,000 of 10,000 due: one pass over the table
        assertThat(storm).hasSize(6000).allMatch(e -> e.startsWith("due"));
        assertThat(queue.update("due0", 500)).isEqualTo(3000L); // revived
        advanceMs(1000);
        assertThat(queue.poll()).containsExactly("due0");
        advanceMs(2000);
        Set<String> later = queue.poll();
        assertThat(later).hasSize(3999).doesNotContain("later0");
        advanceMs(5000);
        assertThat(queue.poll()).containsExactly("later0");
        assertThat(queue.filings()).isZero();
    }

    @Test
    void manyElementsDueInOneBucketAllExpire() {
        for (int i = 0; i < 10_000; i++) {
            queue.update("e" + i, 1000);
        }
        advanceMs(2000);
        assertThat(queue.poll()).hasSize(10_000);
    }

    @Test
    void worksWhenTheTickerWrapsAround() {
        ManualTicker nearMax = new ManualTicker(Long.MAX_VALUE - 1_500_000_000L);
        ExpiryQueue<String> wrapping = new ExpiryQueue<>(1000, nearMax);
        long start = Long.MAX_VALUE / 1_000_000 - 1500; // the ticker's milliseconds: 9,223,372,035,354
        assertThat(wrapping.currentTime()).isEqualTo(start);
        long expiry = (start + 2000) / 1000 * 1000 + 1000;  // 9,223,372,038,000: past the wrap, 2,646 ms from now
        assertThat(wrapping.update("a", 2000)).isEqualTo(expiry);
        nearMax.advance(expiry - start - 1, TimeUnit.MILLISECONDS);
        assertThat(wrapping.poll()).isEmpty();
        nearMax.advance(1, TimeUnit.MILLISECONDS);
        assertThat(nearMax.read()).as("the ticker has wrapped").isNegative();
        assertThat(wrapping.poll()).containsExactly("a");
        assertThat(wrapping.currentTime()).isEqualTo(expiry);
    }

    @Test
    void expiryMapGroupsLiveElementsByTimeInOrder() {
        queue.update("a", 2500);
        queue.update("b", 2600);
        queue.update("c", 500);
        Map<Long, Set<String>> map = queue.getExpiryMap();
        assertThat(map.keySet()).containsExactly(1000L, 3000L);
        assertThat(map.get(3000L)).containsExactlyInAnyOrder("a", "b");
        assertThatThrownBy(() -> map.put(5L, Set.of())).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void dumpPrintsBucketsInZooKeepersFormat() {
        queue.update("a", 500);
        StringWriter out = new StringWriter();
        queue.dump(new PrintWriter(out, true));
        assertThat(out.toString()).isEqualTo("Sets (1)/(1):" + System.lineSeparator() + "1 expire at 1000 ms:"
                + System.lineSeparator() + "\ta" + System.lineSeparator());
    }

    @Test
    void badArgumentsAreRejectedWithTheirNames() {
        assertThatThrownBy(() -> new ExpiryQueue<String>(0, ticker)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expirationInterval").hasMessageContaining("at least 1");
        assertThatThrownBy(() -> new ExpiryQueue<String>(10, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("ticker");
        assertThatThrownBy(() -> queue.update(null, 10)).isInstanceOf(NullPointerException.class)
                .hasMessage("elem");
        assertThatThrownBy(() -> queue.update("a", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout").hasMessageContaining("was 0");
        assertThatThrownBy(() -> queue.update("a", -5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.remove(null)).isInstanceOf(NullPointerException.class).hasMessage("elem");
        assertThat(queue.getExpiryMap()).isEmpty();
    }
}

package io.clockwork.worker;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The adaptive prefetch's rule, event by event, and a fixed prefetch that no event moves. */
class PrefetchLimitTest {

    @Test
    void theAdaptiveLimitStartsAtZeroAndAFullPollThereDoesNotRaiseIt() {
        PrefetchLimit p = PrefetchLimit.adaptive(4, 100);
        assertThat(p.adaptive()).isTrue();
        assertThat(p.now()).isZero();
        assertThat(p.polled(4, 4, true, 0)).isFalse();
        assertThat(p.polled(4, 4, false, 3)).isFalse();
        assertThat(p.now()).isZero();
    }

    @Test
    void aTurnoverThatTookANextMessageRaisesItToTheConcurrencyThenDoublesItUpToTheMax() {
        PrefetchLimit p = PrefetchLimit.adaptive(4, 50);
        assertThat(p.turnoverTookNext()).isTrue();
        assertThat(p.now()).isEqualTo(4);
        p.turnoverTookNext();
        assertThat(p.now()).isEqualTo(8);
        p.turnoverTookNext();
        p.turnoverTookNext();
        assertThat(p.now()).isEqualTo(32);
        p.turnoverTookNext();
        assertThat(p.now()).isEqualTo(50);
        assertThat(p.turnoverTookNext()).isFalse();
        assertThat(p.now()).isEqualTo(50);
    }

    @Test
    void aFullPollWhileAHandlerStarvedDoublesIt() {
        PrefetchLimit p = PrefetchLimit.adaptive(2, 50);
        p.turnoverTookNext();
        assertThat(p.now()).isEqualTo(2);
        assertThat(p.polled(3, 3, true, 0)).isTrue();
        assertThat(p.now()).isEqualTo(4);
        p.polled(1, 1, true, 0);
        assertThat(p.now()).isEqualTo(8);
    }

    @Test
    void aShortPollHalvesItSoAnIdleQueueBringsItBackToZero() {
        PrefetchLimit p = PrefetchLimit.adaptive(4, 100);
        for (int i = 0; i < 5; i++) {
            p.turnoverTookNext();
        }
        assertThat(p.now()).isEqualTo(64);
        p.polled(10, 3, true, 0);
        assertThat(p.now()).isEqualTo(32);
        int polls = 1;
        while (p.now() > 0) {
            p.polled(30, 0, true, 0);
            polls++;
        }
        assertThat(polls).isEqualTo(7);
        assertThat(p.polled(4, 0, true, 0)).isFalse();
    }

    @Test
    void aFullPollWithBufferedJobsStillWaitingLowersItByOne() {
        PrefetchLimit p = PrefetchLimit.adaptive(4, 100);
        p.turnoverTookNext();
        p.polled(2, 2, false, 1);
        assertThat(p.now()).isEqualTo(3);
        p.polled(1, 1, false, 5);
        assertThat(p.now()).isEqualTo(2);
    }

    @Test
    void aFullPollThatArrivesJustAsTheBufferRanOutLeavesItAlone() {
        PrefetchLimit p = PrefetchLimit.adaptive(4, 100);
        p.turnoverTookNext();
        assertThat(p.polled(4, 4, false, 0)).isFalse();
        assertThat(p.now()).isEqualTo(4);
    }

    @Test
    void aFixedPrefetchNeverMoves() {
        PrefetchLimit p = PrefetchLimit.fixed(16);
        assertThat(p.adaptive()).isFalse();
        assertThat(p.turnoverTookNext()).isFalse();
        assertThat(p.polled(16, 0, true, 0)).isFalse();
        assertThat(p.polled(16, 16, true, 0)).isFalse();
        assertThat(p.polled(16, 16, false, 8)).isFalse();
        assertThat(p.now()).isEqualTo(16);
        assertThat(PrefetchLimit.fixed(0).turnoverTookNext()).isFalse();
        assertThat(p).hasToString("16");
    }

    @Test
    void theLargestAdaptiveLimitIsTwentyFivePerHandlerAndAtMostOneHundred() {
        assertThat(Worker.adaptivePrefetchMax(1)).isEqualTo(25);
        assertThat(Worker.adaptivePrefetchMax(2)).isEqualTo(50);
        assertThat(Worker.adaptivePrefetchMax(4)).isEqualTo(100);
        assertThat(Worker.adaptivePrefetchMax(Worker.MAX_CONCURRENCY)).isEqualTo(Worker.MAX_ADAPTIVE_PREFETCH);
        assertThat(PrefetchLimit.adaptive(2, 50)).hasToString("adaptive (now 0, max 50)");
    }
}

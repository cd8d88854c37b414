package io.clockwork.time;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TickerWatchTest {

    @Test
    void aManualTickerRunsEveryOpenWatchAfterEachAdvanceUntilItIsClosed() {
        ManualTicker ticker = new ManualTicker();
        AtomicInteger jumps = new AtomicInteger();
        Ticker.Watch watch = ticker.watch(jumps::incrementAndGet);
        assertThat(ticker.watchCount()).isEqualTo(1);
        ticker.advance(1, TimeUnit.MILLISECONDS);
        ticker.advance(0, TimeUnit.MILLISECONDS);
        assertThat(jumps).hasValue(2);
        watch.close();
        watch.close();
        ticker.advance(1, TimeUnit.MILLISECONDS);
        assertThat(jumps).hasValue(2);
        assertThat(ticker.watchCount()).isZero();
    }

    @Test
    void theSystemTickerNeverJumpsSoItsWatchRegistersNothing() {
        Ticker.Watch watch = Ticker.system().watch(() -> { throw new AssertionError("the system ticker jumped"); });
        assertThat(watch).isSameAs(Ticker.Watch.NONE);
        watch.close();
        assertThatThrownBy(() -> Ticker.system().watch(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("onJump");
        assertThatThrownBy(() -> new ManualTicker().watch(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("onJump");
    }
}

package io.clockwork.timer;

import io.clockwork.testing.TimerContract;
import io.clockwork.time.ManualTicker;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/** {@link TimerContract} on {@link WheelTimer}: its driver thread wakes whenever the ticker moves. */
class TimerContractOnWheelTimerTest extends TimerContract {

    @Override
    protected Subject newTimer(ManualTicker ticker) {
        WheelTimer timer = WheelTimer.builder().ticker(ticker).tick(Duration.ofMillis(1)).name("contract").build();
        return new Subject() {
            @Override
            public Handle schedule(Runnable task, long delayMs) {
                Timeout timeout = timer.schedule(task, Duration.ofMillis(delayMs));
                return new Handle() {
                    @Override
                    public void cancel() {
                        timeout.cancel();
                    }

                    @Override
                    public Object underlying() {
                        return timeout;
                    }
                };
            }

            @Override
            public void passTime(long ms) {
                ticker.advance(Duration.ofMillis(ms));
            }

            @Override
            public void settle() throws InterruptedException {
                WheelTimerTest.quiesce(timer);
            }

            @Override
            public long pending() {
                return timer.pendingCount();
            }

            @Override
            public Optional<Set<?>> stop() {
                return Optional.of(timer.stop()); // returns the timeouts that never ran, as Netty's does
            }
        };
    }
}

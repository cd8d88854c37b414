package io.clockwork.kafka;

import io.clockwork.testing.TimerContract;
import io.clockwork.time.ManualTicker;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@link TimerContract} on the Kafka face, {@link SystemTimer}: nothing expires unless {@code advanceClock} is called,
 * so passing time means moving the ticker and then calling {@code advanceClock(0)}, as a reaper thread would.
 */
class TimerContractOnSystemTimerTest extends TimerContract {

    @Override
    protected Subject newTimer(ManualTicker ticker) {
        SystemTimer timer = new SystemTimer("contract", 1, 20, ticker);
        return new Subject() {
            @Override
            public Handle schedule(Runnable task, long delayMs) {
                TimerTask timerTask = new TimerTask(delayMs) {
                    @Override
                    public void run() {
                        task.run();
                    }
                };
                timer.add(timerTask);
                return new Handle() {
                    @Override
                    public void cancel() {
                        timerTask.cancel();
                    }

                    @Override
                    public Object underlying() {
                        return timerTask;
                    }
                };
            }

            @Override
            public void passTime(long ms) throws InterruptedException {
                ticker.advance(ms, TimeUnit.MILLISECONDS);
                timer.advanceClock(0);
            }

            @Override
            public void settle() throws InterruptedException {
                timer.advanceClock(0);
                KafkaFaceTesting.drainTaskThread(timer);
            }

            @Override
            public long pending() {
                return timer.size();
            }

            @Override
            public Optional<Set<?>> stop() {
                timer.close(); // Kafka's close drops pending tasks and returns nothing
                return Optional.empty();
            }
        };
    }
}

package io.clockwork.benchmarks.scale;

import io.clockwork.benchmarks.timer.Lane;
import io.clockwork.benchmarks.timer.Rivals;
import io.clockwork.benchmarks.timer.TimerRival;

import java.util.List;

/**
 * A timer as a {@link Subject}: one of the timer suite's rivals ({@link Rivals}: ours, Netty's, the JDK's), through
 * its {@link Lane}s, so that every operation is one call into the timer's public API. Counted timers run a shared
 * {@link DueCounter}; the timer delivers them on its own thread. Thread-safe as the timer is.
 */
final class TimerSubject extends Subject {

    private final TimerRival rival;
    private final DueCounter counter = new DueCounter();

    TimerSubject(String name) {
        super(name);
        this.rival = Rivals.open(name);
    }

    @Override
    List<String> operations() {
        return List.of("schedule", "cancel", "expiry");
    }

    @Override
    String tick() {
        return name().equals(JDK) ? "- (exact deadlines)" : "1 ms";
    }

    @Override
    Producer producer(int slots) {
        Lane lane = rival.lane(slots);
        return new Producer() {
            @Override
            void scheduleFar(int slot, long delayNanos) {
                lane.schedule(slot, delayNanos);
            }

            @Override
            boolean cancel(int slot) {
                return lane.cancel(slot);
            }

            @Override
            void fill(long delayNanos) {
                lane.scheduleDetached(delayNanos);
            }

            @Override
            void scheduleCounted(int slot, long delayNanos) {
                lane.schedule(slot, delayNanos, counter);
            }
        };
    }

    @Override
    long pending() {
        return rival.pending();
    }

    @Override
    void expect(int count) {
        counter.expect(count);
    }

    @Override
    Span deliver(long dueNanos, long timeoutNanos) throws InterruptedException {
        return counter.await(timeoutNanos);
    }

    @Override
    public void close() {
        rival.close();
    }
}

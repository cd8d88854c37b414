package io.clockwork.testing;

import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every timer of this package promises, written once and run against each (JCTools' {@code QueueSanityTest}
 * style): a task runs once and never before its delay, a cancelled one never runs, pending counts, deadline order,
 * stopping, and a throwing task that leaves the timer running. A subclass adapts one timer's API to {@link Subject}.
 *
 * <p>Time is a {@link ManualTicker} that starts 50 ms before {@link Long#MAX_VALUE}, so every test also crosses the
 * ticker's wraparound. Real time bounds only waits for another thread ({@link Await}), never what a test expects.
 */
public abstract class TimerContract {

    /** One timer under test, in the contract's words. Not thread-safe: used by the test's thread. */
    protected interface Subject {

        /** Schedules {@code task} to run {@code delayMs} from now on the ticker; the handle cancels it. */
        Handle schedule(Runnable task, long delayMs);

        /** Moves the ticker and lets the timer see it (a {@code WheelTimer}'s driver wakes; Kafka's is advanced). */
        void passTime(long ms) throws InterruptedException;

        /** Returns once every task due by the ticker's reading has run. */
        void settle() throws InterruptedException;

        /** Tasks scheduled and neither run nor cancelled. */
        long pending();

        /**
         * Stops the timer for good.
         *
         * @return the handles' {@link Handle#underlying()} objects of the tasks that never ran, for a timer that
         *         returns them; empty for one that documents dropping them
         */
        Optional<Set<?>> stop();
    }

    /** A scheduled task. */
    protected interface Handle {
        void cancel();

        /** The timer's own object for this schedule, as {@link Subject#stop()} returns it. */
        Object underlying();
    }

    protected final ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(50));
    private Subject timer;

    /**
     * Creates a timer keeping time on {@code ticker}, ticking every millisecond.
     *
     * @param ticker the clock
     * @return the adapted timer; the contract stops it after the test
     */
    protected abstract Subject newTimer(ManualTicker ticker);

    @BeforeEach
    protected void createTimer() {
        timer = newTimer(ticker);
    }

    @AfterEach
    protected void stopTimer() {
        timer.stop();
    }

    @Test
    void taskRunsOnceWhenItsDelayHasPassedNeverBefore() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        timer.schedule(runs::incrementAndGet, 100);
        timer.passTime(99);
        timer.settle();
        assertThat(runs).as("runs 1 ms before the deadline").hasValue(0);
        assertThat(timer.pending()).isOne();

        timer.passTime(1);
        Await.until("the task ran", () -> runs.get() == 1);
        timer.passTime(500);
        timer.settle();
        assertThat(runs).as("runs long after the deadline").hasValue(1);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void cancelledTaskNeverRuns() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Handle cancelledAtOnce = timer.schedule(runs::incrementAndGet, 10);
        Handle cancelledLater = timer.schedule(runs::incrementAndGet, 10);
        cancelledAtOnce.cancel();
        timer.passTime(5);
        timer.settle(); // the second is filed in the timer's structures by now
        cancelledLater.cancel();
        assertThat(timer.pending()).isZero();

        timer.passTime(100);
        timer.settle();
        assertThat(runs).hasValue(0);
    }

    @Test
    void pendingCountsTasksUntilTheyRunOrAreCancelled() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        timer.schedule(runs::incrementAndGet, 10);
        Handle second = timer.schedule(runs::incrementAndGet, 20);
        timer.schedule(runs::incrementAndGet, 30);
        assertThat(timer.pending()).isEqualTo(3);
        second.cancel();
        assertThat(timer.pending()).isEqualTo(2);

        timer.passTime(10);
        timer.settle();
        assertThat(runs).hasValue(1);
        assertThat(timer.pending()).isOne();
        timer.passTime(20);
        timer.settle();
        assertThat(runs).hasValue(2);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void tasksRunInDeadlineOrderWhenTimeJumpsPastThemAll() throws Exception {
        ConcurrentLinkedQueue<Long> order = new ConcurrentLinkedQueue<>();
        long[] delays = {30, 10, 20, 5, 25, 1, 15};
        for (long delay : delays) {
            timer.schedule(() -> order.add(delay), delay);
        }
        timer.passTime(40);
        Await.until("every task ran", () -> order.size() == delays.length);
        assertThat(order).containsExactly(1L, 5L, 10L, 15L, 20L, 25L, 30L);
    }

    @Test
    void zeroAndNegativeDelaysRunWithoutTimeMoving() {
        AtomicInteger runs = new AtomicInteger();
        timer.schedule(runs::incrementAndGet, 0);
        timer.schedule(runs::incrementAndGet, -5);
        timer.schedule(runs::incrementAndGet, Long.MIN_VALUE);
        Await.until("the due tasks ran", () -> runs.get() == 3);
    }

    @Test
    void throwingTaskDoesNotStopTheTimer() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        timer.schedule(() -> {
            throw new IllegalStateException("thrown on purpose by a contract test");
        }, 1);
        timer.schedule(runs::incrementAndGet, 1);
        timer.schedule(runs::incrementAndGet, 5);
        timer.passTime(1);
        Await.until("the task due with the throwing one ran", () -> runs.get() == 1);
        timer.passTime(4);
        Await.until("a later task ran", () -> runs.get() == 2);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void stopKeepsEveryTaskThatNeverRanFromRunningAndRefusesNewOnes() throws Exception {
        AtomicInteger ranBeforeStop = new AtomicInteger();
        AtomicInteger ranAfterStop = new AtomicInteger();
        timer.schedule(ranBeforeStop::incrementAndGet, 0);
        Await.until("the due task ran", () -> ranBeforeStop.get() == 1);
        timer.schedule(ranAfterStop::incrementAndGet, 10).cancel();
        List<Handle> neverRan = new ArrayList<>();
        neverRan.add(timer.schedule(ranAfterStop::incrementAndGet, 10));
        neverRan.add(timer.schedule(ranAfterStop::incrementAndGet, TimeUnit.HOURS.toMillis(1)));
        timer.passTime(5);
        timer.settle();

        Optional<Set<?>> unrun = timer.stop();
        unrun.ifPresent(set -> assertThat(new ArrayList<Object>(set)).as("the tasks that never ran")
                .containsExactlyInAnyOrderElementsOf(neverRan.stream().map(Handle::underlying).toList()));
        assertThat(timer.pending()).isZero();
        timer.passTime(TimeUnit.HOURS.toMillis(2));
        assertThat(ranAfterStop).hasValue(0);
        assertThatThrownBy(() -> timer.schedule(() -> { }, 1)).isInstanceOf(IllegalStateException.class);
        assertThat(timer.stop()).as("a second stop").satisfiesAnyOf(
                second -> assertThat(second).isEmpty(), second -> assertThat(second).hasValue(Set.of()));
    }
}

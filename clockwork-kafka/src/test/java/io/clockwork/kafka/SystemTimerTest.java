package io.clockwork.kafka;

import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.clockwork.time.Ticker;
import io.clockwork.kafka.KafkaFaceTesting.RecordingTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.clockwork.kafka.KafkaFaceTesting.PATIENCE;
import static io.clockwork.kafka.KafkaFaceTesting.drainTaskThread;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Kafka-face tests mirroring what Kafka's {@code TimerTest} checks, and the edges Kafka leaves open. */
class SystemTimerTest {

    private final ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(100));
    private final List<SystemTimer> timers = new ArrayList<>();
    private final ExecutorService helpers = Executors.newCachedThreadPool();

    private SystemTimer manualTimer(long tickMs, int wheelSize) {
        SystemTimer timer = new SystemTimer("test-" + timers.size(), tickMs, wheelSize, ticker);
        timers.add(timer);
        return timer;
    }

    private SystemTimer track(SystemTimer timer) {
        timers.add(timer);
        return timer;
    }

    @AfterEach
    void closeTimers() {
        helpers.shutdownNow();
        for (SystemTimer timer : timers) {
            timer.close();
            assertThat(timer.isTerminated()).as("task thread of %s ended", timer).isTrue();
        }
    }

    private void advanceMs(long ms) {
        ticker.advance(ms, TimeUnit.MILLISECONDS);
    }

    @Test
    void alreadyExpiredTasksRunAtOnceWithoutAdvancingTheClock() {
        SystemTimer timer = manualTimer(1, 3);
        List<RecordingTask> tasks = new ArrayList<>();
        for (int delay = -5; delay <= 0; delay++) {
            RecordingTask task = new RecordingTask(delay, delay, ticker);
            tasks.add(task);
            timer.add(task);
        }
        RecordingTask mostNegative = new RecordingTask(Long.MIN_VALUE, ticker);
        timer.add(mostNegative);
        tasks.add(mostNegative);

        for (RecordingTask task : tasks) {
            Await.until(task + " ran without advanceClock", task::ran);
        }
        assertThat(timer.size()).as("already expired tasks are never pending").isZero();
        assertThat(tasks).allSatisfy(t -> assertThat(t.runs).hasValue(1));
    }

    @Test
    void tasksExpireInTheTickOfTheirDeadlineNeverEarlyAcrossManyDelays() throws InterruptedException {
        SystemTimer timer = manualTimer(1, 3); // as Kafka's test: tiny wheel, so delays cascade through many levels
        long start = ticker.read();
        List<RecordingTask> tasks = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            tasks.add(new RecordingTask(i, i, ticker));
        }
        for (int i = 10; i < 100; i++) {
            tasks.add(new RecordingTask(i, i, ticker));
            tasks.add(new RecordingTask(i, i, ticker));
        }
        for (int i = 100; i < 500; i++) {
            tasks.add(new RecordingTask(i, i, ticker));
        }
        tasks.forEach(timer::add);
        assertThat(timer.size()).as("all but the zero-delay task pending").isEqualTo(tasks.size() - 1);
        Await.until("the zero-delay task ran at once", tasks.get(0)::ran);

        for (int ms = 1; ms <= 500; ms++) {
            advanceMs(1);
            boolean expected = tasks.stream().anyMatch(t -> t.delayMs == ticks(start));
            assertThat(timer.advanceClock(0)).as("advanceClock at %d ms", ms).isEqualTo(expected);
            int now = ms;
            long due = tasks.stream().filter(t -> t.delayMs <= now).count();
            Await.until(due + " tasks ran by " + now + " ms",
                    () -> tasks.stream().filter(RecordingTask::ran).count() == due);
            assertThat(tasks).filteredOn(RecordingTask::ran)
                    .allSatisfy(t -> assertThat(t.delayMs).as("%s never runs early", t).isLessThanOrEqualTo(now));
        }

        assertThat(tasks).allSatisfy(t -> {
            assertThat(t.runs).as("%s ran once", t).hasValue(1);
            assertThat(t.ranAtNanos - start).isEqualTo(TimeUnit.MILLISECONDS.toNanos(t.delayMs));
        });
        assertThat(timer.size()).isZero();
        assertThat(timer.advanceClock(0)).isFalse();
    }

    private long ticks(long start) {
        return TimeUnit.NANOSECONDS.toMillis(ticker.read() - start);
    }

    @Test
    void aTaskRunsWithinOneTickAfterItsDeadlineNeverBefore() throws InterruptedException {
        SystemTimer timer = manualTimer(10, 20);
        advanceMs(3); // deadlines off the tick grid
        RecordingTask task = new RecordingTask(25, ticker); // due at 28 ms; its tick ends at 30 ms
        timer.add(task);

        advanceMs(24); // 27 ms
        assertThat(timer.advanceClock(0)).isFalse();
        advanceMs(2); // 29 ms: past the deadline, inside its tick
        assertThat(timer.advanceClock(0)).isFalse();
        advanceMs(1); // 30 ms: the tick ends
        assertThat(timer.advanceClock(0)).isTrue();
        Await.until("the task ran", task::ran);
    }

    @Test
    void advanceClockReturnsFalseWhenNothingIsDueAndTrueWhenSomethingExpired() throws InterruptedException {
        SystemTimer timer = manualTimer(1, 20);
        assertThat(timer.advanceClock(0)).as("empty timer").isFalse();

        RecordingTask task = new RecordingTask(50, ticker);
        timer.add(task);
        advanceMs(49);
        assertThat(timer.advanceClock(0)).as("not yet due").isFalse();
        advanceMs(1);
        assertThat(timer.advanceClock(0)).as("due").isTrue();
        Await.until("the task ran", task::ran);
        assertThat(timer.advanceClock(0)).as("nothing left").isFalse();
    }

    @Test
    void advanceClockIgnoresCancelledTasksWhenReportingExpiry() throws InterruptedException {
        SystemTimer timer = manualTimer(1, 20);
        RecordingTask task = new RecordingTask(5, ticker);
        timer.add(task);
        task.cancel();
        advanceMs(5);
        assertThat(timer.advanceClock(0)).isFalse();
        drainTaskThread(timer);
        assertThat(task.ran()).isFalse();
    }

    @Test
    void advanceClockWaitsOnTheTickerForATaskToFallDue() throws Exception {
        SystemTimer timer = manualTimer(1, 20);
        RecordingTask task = new RecordingTask(5, ticker);
        timer.add(task);
        Future<Boolean> advanced = helpers.submit(() -> timer.advanceClock(60_000));
        Await.until("advanceClock waits", timer::isAdvancing);

        advanceMs(5); // the ticker's listener wakes the waiting advanceClock

        assertThat(advanced.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        Await.until("the task ran", task::ran);
    }

    @Test
    void advanceClockGivesUpWhenItsTimeoutPassesOnTheTicker() throws Exception {
        SystemTimer timer = manualTimer(1, 20);
        timer.add(new RecordingTask(1_000, ticker));
        Future<Boolean> advanced = helpers.submit(() -> timer.advanceClock(100));
        Await.until("advanceClock waits", timer::isAdvancing);

        advanceMs(99);
        assertThat(advanced).as("still waiting after 99 ms").isNotDone();
        advanceMs(1);

        assertThat(advanced.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isFalse();
        assertThat(timer.size()).isEqualTo(1);
    }

    @Test
    void anEarlierAddWakesAWaitingAdvanceClock() throws Exception {
        SystemTimer timer = track(new SystemTimer("wake"));
        timer.add(new RecordingTask(TimeUnit.HOURS.toMillis(1), Ticker.system()));
        long started = System.nanoTime();
        Future<Boolean> advanced = helpers.submit(() -> timer.advanceClock(60_000));
        Await.until("advanceClock waits", timer::isAdvancing);

        RecordingTask soon = new RecordingTask(20, Ticker.system());
        timer.add(soon);

        assertThat(advanced.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        Await.until("the early task ran", soon::ran);
        assertThat(System.nanoTime() - started).as("woken long before its 60 s timeout")
                .isLessThan(TimeUnit.SECONDS.toNanos(30));
    }

    @Test
    void advanceClockOnSystemTimeTimesOutAfterTheGivenMilliseconds() throws InterruptedException {
        SystemTimer timer = track(new SystemTimer("timeout"));
        long started = System.nanoTime();
        assertThat(timer.advanceClock(50)).isFalse();
        assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
    }

    @Test
    void aLongAdvanceClockStillTakesCancelledTasksOffTheInboxWithinMilliseconds() throws Exception {
        // A reaper waits up to 200 ms per call; the owner must not leave what arrives meanwhile in the inbox, where
        // cancelled tasks would stay reachable (and be copied by every young GC) until the wait ends.
        SystemTimer timer = manualTimer(1, 20);
        timer.add(new RecordingTask(TimeUnit.HOURS.toMillis(1), ticker)); // the owner is not idle
        timer.advanceClock(0);
        advanceMs(100);
        timer.advanceClock(0); // past the nursery sweep: the owner now has no reason of its own to wake soon
        Future<Boolean> advancing = helpers.submit(() -> timer.advanceClock(TimeUnit.MINUTES.toMillis(10)));
        Await.until("advanceClock waits", timer::isAdvancing);
        for (int i = 0; i < 1000; i++) {
            TimerTask task = new RecordingTask(TimeUnit.HOURS.toMillis(1), ticker);
            timer.add(task);
            task.cancel();
        }
        Await.until("the waiting owner took the cancelled tasks", () -> timer.core().inboxIsEmpty());
        assertThat(advancing).isNotDone();
        assertThat(timer.size()).isEqualTo(1);
    }

    @Test
    void advanceClockThrowsWhenTheCallerIsInterrupted() {
        SystemTimer timer = manualTimer(1, 20);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> timer.advanceClock(10)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).as("flag cleared, as InterruptedException does").isFalse();
    }

    @Test
    void concurrentAdvanceClockCallersAreSerialisedAndRunEachTaskOnce() throws Exception {
        SystemTimer timer = track(new SystemTimer("serialised"));
        List<RecordingTask> tasks = new ArrayList<>();
        for (int i = 1; i <= 200; i++) {
            RecordingTask task = new RecordingTask(i % 20 + 1, i, Ticker.system());
            tasks.add(task);
            timer.add(task);
        }
        AtomicInteger trueResults = new AtomicInteger();
        List<CompletableFuture<Void>> callers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            callers.add(CompletableFuture.runAsync(() -> {
                long deadline = System.nanoTime() + PATIENCE.toNanos();
                try {
                    while (tasks.stream().anyMatch(t -> !t.ran()) && System.nanoTime() - deadline < 0) {
                        if (timer.advanceClock(5)) {
                            trueResults.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, helpers));
        }
        CompletableFuture.allOf(callers.toArray(CompletableFuture[]::new))
                .get(2 * PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(tasks).allSatisfy(t -> assertThat(t.runs).as("%s ran once", t).hasValue(1));
        assertThat(trueResults.get()).isPositive();
        assertThat(timer.size()).isZero();
    }

    @Test
    void readdingATaskKeepsOnlyItsNewestSchedule() throws InterruptedException {
        SystemTimer timer = manualTimer(1, 20);
        RecordingTask task = new RecordingTask(10, ticker);
        timer.add(task);
        advanceMs(5);
        timer.add(task); // now due at 15 ms
        assertThat(timer.size()).as("re-adding does not change the count").isEqualTo(1);

        advanceMs(5);
        assertThat(timer.advanceClock(0)).as("the first schedule is gone").isFalse();
        advanceMs(5);
        assertThat(timer.advanceClock(0)).isTrue();
        drainTaskThread(timer);
        assertThat(task.runs).hasValue(1);
        assertThat(timer.size()).isZero();
    }

    @Test
    void readdingATaskToAnotherTimerMovesIt() throws InterruptedException {
        SystemTimer first = manualTimer(1, 20);
        SystemTimer second = manualTimer(1, 20);
        RecordingTask task = new RecordingTask(10, ticker);
        first.add(task);
        second.add(task);
        assertThat(first.size()).isZero();
        assertThat(second.size()).isEqualTo(1);

        advanceMs(10);
        assertThat(first.advanceClock(0)).isFalse();
        assertThat(second.advanceClock(0)).isTrue();
        drainTaskThread(second);
        drainTaskThread(first);
        assertThat(task.runs).hasValue(1);
    }

    @Test
    void readdingATaskThatAlreadyRanRunsItAgain() throws InterruptedException {
        SystemTimer timer = manualTimer(1, 20);
        RecordingTask task = new RecordingTask(3, ticker);
        timer.add(task);
        advanceMs(3);
        timer.advanceClock(0);
        Await.until("first run", task::ran);
        timer.add(task);
        advanceMs(3);
        assertThat(timer.advanceClock(0)).isTrue();
        Await.until("second run", () -> task.runs.get() == 2);
    }

    @Test
    void cancelledTaskNeverRunsAndLeavesSize() throws InterruptedException {
        SystemTimer timer = manualTimer(1, 20);
        RecordingTask kept = new RecordingTask(10, 1, ticker);
        RecordingTask cancelled = new RecordingTask(10, 2, ticker);
        RecordingTask cancelledEarly = new RecordingTask(3, 3, ticker);
        timer.add(kept);
        timer.add(cancelled);
        timer.add(cancelledEarly);
        assertThat(timer.size()).isEqualTo(3);

        cancelled.cancel();
        cancelledEarly.cancel();
        cancelled.cancel(); // idempotent
        assertThat(timer.size()).isEqualTo(1);

        advanceMs(10);
        assertThat(timer.advanceClock(0)).isTrue();
        drainTaskThread(timer);
        assertThat(kept.runs).hasValue(1);
        assertThat(cancelled.ran()).isFalse();
        assertThat(cancelledEarly.ran()).isFalse();
        assertThat(timer.size()).isZero();
    }

    @Test
    void sizeCountsPendingTasksOnly() throws InterruptedException {
        SystemTimer timer = manualTimer(1, 20);
        assertThat(timer.size()).isZero();
        for (int i = 1; i <= 100; i++) {
            timer.add(new RecordingTask(i, i, ticker));
        }
        timer.add(new RecordingTask(0, ticker)); // already due: runs at once, never pending
        assertThat(timer.size()).isEqualTo(100);

        advanceMs(40);
        timer.advanceClock(0);
        assertThat(timer.size()).isEqualTo(60);
        advanceMs(60);
        timer.advanceClock(0);
        assertThat(timer.size()).isZero();
    }

    @Test
    void isCancelledFollowsKafkasDefinition() throws InterruptedException {
        SystemTimer timer = manualTimer(1, 20);
        RecordingTask task = new RecordingTask(5, ticker);
        assertThat(task.isCancelled()).as("never added").isTrue();
        timer.add(task);
        assertThat(task.isCancelled()).as("scheduled").isFalse();
        task.cancel();
        assertThat(task.isCancelled()).as("cancelled").isTrue();
        timer.add(task);
        assertThat(task.isCancelled()).as("added again").isFalse();
        advanceMs(5);
        timer.advanceClock(0);
        Await.until("the task ran", task::ran);
        assertThat(task.isCancelled()).as("ran").isFalse();
        task.cancel();
        assertThat(task.isCancelled()).as("cancelled after it ran").isTrue();
        assertThat(task.runs).hasValue(1);
    }

    @Test
    void tasksRunOnANonDaemonThreadNamedAfterTheExecutor() {
        SystemTimer timer = track(new SystemTimer("purgatory"));
        RecordingTask task = new RecordingTask(0, Ticker.system());
        timer.add(task);
        Await.until("the task ran", task::ran);
        assertThat(task.ranOn.getName()).isEqualTo(SystemTimer.SYSTEM_TIMER_THREAD_PREFIX + "purgatory")
                .isEqualTo("executor-purgatory");
        assertThat(task.ranOn.isDaemon()).isFalse();
    }

    @Test
    void aTaskThatThrowsDoesNotStopTheOthers() {
        SystemTimer timer = manualTimer(1, 20);
        timer.add(new TimerTask(0) {
            @Override
            public void run() {
                throw new IllegalStateException("boom (expected by the test)");
            }
        });
        RecordingTask after = new RecordingTask(0, ticker);
        timer.add(after);
        Await.until("the next task ran", after::ran);
    }

    @Test
    void addAfterCloseIsRejectedNamingTheTimer() {
        SystemTimer timer = manualTimer(1, 20);
        timer.close();
        assertThatThrownBy(() -> timer.add(new RecordingTask(10, ticker)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'test-0'");
        assertThatThrownBy(() -> timer.add(new RecordingTask(0, ticker)))
                .as("an already-due task too")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'test-0'");
    }

    @Test
    void closeAbandonsPendingTasksStopsTheTaskThreadAndIsIdempotent() throws InterruptedException {
        SystemTimer timer = manualTimer(1, 20);
        RecordingTask pending = new RecordingTask(5, ticker);
        timer.add(pending);

        timer.close();
        timer.close();

        assertThat(timer.isTerminated()).isTrue();
        assertThat(timer.size()).isZero();
        advanceMs(5);
        assertThat(timer.advanceClock(0)).isFalse();
        assertThat(pending.ran()).isFalse();
        assertThat(pending.isCancelled()).as("as in Kafka, close does not cancel").isFalse();
    }

    @Test
    void aCancelAfterCloseMakesTheTaskReadAsCancelled() {
        SystemTimer timer = manualTimer(1, 20);
        RecordingTask pending = new RecordingTask(5, ticker);
        timer.add(pending);
        timer.close();

        pending.cancel();

        assertThat(pending.isCancelled()).as("as in Kafka, a cancel after close unbinds the task").isTrue();
    }

    @Test
    void aTimerDrivenByHandDatesFarTasksAtAdd() {
        SystemTimer timer = track(new SystemTimer("by-hand"));
        long hourNanos = TimeUnit.HOURS.toNanos(1);
        RecordingTask far = new RecordingTask(TimeUnit.HOURS.toMillis(1), Ticker.system());

        long lower = timer.core().deadlineAfter(hourNanos);
        timer.add(far);
        long upper = timer.core().deadlineAfter(hourNanos);

        // Nothing bounds when advanceClock next runs, so the add itself must date the task.
        assertThat(far.entry().deadline()).as("dated at add").isBetween(lower, upper);
    }

    @Test
    void closeLetsTasksAlreadyHandedOverFinish() {
        SystemTimer timer = manualTimer(1, 20);
        CompletableFuture<Void> release = new CompletableFuture<>();
        AtomicInteger finished = new AtomicInteger();
        timer.add(new TimerTask(0) {
            @Override
            public void run() {
                release.join();
                finished.incrementAndGet();
            }
        });
        RecordingTask queued = new RecordingTask(0, ticker);
        timer.add(queued);
        CompletableFuture<Void> closed = CompletableFuture.runAsync(timer::close, helpers);
        Await.until("close began", () -> timer.core().isStopped());
        release.complete(null);
        closed.join();
        assertThat(finished).hasValue(1);
        assertThat(queued.ran()).isTrue();
    }

    @Test
    void advanceClockReturnsPromptlyWhenTheTimerIsClosed() throws Exception {
        SystemTimer timer = manualTimer(1, 20);
        Future<Boolean> advanced = helpers.submit(() -> timer.advanceClock(Long.MAX_VALUE));
        Await.until("advanceClock waits", timer::isAdvancing);
        timer.close();
        assertThat(advanced.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isFalse();
    }

    @Test
    void nullTaskAndNameAreRejectedNamingThem() {
        SystemTimer timer = manualTimer(1, 20);
        assertThatThrownBy(() -> timer.add(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("timerTask");
        assertThatThrownBy(() -> new SystemTimer(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("executorName");
        assertThatThrownBy(() -> new SystemTimer("x", 1, 20, (Ticker) null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("ticker");
    }

    @ParameterizedTest
    @CsvSource({"0, 20, tickMs", "-1, 20, tickMs", "1, 0, wheelSize", "1, -20, wheelSize"})
    void tickOrWheelSizeOutOfRangeIsRejectedNamingTheArgumentAndRange(long tickMs, int wheelSize, String argument) {
        assertThatThrownBy(() -> new SystemTimer("bad", tickMs, wheelSize, 0L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(argument + " must be in [1, ")
                .hasMessageContaining("was " + (argument.equals("tickMs") ? tickMs : wheelSize));
    }

    @ParameterizedTest
    @CsvSource({"1, 2", "2, 2", "3, 4", "20, 32", "32, 32", "33, 64", "64, 64", "65, 64", "2147483647, 64"})
    void anyWheelSizeMapsToAPowerOfTwoLevel(int kafkaSize, int engineSize) {
        assertThat(SystemTimer.engineWheelSize(kafkaSize)).isEqualTo(engineSize);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 20, 64, 1000})
    void wheelSizeChangesLayoutNotWhenTasksRun(int wheelSize) throws InterruptedException {
        SystemTimer timer = manualTimer(2, wheelSize);
        long start = ticker.read();
        List<RecordingTask> tasks = new ArrayList<>();
        for (long delay : new long[] {1, 3, 7, 64, 65, 1000, 4097, 100_000}) {
            RecordingTask task = new RecordingTask(delay, ticker);
            tasks.add(task);
            timer.add(task);
        }
        for (RecordingTask task : tasks) {
            long tickEndNanos = TimeUnit.MILLISECONDS.toNanos((task.delayMs + 1) / 2 * 2); // 2 ms ticks
            ticker.advance(start + tickEndNanos - ticker.read() - 1, TimeUnit.NANOSECONDS);
            assertThat(timer.advanceClock(0)).as("%s: 1 ns before its tick ends", task).isFalse();
            ticker.advance(1, TimeUnit.NANOSECONDS);
            assertThat(timer.advanceClock(0)).as("%s: its tick ends", task).isTrue();
            Await.until(task + " ran when its tick ended", task::ran);
        }
    }

    @Test
    void startMsFromAnyClockNeitherDelaysNorHastensTasks() throws InterruptedException {
        long hiResNow = TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
        for (long startMs : new long[] {hiResNow, 0L, -7L, Long.MIN_VALUE, Long.MAX_VALUE, hiResNow + 3_600_000}) {
            SystemTimer timer = track(new SystemTimer("start-" + timers.size(), 5, 20, startMs));
            RecordingTask task = new RecordingTask(30, Ticker.system());
            long added = System.nanoTime();
            timer.add(task);
            long deadline = added + PATIENCE.toNanos();
            while (!task.ran() && System.nanoTime() - deadline < 0) {
                timer.advanceClock(100);
            }
            Await.until(task + " ran with startMs " + startMs, task::ran);
            assertThat(task.ranAtNanos - added).as("startMs %d: never early", startMs)
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
        }
    }

    @Test
    void delaysPastTwoHundredNinetyYearsSaturate() throws InterruptedException {
        SystemTimer timer = manualTimer(1, 20);
        RecordingTask forever = new RecordingTask(Long.MAX_VALUE, ticker);
        RecordingTask century = new RecordingTask(TimeUnit.DAYS.toMillis(365L * 100), ticker);
        timer.add(forever);
        timer.add(century);
        assertThat(timer.size()).isEqualTo(2);

        ticker.advance(TimeUnit.DAYS.toNanos(365L * 100), TimeUnit.NANOSECONDS);
        assertThat(timer.advanceClock(0)).isTrue();
        drainTaskThread(timer);
        assertThat(century.ran()).isTrue();
        assertThat(forever.ran()).isFalse();
        assertThat(timer.size()).isEqualTo(1);
    }
}

package io.clockwork.kafka;

import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.clockwork.time.Ticker;
import io.clockwork.kafka.KafkaFaceTesting.RecordingTask;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static io.clockwork.kafka.KafkaFaceTesting.PATIENCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What Kafka's {@code SystemTimerReaperTest} checks: the reaper drives the timer and closes it. */
class SystemTimerReaperTest {

    /** Fails its future when it runs, as Kafka's test task does. */
    private static final class FutureTimerTask extends TimerTask {
        final CompletableFuture<Void> future = new CompletableFuture<>();

        FutureTimerTask(long delayMs) {
            super(delayMs);
        }

        @Override
        public void run() {
            future.completeExceptionally(new TimeoutException("expired after " + delayMs + " ms"));
        }
    }

    private static CompletableFuture<Void> add(Timer timer, long delayMs) {
        FutureTimerTask task = new FutureTimerTask(delayMs);
        timer.add(task);
        return task.future;
    }

    private static void assertExpires(CompletableFuture<Void> future) {
        assertThat(future).failsWithin(PATIENCE).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(TimeoutException.class);
    }

    @Test
    void reaperDrivesTheTimerOnSystemTime() throws Exception {
        try (Timer timer = new SystemTimerReaper("reaper", new SystemTimer("timer"))) {
            CompletableFuture<Void> t1 = add(timer, 100L);
            CompletableFuture<Void> t2 = add(timer, 200L);
            CompletableFuture<Void> t3 = add(timer, 300L);
            assertExpires(t1);
            assertExpires(t2);
            assertExpires(t3);
            assertThat(timer.size()).isZero();
        }
    }

    @Test
    void reaperDrivesAManualTickerTimerAsTheTestMovesTime() throws Exception {
        ManualTicker ticker = new ManualTicker(Long.MIN_VALUE);
        try (Timer timer = new SystemTimerReaper("manual-reaper", new SystemTimer("manual", 1, 20, ticker))) {
            RecordingTask early = new RecordingTask(50, ticker);
            RecordingTask late = new RecordingTask(5_000, ticker);
            timer.add(early);
            timer.add(late);
            long start = ticker.read();

            ticker.advance(50, TimeUnit.MILLISECONDS);
            Await.until("the reaper expired the 50 ms task", early::ran);
            assertThat(late.ran()).isFalse();
            assertThat(timer.size()).isEqualTo(1);

            ticker.advance(4_950, TimeUnit.MILLISECONDS);
            Await.until("the reaper expired the 5 s task", late::ran);
            assertThat(early.ranAtNanos - start).isEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
            assertThat(late.ranAtNanos - start).isEqualTo(TimeUnit.MILLISECONDS.toNanos(5_000));
        }
    }

    @Test
    void sharedTimerKeepsWorkingAfterOneConsumersTasksComplete() throws Exception {
        try (Timer timer = new SystemTimerReaper("shared-reaper", new SystemTimer("shared-timer"))) {
            CompletableFuture<Void> consumer1 = add(timer, 100L);
            CompletableFuture<Void> consumer2 = add(timer, 200L);
            assertExpires(consumer1);
            assertExpires(consumer2);

            CompletableFuture<Void> consumer2Late = add(timer, 100L);
            assertExpires(consumer2Late);
        }
    }

    @Test
    void cancelledTaskNeverRunsUnderTheReaper() throws Exception {
        ManualTicker ticker = new ManualTicker();
        try (Timer timer = new SystemTimerReaper("cancel-reaper", new SystemTimer("cancel", 1, 20, ticker))) {
            RecordingTask cancelled = new RecordingTask(10, ticker);
            RecordingTask kept = new RecordingTask(20, ticker);
            timer.add(cancelled);
            timer.add(kept);
            cancelled.cancel();
            assertThat(timer.size()).isEqualTo(1);
            ticker.advance(20, TimeUnit.MILLISECONDS);
            Await.until("the kept task ran", kept::ran);
            assertThat(cancelled.ran()).isFalse();
        }
    }

    @Test
    void aReaperDatesFarTasksWhenItTakesThemNeverBeforeTheAdd() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        SystemTimer held = new SystemTimer("held") {
            @Override
            public boolean advanceClock(long timeoutMs) throws InterruptedException {
                release.await(); // the reaper takes nothing in until the test lets it
                return super.advanceClock(timeoutMs);
            }
        };
        try (Timer timer = new SystemTimerReaper("held-reaper", held)) {
            long hourNanos = TimeUnit.HOURS.toNanos(1);
            RecordingTask far = new RecordingTask(TimeUnit.HOURS.toMillis(1), Ticker.system());
            RecordingTask near = new RecordingTask(1_000, Ticker.system());

            timer.add(far);
            timer.add(near);
            assertThat(~far.entry().deadline()).as("a far task is left undated: add reads no clock for it")
                    .isEqualTo(hourNanos);
            assertThat(near.entry().deadline()).as("a task of seconds is dated at add").isNotNegative();
            assertThat(timer.size()).isEqualTo(2);

            long lower = held.core().deadlineAfter(hourNanos);
            release.countDown();
            Await.until("the reaper dates the far task", () -> far.entry().deadline() >= 0);
            long upper = held.core().deadlineAfter(hourNanos);
            assertThat(far.entry().deadline()).as("dated by the reaper, after it took the task")
                    .isBetween(lower, upper);
            far.cancel();
            assertThat(timer.size()).isEqualTo(1);
        }
    }

    @Test
    void closeStopsTheReaperAndClosesTheWrappedTimerOnce() throws Exception {
        CountingTimer wrapped = new CountingTimer();
        SystemTimerReaper reaper = new SystemTimerReaper("reaper", wrapped);
        Await.until("the reaper calls advanceClock", () -> wrapped.advances.get() > 0);

        reaper.close();
        reaper.close();

        assertThat(wrapped.closes).hasValue(1);
        assertThat(reaper.isShutdown()).isTrue();
    }

    @Test
    void closeInterruptsAReaperBlockedInAdvanceClock() throws Exception {
        CountingTimer wrapped = new CountingTimer();
        wrapped.blockForever = true;
        SystemTimerReaper reaper = new SystemTimerReaper("blocked-reaper", wrapped);
        assertThat(wrapped.entered.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> {
            try {
                reaper.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        closed.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(reaper.isShutdown()).isTrue();
        assertThat(wrapped.closes).hasValue(1);
    }

    @Test
    void closeOfASystemTimerReaperClosesTheSystemTimer() throws Exception {
        SystemTimer systemTimer = new SystemTimer("closing");
        SystemTimerReaper reaper = new SystemTimerReaper("closing-reaper", systemTimer);
        long started = System.nanoTime();
        reaper.close();
        assertThat(System.nanoTime() - started).as("close is prompt")
                .isLessThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(systemTimer.isTerminated()).isTrue();
        assertThatThrownBy(() -> reaper.add(new RecordingTask(10, Ticker.system())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'closing'");
    }

    @Test
    void addSizeAndAdvanceClockDelegateToTheWrappedTimer() throws Exception {
        CountingTimer wrapped = new CountingTimer();
        try (SystemTimerReaper reaper = new SystemTimerReaper("delegating", wrapped)) {
            reaper.add(new RecordingTask(1, Ticker.system()));
            assertThat(wrapped.adds).hasValue(1);
            assertThat(reaper.size()).isEqualTo(42);
            int before = wrapped.advances.get();
            assertThat(reaper.advanceClock(0)).isFalse();
            assertThat(wrapped.advances.get()).isGreaterThan(before);
        }
    }

    @Test
    void rejectsNullNameAndNullTimer() {
        assertThatThrownBy(() -> new SystemTimerReaper(null, new CountingTimer()))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("reaperThreadName");
        assertThatThrownBy(() -> new SystemTimerReaper("reaper", null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("timer");
    }

    /** A stand-in timer that counts calls; its advanceClock waits (interruptibly) as a real one would. */
    private static final class CountingTimer implements Timer {
        final AtomicInteger adds = new AtomicInteger();
        final AtomicInteger advances = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch never = new CountDownLatch(1);
        volatile boolean blockForever;

        @Override
        public void add(TimerTask timerTask) {
            adds.incrementAndGet();
        }

        @Override
        public boolean advanceClock(long timeoutMs) throws InterruptedException {
            advances.incrementAndGet();
            entered.countDown();
            if (blockForever) {
                never.await();
            } else {
                never.await(Math.min(timeoutMs, 5), TimeUnit.MILLISECONDS);
            }
            return false;
        }

        @Override
        public int size() {
            return 42;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }
}

package io.clockwork.engine;

import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.clockwork.time.Ticker;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SharedDriverTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - 5 * MS);

    @Test
    void oneTickerSharesOneThreadThatStartsWithTheFirstLeaseAndStopsWithTheLast() {
        assertThat(SharedDriver.isRunning(ticker)).isFalse();
        SharedDriver first = SharedDriver.acquire(ticker);
        SharedDriver second = SharedDriver.acquire(ticker);
        assertThat(second).isSameAs(first);
        assertThat(first.thread().getName()).startsWith(SharedDriver.THREAD_NAME);
        assertThat(first.thread().isDaemon()).isTrue();
        first.release();
        assertThat(SharedDriver.isRunning(ticker)).isTrue();
        second.release();
        assertThat(SharedDriver.isRunning(ticker)).isFalse();
        Await.until("the driver thread ends after the last release", () -> !first.thread().isAlive());
        Await.until("the ended driver stops watching the ticker", () -> ticker.watchCount() == 0);
        assertThatThrownBy(first::release).isInstanceOf(IllegalStateException.class).hasMessageContaining("no lease");
        SharedDriver again = SharedDriver.acquire(ticker);
        try {
            assertThat(again).isNotSameAs(first);
        } finally {
            again.release();
        }
    }

    @Test
    void tasksRunOnTheDriverThreadInDeadlineOrderWhenTheTickerJumpsAndCancelledOnesNever() {
        SharedDriver driver = SharedDriver.acquire(ticker);
        try {
            List<String> ran = new CopyOnWriteArrayList<>();
            List<Thread> threads = new CopyOnWriteArrayList<>();
            driver.schedule(() -> ran.add("30ms"), 30 * MS);
            driver.schedule(() -> ran.add("10ms"), 10 * MS);
            SharedDriver.Task cancelled = driver.schedule(() -> ran.add("cancelled"), 20 * MS);
            driver.schedule(() -> threads.add(Thread.currentThread()), 20 * MS);
            assertThat(cancelled.cancel()).isTrue();
            assertThat(cancelled.cancel()).isFalse();
            ticker.advance(9, TimeUnit.MILLISECONDS);
            AtomicInteger marker = new AtomicInteger();
            driver.schedule(marker::incrementAndGet, 0);
            Await.until("a task due now runs after the jump", () -> marker.get() == 1);
            assertThat(ran).as("tasks not due 9 ms on").isEmpty();
            ticker.advance(1, TimeUnit.HOURS);
            Await.until("both tasks run", () -> ran.size() == 2);
            assertThat(ran).containsExactly("10ms", "30ms");
            assertThat(threads).containsExactly(driver.thread());
        } finally {
            driver.release();
        }
    }

    @Test
    void aThrowingTaskLeavesTheDriverRunningAndATaskMayReleaseTheLastLease() {
        SharedDriver driver = SharedDriver.acquire(ticker);
        AtomicInteger after = new AtomicInteger();
        driver.schedule(() -> {
            throw new IllegalStateException("thrown by a test task");
        }, MS);
        driver.schedule(after::incrementAndGet, 2 * MS);
        driver.schedule(driver::release, 3 * MS);
        ticker.advance(5, TimeUnit.MILLISECONDS);
        Await.until("the task after the throwing one runs", () -> after.get() == 1);
        Await.until("the task that released the last lease stopped the driver",
                () -> !driver.thread().isAlive());
        assertThat(SharedDriver.isRunning(ticker)).isFalse();
        assertThatThrownBy(() -> driver.schedule(() -> { }, MS)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aTaskScheduledAtAReadingComesDueThereEvenIfTheTickerJumpsBeforeTheSchedulerReadsIt() {
        JumpingTicker jumping = new JumpingTicker(ticker);
        SharedDriver driver = SharedDriver.acquire(jumping);
        try {
            AtomicInteger ran = new AtomicInteger();
            long at = jumping.read() + 5 * MS;
            // Between the caller's reading and the driver's, time moves 3 ms (another thread's advance; a pause).
            jumping.jumpAtNextReadBy(Thread.currentThread(), 3 * MS);
            driver.scheduleAt(ran::incrementAndGet, at);
            assertThat(jumping.jumped()).as("the driver read the ticker after the jump").isTrue();

            ticker.advance(1, TimeUnit.MILLISECONDS); // 1 ms before `at`
            AtomicInteger marker = new AtomicInteger();
            driver.schedule(marker::incrementAndGet, 0);
            Await.until("a task due now runs", () -> marker.get() == 1);
            assertThat(ran).as("not due 1 ms before its reading").hasValue(0);

            // One tick past `at` (the wheel's rounding); a deadline taken as a delay from the driver's own reading
            // would be 3 ms later and never come due while the ticker stands here.
            ticker.advance(2, TimeUnit.MILLISECONDS);
            Await.until("the task runs at its reading", () -> ran.get() == 1);
        } finally {
            driver.release();
        }
    }

    /** A manual ticker that jumps once, on a given thread's next reading, before returning it. Thread-safe. */
    private static final class JumpingTicker implements Ticker {
        private final ManualTicker time;
        private volatile Thread reader;
        private volatile long jumpNanos;
        private volatile boolean jumped;

        JumpingTicker(ManualTicker time) {
            this.time = time;
        }

        void jumpAtNextReadBy(Thread thread, long nanos) {
            jumpNanos = nanos;
            reader = thread;
        }

        boolean jumped() {
            return jumped;
        }

        @Override
        public long read() {
            if (reader == Thread.currentThread()) {
                reader = null;
                time.advance(jumpNanos, TimeUnit.NANOSECONDS);
                jumped = true;
            }
            return time.read();
        }

        @Override
        public Watch watch(Runnable onJump) {
            return time.watch(onJump);
        }
    }
}

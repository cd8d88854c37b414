package io.clockwork.timer;

import io.clockwork.engine.TimerCore;
import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.clockwork.time.Ticker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WheelTimerTest {

    private final ManualTicker ticker = new ManualTicker();
    private final List<WheelTimer> timers = new ArrayList<>();

    @AfterEach
    void stopTimers() {
        timers.forEach(WheelTimer::stop);
    }

    private WheelTimer manualTimer() {
        return track(WheelTimer.builder().ticker(ticker).name("test-timer").build());
    }

    private WheelTimer track(WheelTimer t) {
        timers.add(t);
        return t;
    }

    /**
     * Returns once the driver has finished every pass that began before this call: a first probe proves a pass
     * ran after the call, a second that the pass which ran the first has completed.
     */
    static void quiesce(WheelTimer timer) throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            CountDownLatch ran = new CountDownLatch(1);
            timer.schedule(ran::countDown, Duration.ZERO);
            assertThat(ran.await(20, TimeUnit.SECONDS)).as("probe ran").isTrue();
        }
    }

    @Test
    void countsScheduledCancelledAndExpiredAndReportsLateness() throws InterruptedException {
        List<Long> lateness = new java.util.concurrent.CopyOnWriteArrayList<>();
        WheelTimer timer = track(WheelTimer.builder().ticker(ticker).name("counted").latenessListener(lateness::add)
                .build());
        CountDownLatch ran = new CountDownLatch(2);
        timer.schedule(ran::countDown, Duration.ofMillis(10));
        timer.schedule(ran::countDown, Duration.ofMillis(10));
        timer.schedule(() -> { }, Duration.ofMillis(10)).cancel();
        timer.schedule(() -> { }, Duration.ofHours(1));
        assertThat(timer.scheduledCount()).isEqualTo(4);
        assertThat(timer.cancelledCount()).isEqualTo(1);
        ticker.advance(Duration.ofMillis(25)); // 15 ms past the deadline when the driver sees it
        assertThat(ran.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(timer.expiredCount()).isEqualTo(2);
        assertThat(timer.pendingCount()).isEqualTo(1);
        assertThat(lateness).hasSize(2).allMatch(n -> n == Duration.ofMillis(15).toNanos());
        timer.stop();
        assertThat(timer.expiredCount()).as("abandoned timeouts are not expired").isEqualTo(2);
    }

    @Test
    void latenessListenerIsSetOnce() {
        WheelTimer.Builder b = WheelTimer.builder().latenessListener(n -> { });
        assertThatThrownBy(() -> b.latenessListener(n -> { })).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("latenessListener");
        assertThatThrownBy(() -> WheelTimer.builder().latenessListener(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("latenessListener");
    }

    @Test
    void driverSleepsBetweenPassesWhileAProducerKeepsScheduling() {
        // A producer that never pauses always has a fresh timeout in its lane. The driver must take such timeouts
        // in and sleep until it has work, not refuse to sleep while any wait: that spun a whole core. Its passes
        // are counted by its clock reads (a few per pass); the clock stands still, so it has nothing to expire.
        AtomicReference<Thread> driver = new AtomicReference<>();
        AtomicLong driverReads = new AtomicLong();
        Ticker stopped = () -> {
            if (Thread.currentThread() == driver.get()) {
                driverReads.incrementAndGet();
            }
            return 0L;
        };
        WheelTimer timer = track(WheelTimer.builder().ticker(stopped).name("steady-producer").threadFactory(r -> {
            Thread t = new Thread(r, "steady-producer");
            t.setDaemon(true);
            driver.set(t);
            return t;
        }).build());
        long start = System.nanoTime();
        long scheduled = 0;
        do {
            for (int i = 0; i < 1_000; i++) {
                timer.schedule(() -> { }, Duration.ofHours(1)).cancel();
            }
            scheduled += 1_000;
        } while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(300));
        // Asleep between passes, it wakes every few milliseconds, and when the producer's lane passes its backlog:
        // some hundreds to a few thousand reads (262-5,425 in six runs). Spinning, it made tens of thousands of
        // passes in this time, each of at least three reads.
        assertThat(driverReads.get()).as("driver clock reads while %d timers were scheduled", scheduled)
                .isLessThan(10_000);
        assertThat(timer.pendingCount()).isZero();
    }

    @Test
    void taskRunsOnceWhenItsDelayHasPassedNeverBefore() throws Exception {
        WheelTimer timer = manualTimer();
        AtomicInteger runs = new AtomicInteger();
        Timeout t = timer.schedule(runs::incrementAndGet, Duration.ofMillis(100));
        ticker.advance(99, TimeUnit.MILLISECONDS);
        quiesce(timer);
        assertThat(runs).hasValue(0);
        assertThat(t.isExpired()).isFalse();
        assertThat(timer.pendingCount()).isOne();
        ticker.advance(1, TimeUnit.MILLISECONDS);
        Await.until("the task ran", () -> runs.get() == 1);
        quiesce(timer);
        assertThat(runs).hasValue(1);
        assertThat(t.isExpired()).isTrue();
        assertThat(t.cancel()).isFalse();
        assertThat(timer.pendingCount()).isZero();
    }

    @Test
    void cancelledTaskNeverRuns() throws Exception {
        WheelTimer timer = manualTimer();
        AtomicInteger runs = new AtomicInteger();
        Timeout t = timer.schedule(runs::incrementAndGet, 10, TimeUnit.MILLISECONDS);
        assertThat(t.cancel()).isTrue();
        assertThat(t.cancel()).isFalse();
        assertThat(t.isCancelled()).isTrue();
        ticker.advance(Duration.ofSeconds(1));
        quiesce(timer);
        assertThat(runs).hasValue(0);
        assertThat(t.isExpired()).isFalse();
        assertThat(timer.pendingCount()).isZero();
    }

    @Test
    void cancelAfterTheTimerLinkedItStillWins() throws Exception {
        WheelTimer timer = manualTimer();
        AtomicInteger runs = new AtomicInteger();
        Timeout t = timer.schedule(runs::incrementAndGet, Duration.ofMillis(10));
        quiesce(timer); // now in the wheel, not the inbox
        assertThat(t.cancel()).isTrue();
        ticker.advance(Duration.ofMillis(10));
        quiesce(timer);
        assertThat(runs).hasValue(0);
    }

    @Test
    void tasksRunInDeadlineOrder() throws Exception {
        WheelTimer timer = manualTimer();
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        int[] delays = {500, 3, 70_000, 64, 4_096, 1, 262_144};
        for (int d : delays) {
            timer.schedule(() -> order.add(d), Duration.ofMillis(d));
        }
        ticker.advance(Duration.ofMinutes(5));
        Await.until("all ran", () -> order.size() == delays.length);
        assertThat(order).containsExactly(1, 3, 64, 500, 4_096, 70_000, 262_144);
    }

    @Test
    void everyTimerFiresInTheTickOfItsDeadlineWhetherFiledAtOnceOrHeldInTheNursery() throws Exception {
        WheelTimer timer = manualTimer();
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        int n = 400;
        long[] deadlineMicros = new long[n];
        long[] firedAtMs = new long[n];
        java.util.Arrays.fill(firedAtMs, -1);
        long[] nowMs = {0};
        for (int i = 0; i < n; i++) {
            int id = i;
            // 0-300 ms: both sides of the nursery's horizon (one level-0 rotation, 64 ms), sub-millisecond parts too
            deadlineMicros[i] = random.nextLong(300_000);
            timer.schedule(() -> firedAtMs[id] = nowMs[0], deadlineMicros[i], TimeUnit.MICROSECONDS);
        }
        for (int ms = 1; ms <= 301; ms++) {
            nowMs[0] = ms; // written before the advance, read by tasks after it: ordered by the driver's wake-up
            ticker.advance(1, TimeUnit.MILLISECONDS);
            quiesce(timer);
        }
        for (int i = 0; i < n; i++) {
            long expectedMs = (deadlineMicros[i] + 999) / 1000; // the tick that contains the deadline's end
            assertThat(firedAtMs[i]).as("timer %d due at %d us", i, deadlineMicros[i])
                    .isEqualTo(Math.max(expectedMs, 1));
        }
    }

    @Test
    void zeroAndNegativeDelaysRunWithoutTimeMoving() {
        WheelTimer timer = manualTimer();
        ticker.advance(123_456, TimeUnit.NANOSECONDS); // mid-tick
        CountDownLatch ran = new CountDownLatch(2);
        timer.schedule(ran::countDown, Duration.ZERO);
        timer.schedule(ran::countDown, -5, TimeUnit.SECONDS);
        Await.until("both ran", () -> ran.getCount() == 0);
    }

    @Test
    void delaysBeyond292YearsSaturateAndStayPending() throws Exception {
        WheelTimer timer = manualTimer();
        AtomicInteger runs = new AtomicInteger();
        timer.schedule(runs::incrementAndGet, Duration.ofSeconds(Long.MAX_VALUE));
        timer.schedule(runs::incrementAndGet, Long.MAX_VALUE, TimeUnit.DAYS);
        ticker.advance(Duration.ofDays(365L * 200));
        quiesce(timer);
        assertThat(runs).hasValue(0);
        assertThat(timer.pendingCount()).isEqualTo(2);
        assertThat(timer.stop()).hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(longs = {Long.MAX_VALUE - 1_000_000L, Long.MIN_VALUE + 5})
    void clockNearTheEndsOfTheTimelineIsHandled(long start) throws Exception {
        ManualTicker edge = new ManualTicker(start);
        WheelTimer timer = track(WheelTimer.builder().ticker(edge).build());
        AtomicInteger runs = new AtomicInteger();
        timer.schedule(runs::incrementAndGet, Duration.ofMillis(5));
        edge.advance(4, TimeUnit.MILLISECONDS);
        quiesce(timer);
        assertThat(runs).hasValue(0);
        edge.advance(1, TimeUnit.MILLISECONDS); // crosses Long.MAX_VALUE for the first start
        Await.until("ran", () -> runs.get() == 1);
    }

    @Test
    void stopReturnsTheTimeoutsThatNeverRanAndRejectsNewOnes() throws Exception {
        WheelTimer timer = manualTimer();
        Timeout ran = timer.schedule(() -> { }, Duration.ZERO);
        Timeout cancelled = timer.schedule(() -> { }, Duration.ofSeconds(1));
        cancelled.cancel();
        Timeout a = timer.schedule(() -> { }, Duration.ofSeconds(1));
        Timeout b = timer.schedule(() -> { }, Duration.ofDays(1));
        Await.until("first ran", ran::isExpired);
        Set<Timeout> unrun = timer.stop();
        assertThat(unrun).containsExactlyInAnyOrder(a, b);
        assertThat(a.cancel()).isFalse();
        assertThat(timer.stop()).isEmpty();
        assertThat(timer.pendingCount()).isZero();
        assertThatThrownBy(() -> timer.schedule(() -> { }, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("test-timer")
                .hasMessageContaining("stopped");
    }

    @Test
    void stopSetHoldsExactlyTheAbandonedTimeoutsWherePendingOnesWaited() throws Exception {
        // Pending timeouts wait in the wheel, in the nursery and in the hand-off from producers; cancelled ones that
        // the driver has not dropped yet sit among them and must not be in the set, nor another timer's timeouts.
        WheelTimer timer = manualTimer();
        WheelTimer other = manualTimer();
        List<Timeout> pending = new ArrayList<>();
        List<Timeout> cancelled = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            Timeout t = timer.schedule(() -> { }, Duration.ofMillis(1 + i % 2000));
            if (i % 3 == 0) {
                t.cancel();
                cancelled.add(t);
            } else {
                pending.add(t);
            }
        }
        quiesce(timer); // most are now filed in the wheel or held in the nursery
        for (int i = 0; i < 100; i++) {
            pending.add(timer.schedule(() -> { }, Duration.ofHours(1))); // some still on their way at the stop
        }
        Timeout foreign = other.schedule(() -> { }, Duration.ofHours(1));
        Set<Timeout> unrun = timer.stop();
        assertThat(unrun).hasSize(pending.size()).containsExactlyInAnyOrderElementsOf(pending);
        assertThat(unrun).as("equal to a HashSet of the same timeouts").isEqualTo(new HashSet<>(pending));
        for (Timeout t : cancelled) {
            assertThat(unrun.contains(t)).isFalse();
        }
        assertThat(unrun.contains(foreign)).isFalse();
        assertThat(unrun.contains("not a timeout")).isFalse();
        assertThatThrownBy(() -> unrun.add(foreign)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> unrun.iterator().remove()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(pending).allMatch(t -> !t.isExpired() && !t.isCancelled() && !t.cancel());
    }

    @Test
    void stoppingFromOwnTaskIsRefused() {
        WheelTimer timer = manualTimer();
        AtomicReference<Throwable> error = new AtomicReference<>();
        timer.schedule(() -> {
            try {
                timer.stop();
            } catch (Throwable t) {
                error.set(t);
            }
        }, Duration.ZERO);
        Await.until("task ran", () -> error.get() != null);
        assertThat(error.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("own tasks");
    }

    @Test
    void throwingTaskIsReportedAndTheTimerKeepsRunning() {
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        WheelTimer timer = track(WheelTimer.builder().ticker(ticker)
                .failureHandler((t, e) -> failures.add(e)).build());
        timer.schedule(() -> {
            throw new IllegalStateException("boom");
        }, Duration.ZERO);
        CountDownLatch after = new CountDownLatch(1);
        timer.schedule(after::countDown, Duration.ofMillis(1));
        ticker.advance(Duration.ofMillis(1));
        Await.until("second task ran", () -> after.getCount() == 0);
        assertThat(failures).singleElement().satisfies(e -> assertThat(e).hasMessage("boom"));
    }

    @Test
    void withAnExecutorASlowTaskDelaysNoOther() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            WheelTimer timer = track(WheelTimer.builder().ticker(ticker).executor(pool).build());
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch fast = new CountDownLatch(1);
            timer.schedule(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, Duration.ofMillis(1));
            timer.schedule(fast::countDown, Duration.ofMillis(2));
            ticker.advance(Duration.ofMillis(2));
            Await.until("fast task ran while the slow one blocks", () -> fast.getCount() == 0);
            release.countDown();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void executorRejectionIsReportedAsARejectionCarryingTheTimeoutWhichNeverRuns() throws Exception {
        AtomicReference<Timeout> reportedTimeout = new AtomicReference<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger refusals = new AtomicInteger(1);
        Executor refusesOnce = r -> {
            if (refusals.getAndDecrement() > 0) {
                throw new RejectedExecutionException("full");
            }
            r.run();
        };
        WheelTimer timer = track(WheelTimer.builder().ticker(ticker).name("refused").executor(refusesOnce)
                .failureHandler((t, e) -> {
                    reportedTimeout.set(t);
                    failures.add(e);
                }).build());
        AtomicInteger ran = new AtomicInteger();
        Timeout refused = timer.schedule(ran::incrementAndGet, Duration.ofMillis(1));
        ticker.advance(Duration.ofMillis(1));
        Await.until("rejection reported", () -> !failures.isEmpty());

        assertThat(failures).singleElement().isInstanceOfSatisfying(TimeoutRejectedException.class, e -> {
            assertThat(e.timeout()).isSameAs(refused);
            assertThat(e).isInstanceOf(RejectedExecutionException.class)
                    .hasMessageContaining("refused").hasMessageContaining("will not run")
                    .hasCauseInstanceOf(RejectedExecutionException.class).cause().hasMessage("full");
        });
        assertThat(reportedTimeout.get()).isSameAs(refused);
        assertThat(timer.rejectedCount()).isOne();
        // A refused timeout has expired: the timer's part is done, so it is neither pending nor cancellable.
        assertThat(refused.isExpired()).isTrue();
        assertThat(refused.isCancelled()).isFalse();
        assertThat(refused.cancel()).isFalse();
        assertThat(timer.pendingCount()).isZero();

        // The timer goes on: the next timeout reaches the executor and runs; the refused one never did.
        CountDownLatch next = new CountDownLatch(1);
        timer.schedule(next::countDown, Duration.ofMillis(1));
        ticker.advance(Duration.ofMillis(1));
        assertThat(next.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).hasValue(0);
        assertThat(timer.rejectedCount()).isOne();
        assertThat(timer.stop()).as("not abandoned at stop: reported when refused").doesNotContain(refused);
    }

    @Test
    void shutDownExecutorsRefusalIsReportedDistinctlyFromATaskThatThrowsRejectedExecutionException()
            throws Exception {
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
        try {
            WheelTimer timer = track(WheelTimer.builder().ticker(ticker).executor(pool)
                    .failureHandler((t, e) -> failures.add(e)).build());
            timer.schedule(() -> {
                throw new RejectedExecutionException("thrown by the task itself");
            }, Duration.ZERO);
            Await.until("task failure reported", () -> failures.size() == 1);
            assertThat(failures.peek()).isNotInstanceOf(TimeoutRejectedException.class)
                    .hasMessage("thrown by the task itself");
            assertThat(timer.rejectedCount()).isZero();

            pool.shutdown();
            Timeout late = timer.schedule(() -> { }, Duration.ZERO);
            Await.until("refusal reported", () -> failures.size() == 2);
            assertThat(failures).last().isInstanceOfSatisfying(TimeoutRejectedException.class,
                    e -> assertThat(e.timeout()).isSameAs(late));
            assertThat(timer.rejectedCount()).isOne();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void maxPendingRejectsPastTheBound() throws Exception {
        WheelTimer timer = track(WheelTimer.builder().ticker(ticker).name("bounded").maxPending(2).build());
        timer.schedule(() -> { }, Duration.ofSeconds(1));
        Timeout second = timer.schedule(() -> { }, Duration.ofSeconds(1));
        assertThatThrownBy(() -> timer.schedule(() -> { }, Duration.ofSeconds(1)))
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("bounded").hasMessageContaining("maxPending(2)");
        second.cancel();
        timer.schedule(() -> { }, Duration.ofSeconds(1));
        assertThat(timer.pendingCount()).isEqualTo(2);
    }

    @Test
    void cancelledTimersArePurgedSoMemoryStaysBounded() throws Exception {
        WheelTimer timer = manualTimer();
        int n = 100_000;
        List<Timeout> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            all.add(timer.schedule(() -> { }, Duration.ofSeconds(30 + i % 1000)));
        }
        quiesce(timer);
        assertThat(timer.core().heldCount()).isGreaterThanOrEqualTo(n);
        for (int i = 0; i < n; i++) {
            if (i % 10 != 0) {
                all.get(i).cancel();
            }
        }
        // the driver wakes at least every few milliseconds and purges once cancelled entries dominate
        Await.until("purged", () -> {
            try {
                quiesce(timer);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return timer.core().heldCount() < n / 5;
        });
        assertThat(timer.pendingCount()).isEqualTo(n / 10);
    }

    @Test
    void nullArgumentsAreRejectedByName() {
        WheelTimer timer = manualTimer();
        assertThatThrownBy(() -> timer.schedule(null, Duration.ZERO)).hasMessage("task");
        assertThatThrownBy(() -> timer.schedule(() -> { }, null)).hasMessage("delay");
        assertThatThrownBy(() -> timer.schedule(() -> { }, 1, null)).hasMessage("unit");
    }

    @Test
    void builderRejectsBadValuesAndRepeatedOptions() {
        assertThatThrownBy(() -> WheelTimer.builder().tick(Duration.ofNanos(10)))
                .hasMessageContaining("tick").hasMessageContaining("PT0.000001S");
        assertThatThrownBy(() -> WheelTimer.builder().tick(Duration.ofHours(2))).hasMessageContaining("tick");
        assertThatThrownBy(() -> WheelTimer.builder().wheelSize(100))
                .hasMessageContaining("wheelSize").hasMessageContaining("[2, 64]");
        assertThatThrownBy(() -> WheelTimer.builder().maxPending(0)).hasMessageContaining("maxPending");
        assertThatThrownBy(() -> WheelTimer.builder().tick(Duration.ofMillis(1)).tick(Duration.ofMillis(2)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("tick was already set");
        assertThatThrownBy(() -> WheelTimer.builder().name(" ")).hasMessageContaining("name");
    }

    @Test
    void realClockTimerRunsTaskNotBeforeItsDelay() {
        try (WheelTimer timer = WheelTimer.create()) {
            long start = System.nanoTime();
            AtomicReference<Long> ranAfter = new AtomicReference<>();
            timer.schedule(() -> ranAfter.set(System.nanoTime() - start), Duration.ofMillis(20));
            Await.until("ran", () -> ranAfter.get() != null);
            assertThat(ranAfter.get()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /**
     * Lane schedules due after MAX_PARK_NANOS skip the fence; an idle driver first sleeps that long, then sleeps
     * without a bound. Scheduling from a fresh thread at every point of that cycle (during the bounded sleep, at its
     * end, long after) must still wake the driver in time: each task must run within a generous second.
     */
    @Test
    void idleRealClockTimerWakesForFarTimersScheduledAtAnyPointOfItsSleep() throws Exception {
        try (WheelTimer timer = WheelTimer.create()) {
            long delay = TimerCore.MAX_PARK_NANOS + TimeUnit.MILLISECONDS.toNanos(5);
            for (int round = 0; round < 24; round++) {
                // the previous task ran, so the driver is idle; let it sleep for 0 to 23 ms before the schedule
                long pause = TimeUnit.MILLISECONDS.toNanos(round);
                long slept = System.nanoTime();
                while (System.nanoTime() - slept < pause) {
                    Thread.onSpinWait();
                }
                AtomicReference<Long> ranAfter = new AtomicReference<>();
                Thread producer = new Thread(() -> {
                    long start = System.nanoTime();
                    timer.schedule(() -> ranAfter.set(System.nanoTime() - start), delay, TimeUnit.NANOSECONDS);
                });
                producer.start();
                producer.join();
                Await.until("round " + round + " ran", () -> ranAfter.get() != null);
                assertThat(ranAfter.get()).as("round %d: ran after", round)
                        .isBetween(delay, delay + TimeUnit.SECONDS.toNanos(1));
            }
        }
    }

    /**
     * On the system ticker a far timeout is dated by the driver (see {@code TimerCore}): it cancels, counts and is
     * abandoned like any other, whether the driver has taken it yet or not. On a ticker that may jump, every
     * timeout is dated at the call.
     */
    @Test
    void farTimeoutsOnTheSystemTickerAreDatedByTheDriverAndBehaveLikeOthers() throws InterruptedException {
        WheelTimer manual = manualTimer();
        assertThat(manual.core().ownerDatedDelayNanos()).isEqualTo(Long.MAX_VALUE);
        WheelTimer timer = track(WheelTimer.builder().name("system").build());
        long far = timer.core().ownerDatedDelayNanos();
        assertThat(far).isEqualTo(TimeUnit.MILLISECONDS.toNanos(14_336));
        Timeout cancelled = timer.schedule(() -> { }, far, TimeUnit.NANOSECONDS);
        Timeout kept = timer.schedule(() -> { }, Duration.ofHours(1));
        quiesce(timer); // both taken by the driver, into its nursery
        Timeout late = timer.schedule(() -> { }, Duration.ofHours(2)); // maybe still in the lane
        assertThat(cancelled.cancel()).isTrue();
        assertThat(timer.pendingCount()).isEqualTo(2);
        assertThat(timer.stop()).containsExactlyInAnyOrder(kept, late);
        assertThat(cancelled.isCancelled()).isTrue();
        assertThat(kept.isExpired()).isFalse();
    }
}

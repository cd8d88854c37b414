package io.clockwork.queue;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SpinThenParkLock}: mutual exclusion under contention, re-entry, interruption and conditions behave as a
 * {@code ReentrantLock}'s, and a waiter that spins long enough becomes the heir and gets the lock when it is freed.
 */
class SpinThenParkLockTest {

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @Test
    void threadsHammeringTheLockNeverOverlapAndLoseNoIncrement() throws Exception {
        SpinThenParkLock lock = new SpinThenParkLock();
        long[] counter = {0};
        AtomicBoolean inside = new AtomicBoolean();
        int threads = 4;
        int rounds = 50_000;
        Future<?>[] done = new Future<?>[threads];
        for (int t = 0; t < threads; t++) {
            boolean interruptibly = t % 2 == 0;
            done[t] = pool.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    if (interruptibly) {
                        lock.lockInterruptibly();
                    } else {
                        lock.lock();
                    }
                    try {
                        assertThat(inside.getAndSet(true)).isFalse();
                        counter[0]++;
                        inside.set(false);
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            });
        }
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        lock.lock();
        try {
            assertThat(counter[0]).isEqualTo((long) threads * rounds);
        } finally {
            lock.unlock();
        }
        assertThat(lock.heir()).isNull();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void theHolderCannotTakeTheLockStraightBackFromAWaiter() throws Exception {
        for (int trial = 0; trial < 5; trial++) {
            SpinThenParkLock lock = new SpinThenParkLock();
            List<String> order = Collections.synchronizedList(new ArrayList<>());
            lock.lock();
            Future<?> waiter = pool.submit(() -> {
                lock.lock();
                order.add("waiter");
                lock.unlock();
                return null;
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!lock.hasQueuedThreads() && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // until the waiter, done spinning, has parked in the queue
            }
            lock.unlock();
            lock.lock(); // a plain ReentrantLock's holder would usually get it straight back here
            order.add("holder");
            lock.unlock();
            waiter.get(10, TimeUnit.SECONDS);
            assertThat(order).containsExactly("waiter", "holder");
        }
    }

    @Test
    void aHolderReEntersAtOnceEvenWhileAnHeirWaits() throws Exception {
        SpinThenParkLock lock = new SpinThenParkLock();
        lock.lock();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<?> waiter = pool.submit(() -> {
            waiting.countDown();
            lock.lock();
            lock.unlock();
            return null;
        });
        waiting.await();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (lock.heir() == null && !lock.hasQueuedThreads() && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // until the waiter spins with priority, or has parked
        }
        lock.lock(); // re-entry
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        lock.unlock();
        waiter.get(10, TimeUnit.SECONDS);
        assertThat(lock.heir()).isNull();
    }

    @Test
    void anInterruptedWaiterGivesUpAndLeavesNoClaimBehind() throws Exception {
        SpinThenParkLock lock = new SpinThenParkLock();
        lock.lock();
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        Future<?> waiter = pool.submit(() -> {
            waiterThread.set(Thread.currentThread());
            lock.lockInterruptibly();
            lock.unlock();
            return null;
        });
        while (waiterThread.get() == null) {
            Thread.onSpinWait();
        }
        waiterThread.get().interrupt();
        assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(InterruptedException.class);
        assertThat(lock.heir()).isNull();
        lock.unlock();
        Thread.currentThread().interrupt();
        assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void aConditionWaiterWokenBySignalReacquiresTheLock() throws Exception {
        SpinThenParkLock lock = new SpinThenParkLock();
        Condition changed = lock.newCondition();
        boolean[] ready = {false};
        Future<Boolean> waiter = pool.submit(() -> {
            lock.lock();
            try {
                long nanos = TimeUnit.SECONDS.toNanos(10);
                while (!ready[0] && nanos > 0) {
                    nanos = changed.awaitNanos(nanos);
                }
                return ready[0] && lock.isHeldByCurrentThread();
            } finally {
                lock.unlock();
            }
        });
        lock.lock();
        try {
            ready[0] = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
    }
}

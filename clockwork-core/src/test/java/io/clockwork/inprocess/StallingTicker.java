package io.clockwork.inprocess;

import io.clockwork.time.ManualTicker;
import io.clockwork.time.Ticker;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A ticker that reads a {@link ManualTicker}, except that one chosen thread's n-th reading blocks until
 * {@link #release()}: a thread inside an {@link InMemoryDelayedQueue} operation then holds the queue's lock through the
 * queue's real code path, for as long as a test needs. One hold at a time; thread-safe.
 */
final class StallingTicker implements Ticker {

    private static final long TIMEOUT_SECONDS = 20;

    private final ManualTicker time;
    private volatile CountDownLatch stalled = new CountDownLatch(1);
    private volatile CountDownLatch released = new CountDownLatch(1);
    private volatile Thread armed;
    /** Readings the armed thread has left before the one that stalls; that thread's own. */
    private int readsBefore;

    StallingTicker(ManualTicker time) {
        this.time = time;
    }

    /** @return the clock read through this ticker, for advancing time */
    ManualTicker time() {
        return time;
    }

    /**
     * Starts {@code operation} on one of {@code threads} and returns once that thread is stalled at its
     * {@code nthRead}-th reading of this ticker (inside the queue's lock, for an operation that takes it).
     *
     * @throws AssertionError if it does not stall in time
     */
    <T> Future<T> hold(ExecutorService threads, Callable<T> operation, int nthRead) throws InterruptedException {
        CountDownLatch stall = new CountDownLatch(1);
        stalled = stall;
        released = new CountDownLatch(1);
        Future<T> f = threads.submit(() -> {
            readsBefore = nthRead - 1;
            armed = Thread.currentThread();
            return operation.call();
        });
        if (!stall.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("the holder never stalled");
        }
        return f;
    }

    /** Lets the stalled thread go on (and any later one through, until the next {@link #hold}). */
    void release() {
        released.countDown();
    }

    @Override
    public long read() {
        if (Thread.currentThread() == armed && readsBefore-- == 0) {
            armed = null;
            stalled.countDown();
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return time.read();
    }

    @Override
    public Watch watch(Runnable onJump) {
        return time.watch(onJump);
    }
}

package io.clockwork.worker;

import io.clockwork.queue.Message;
import io.clockwork.timer.Timeout;
import io.clockwork.timer.WheelTimer;
import io.clockwork.time.Ticker;

import java.time.Duration;
import java.util.function.BiConsumer;

/**
 * The timeouts of a {@link Worker}'s running jobs: each job's is the message's own ({@link Message#TIMEOUT_HEADER})
 * or else the worker's ({@link Worker.Builder#timeout(Duration)}), and when it passes with the job still running the
 * worker's {@code onTimeout} runs (it interrupts the handler and settles the attempt as failed). The deadlines live
 * on a {@link WheelTimer} on the worker's ticker, made by the first job that has a timeout, so a worker whose jobs
 * have none runs no timer thread. Thread-safe.
 *
 * @param <V> the value type
 */
final class JobTimeouts<V> implements AutoCloseable {

    private final String name;
    private final Ticker ticker;
    /** The worker's timeout, or null for none. */
    private final Duration fallback;
    private final BiConsumer<WorkerTask<V>, Duration> onTimeout;
    private WheelTimer timer; // guarded by this
    private boolean closed; // guarded by this

    /**
     * @param name      names the timer's thread
     * @param ticker    the worker's ticker
     * @param fallback  the worker's timeout, or null
     * @param onTimeout what to do with a job still running at its deadline, and the timeout it exceeded
     */
    JobTimeouts(String name, Ticker ticker, Duration fallback, BiConsumer<WorkerTask<V>, Duration> onTimeout) {
        this.name = name;
        this.ticker = ticker;
        this.fallback = fallback;
        this.onTimeout = onTimeout;
    }

    /**
     * Starts the deadline of a job that is about to run.
     *
     * @param t the job
     * @return its deadline, to cancel when the handler returns; null if it has no timeout
     * @throws IllegalArgumentException if the message's timeout header is not a valid timeout (the job then fails
     *                                  with this error, as its handler would)
     */
    Timeout start(WorkerTask<V> t) {
        Duration timeout = timeoutOf(t);
        if (timeout == null) {
            return null;
        }
        WheelTimer wheel = timer();
        return wheel == null ? null : wheel.schedule(() -> onTimeout.accept(t, timeout), timeout);
    }

    private Duration timeoutOf(WorkerTask<V> t) {
        String header = t.headers().get(Message.TIMEOUT_HEADER);
        if (header == null) {
            return fallback;
        }
        long ms;
        try {
            ms = Long.parseLong(header);
        } catch (NumberFormatException e) {
            ms = -1;
        }
        if (ms < 1 || ms > Message.MAX_TIMEOUT.toMillis()) {
            throw new IllegalArgumentException("header " + Message.TIMEOUT_HEADER + " must be whole milliseconds in [1, "
                    + Message.MAX_TIMEOUT.toMillis() + "], was '" + header + "'");
        }
        return Duration.ofMillis(ms);
    }

    private synchronized WheelTimer timer() {
        if (timer == null && !closed) {
            timer = WheelTimer.builder().name(name).ticker(ticker).build();
        }
        return timer;
    }

    /** Stops the timer, if one was made: deadlines not yet passed never fire. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        if (timer != null) {
            timer.close();
        }
    }
}

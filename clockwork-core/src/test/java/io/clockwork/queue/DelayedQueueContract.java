package io.clockwork.queue;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The behaviour every {@link DelayedQueue} backend must show, written once and run against each: a backend's test
 * extends this class and supplies a fresh queue and a way to let the backend's clock move.
 *
 * <p>Shipped in clockwork-core's test-jar so that clockwork-redis runs the same tests against a real Redis.
 */
public abstract class DelayedQueueContract {

    /**
     * Creates a fresh, empty queue; every call returns a queue with a new name, closed by the subclass after the test.
     *
     * @param codec   the codec
     * @param options further options applied to the backend's builder (visibility timeout, max attempts, ...)
     * @param <V>     the value type
     * @return the queue
     */
    protected abstract <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options);

    /**
     * Lets at least {@code amount} pass on the backend's clock: a {@code ManualTicker} advance in-process, a real
     * wait (polling the server's clock, not sleeping blindly) on Redis. Tests keep amounts small (tens to hundreds
     * of milliseconds) so that real-time backends stay fast.
     *
     * @param amount how much time must pass
     * @throws InterruptedException if interrupted
     */
    protected abstract void passTime(Duration amount) throws InterruptedException;
}

package io.clockwork.testing.queue;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * What every {@link DelayedQueue} contract asks of a backend's test, and gives it: fresh queues, the backend's
 * clock, and daemon threads for consumers that must block, stopped after each test. {@link DelayedQueueContract} and
 * {@link FlowControlContract} extend it, so one backend test class per contract supplies the same two methods.
 */
public abstract class QueueContractBase {

    /** For polls that must block while the test goes on; shut down after each test. */
    protected final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "contract-background");
        t.setDaemon(true);
        return t;
    });

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

    /** @return the deliveries' values, in order */
    protected static List<String> valuesOf(List<Delivery<String>> deliveries) {
        return deliveries.stream().map(Delivery::value).toList();
    }

    /** @return the values of every message due now, taken in batches until a poll finds none */
    protected static List<String> drainValues(DelayedQueue<String> q) throws InterruptedException {
        List<String> all = new ArrayList<>();
        List<Delivery<String>> batch;
        while (!(batch = q.poll(DelayedQueue.MAX_BATCH, Duration.ZERO)).isEmpty()) {
            all.addAll(valuesOf(batch));
        }
        return all;
    }

    @AfterEach
    void stopBackgroundThreads() {
        background.shutdownNow();
    }
}

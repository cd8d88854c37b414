package io.clockwork.redisson;

import io.clockwork.queue.Codec;
import io.clockwork.queue.QueueOptions;
import io.clockwork.time.Ticker;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-process {@link RedissonClient}: Redisson's delayed queue and its destination in this JVM's heap, with no
 * Redis and no dependency. Thread-safe: any number of threads may share the client and its handles.
 *
 * <h2>Design</h2>
 * The client is its own store: a queue name maps to one store, which every handle to that name shares and which lives
 * as long as the client. A store holds two parts (see {@code LocalStore}):
 * <ul>
 *   <li>the <b>pending</b> elements of the name's delayed queue, by offer order, with an index from encoded value to
 *       positions and a second order by due time, then offer order;</li>
 *   <li>the <b>due</b> elements of the queue itself, in the order they became due (due order, ties in offer order),
 *       elements offered straight to it taking their place at once.</li>
 * </ul>
 * Elements are kept encoded, as bytes through the handle's {@link Codec} ({@link ValueCodec} by default), and compared
 * by those bytes, exactly as Redis compares them: {@code 1} and {@code 1L} are different elements, and equality needs
 * no {@code equals} of the element type.
 *
 * <h2>Time</h2>
 * Due times are readings of the client's {@link Ticker}: an element offered with a delay {@code d} is due once the
 * ticker has moved {@code d} on, never before. Elements fall due lazily: every operation on a store first moves the
 * elements whose due time has come from the pending part to the due part, so no thread runs for the client. A blocked
 * {@link RBlockingQueue#take()} (or a deque's {@code takeLast}) or timed {@code poll} sleeps until the next due time,
 * an offer or its own deadline (a timed poll's timeout is also measured on the ticker), and registers with
 * {@link Ticker#watch} so that a test's {@link io.clockwork.time.ManualTicker} advance wakes it at once.
 *
 * <h2>Redisson's flaws kept out</h2>
 * <ul>
 *   <li>No transfer task: Redisson's client moves due elements with a scheduled task, so elements arrive late or not
 *       at all while no client with the task runs. Here an element is due by its stored due time, whoever looks.</li>
 *   <li>{@code remove(Object)} and {@code contains(Object)} use the value index: O(log n) for each copy of the value,
 *       where Redisson scans its list and then runs an O(n) {@code LREM}.</li>
 *   <li>No stuck elements: Redisson's {@code retainAll} removes from the list and leaves the element in its timeout
 *       set, so a removed element still arrives; here every removal takes the element out of every structure, and
 *       promotion moves an element in one step under the store's lock.</li>
 * </ul>
 *
 * <h2>Where it differs from Redisson on purpose</h2>
 * A zero or negative delay means due at once (Redisson refuses a negative one). A value the codec cannot encode is
 * in no queue: {@code contains} and {@code remove} answer false for it (Redisson fails encoding it). Deleting the
 * destination ({@link RQueue#delete()}) deletes its due elements and leaves the pending ones, which still arrive, as
 * with Redisson's separate keys.
 */
public final class InMemoryRedisson implements RedissonClient {

    private final Ticker ticker;
    private final ConcurrentHashMap<String, LocalStore> stores = new ConcurrentHashMap<>();
    private final AtomicLong storeCount = new AtomicLong();
    private volatile boolean shutdown;

    private InMemoryRedisson(Ticker ticker) {
        this.ticker = ticker;
    }

    /**
     * Creates a client with an empty store, timed by the system ticker.
     *
     * @return the client
     */
    public static InMemoryRedisson create() {
        return create(Ticker.system());
    }

    /**
     * Creates a client with an empty store, timed by {@code ticker} (a {@link io.clockwork.time.ManualTicker} in
     * tests).
     *
     * @param ticker the source of time for due times and timeouts
     * @return the client
     */
    public static InMemoryRedisson create(Ticker ticker) {
        return new InMemoryRedisson(Objects.requireNonNull(ticker, "ticker"));
    }

    @Override
    public <V> RBlockingQueue<V> getBlockingQueue(String name, Codec<V> codec) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(codec, "codec");
        checkOpen(name);
        return new LocalBlockingQueue<>(this, store(name), codec);
    }

    @Override
    public <V> RBlockingDeque<V> getBlockingDeque(String name, Codec<V> codec) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(codec, "codec");
        checkOpen(name);
        return new LocalBlockingDeque<>(this, store(name), codec);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code destinationQueue} is not a handle from this client
     */
    @Override
    public <V> RDelayedQueue<V> getDelayedQueue(RQueue<V> destinationQueue) {
        Objects.requireNonNull(destinationQueue, "destinationQueue");
        if (!(destinationQueue instanceof LocalBlockingQueue<V> destination) || destination.client != this) {
            throw new IllegalArgumentException("destinationQueue must be a queue of this client, was "
                    + destinationQueue.getClass().getName());
        }
        checkOpen(destination.getName());
        return new LocalDelayedQueue<>(destination);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Consumers blocked in {@code take} or {@code poll} wake and throw {@link IllegalStateException}. The elements
     * go with the client. Idempotent.
     */
    @Override
    public void shutdown() {
        shutdown = true;
        stores.values().forEach(LocalStore::wake);
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    /** @throws IllegalArgumentException naming {@code name} if no queue can have it, as on Redis */
    LocalStore store(String name) {
        QueueOptions.Builder.checkName(name);
        return stores.computeIfAbsent(name, n -> new LocalStore(n, storeCount.getAndIncrement(), ticker));
    }

    void checkOpen(String queueName) {
        if (shutdown) {
            throw new IllegalStateException("the InMemoryRedisson is shut down: queue '" + queueName
                    + "' cannot be used");
        }
    }

    @Override
    public String toString() {
        return "InMemoryRedisson[" + stores.size() + " queues" + (shutdown ? ", shut down]" : "]");
    }
}

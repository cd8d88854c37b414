package io.clockwork.redisson;

import io.clockwork.queue.Codec;
import io.clockwork.queue.CodecException;
import io.clockwork.testing.Await;
import io.clockwork.redisson.RedissonFaceContract;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Redisson face's contract on a {@link ManualTicker}, plus what only the in-process backend promises. */
class InMemoryRedissonTest extends RedissonFaceContract {

    private ManualTicker ticker = new ManualTicker();
    private final List<Thread> started = new ArrayList<>();

    @Override
    protected RedissonClient newClient() {
        ticker = new ManualTicker();
        return InMemoryRedisson.create(ticker);
    }

    @Override
    protected void passTime(Duration d) {
        ticker.advance(d);
    }

    @AfterEach
    void stopThreads() throws InterruptedException {
        for (Thread t : started) {
            t.interrupt();
            t.join(10_000);
        }
    }

    private Thread startThread(Runnable body) {
        Thread t = new Thread(body, "in-memory-redisson-test");
        t.setDaemon(true);
        started.add(t);
        t.start();
        return t;
    }

    private static void awaitBlocked(Thread t) {
        Await.until("the thread blocks", () -> t.getState() == Thread.State.WAITING
                || t.getState() == Thread.State.TIMED_WAITING);
    }

    @Test
    void elementIsDueExactlyWhenItsDelayHasPassed() {
        RBlockingQueue<String> queue = client.getBlockingQueue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("x", 1_000, NANOSECONDS);

        ticker.advance(999, NANOSECONDS);
        assertThat(queue.poll()).as("a nanosecond early").isNull();
        ticker.advance(1, NANOSECONDS);
        assertThat(queue.poll()).isEqualTo("x");
    }

    @Test
    void dueTimesSurviveTheTickerWrappingAround() {
        ticker = new ManualTicker(Long.MAX_VALUE - 500);
        client = InMemoryRedisson.create(ticker);
        RBlockingQueue<String> queue = client.getBlockingQueue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("b", 2_000, NANOSECONDS);
        delayed.offer("a", 1_000, NANOSECONDS);

        ticker.advance(999, NANOSECONDS);
        assertThat(queue.isEmpty()).isTrue();
        ticker.advance(1_001, NANOSECONDS);
        assertThat(queue.readAll()).containsExactly("a", "b");
    }

    @Test
    void hugeDelaySaturatesInsteadOfFallingDueAtOnce() {
        RBlockingQueue<String> queue = client.getBlockingQueue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("never", Long.MAX_VALUE, TimeUnit.DAYS);

        ticker.advance(Duration.ofDays(365 * 100));
        assertThat(queue.isEmpty()).isTrue();
        assertThat(delayed.readAll()).containsExactly("never");
    }

    @Test
    void blockedTakeDeregistersFromTheTickerWhenItReturns() throws Exception {
        RBlockingQueue<String> queue = client.getBlockingQueue("test");
        client.<String>getDelayedQueue(queue).offer("x", 1, TimeUnit.SECONDS);
        CompletableFuture<String> taken = new CompletableFuture<>();
        Thread t = startThread(() -> {
            try {
                taken.complete(queue.take());
            } catch (Throwable e) {
                taken.completeExceptionally(e);
            }
        });
        awaitBlocked(t);
        assertThat(ticker.watchCount()).isOne();

        ticker.advance(1, TimeUnit.SECONDS);
        assertThat(taken.get(20, TimeUnit.SECONDS)).isEqualTo("x");
        t.join(10_000);
        assertThat(ticker.watchCount()).isZero();
        assertThat(queue.poll()).as("a take that finds an element at once registers nothing").isNull();
        queue.offer("y");
        assertThat(queue.take()).isEqualTo("y");
        assertThat(ticker.watchCount()).isZero();
    }

    @Test
    void shutdownWakesABlockedTakeWithIllegalStateException() throws Exception {
        RBlockingQueue<String> queue = client.getBlockingQueue("orders");
        CompletableFuture<String> taken = new CompletableFuture<>();
        Thread t = startThread(() -> {
            try {
                taken.complete(queue.take());
            } catch (Throwable e) {
                taken.completeExceptionally(e);
            }
        });
        awaitBlocked(t);

        client.shutdown();
        assertThatThrownBy(() -> taken.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(IllegalStateException.class).hasMessageContaining("orders");
    }

    @Test
    void interruptedTakeThrowsInterruptedExceptionAndChangesNothing() throws Exception {
        RBlockingQueue<String> queue = client.getBlockingQueue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("x", 1, TimeUnit.SECONDS);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread t = startThread(() -> {
            try {
                queue.poll(1, TimeUnit.DAYS);
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        awaitBlocked(t);

        t.interrupt();
        t.join(10_000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(ticker.watchCount()).isZero();
        assertThat(delayed.readAll()).containsExactly("x");
    }

    @Test
    void iteratorRemoveTakesTheVeryCopyItReturned() {
        RBlockingQueue<String> queue = client.getBlockingQueue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("x", 3, TimeUnit.SECONDS);
        delayed.offer("y", 1, TimeUnit.SECONDS);
        delayed.offer("x", 2, TimeUnit.SECONDS);

        Iterator<String> it = delayed.iterator();
        it.next();
        it.next();
        assertThat(it.next()).isEqualTo("x");
        it.remove();

        ticker.advance(2500, MILLISECONDS);
        assertThat(queue.readAll()).as("the copy due at 2 s is the one removed").containsExactly("y");
        ticker.advance(1, TimeUnit.SECONDS);
        assertThat(queue.readAll()).containsExactly("y", "x");
    }

    @Test
    void iteratorRemoveOfAnElementThatHasSinceGoneChangesNothing() {
        RBlockingQueue<String> queue = client.getBlockingQueue("test");
        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("x", 1, TimeUnit.SECONDS);
        Iterator<String> it = delayed.iterator();
        assertThat(it.next()).isEqualTo("x");

        ticker.advance(1, TimeUnit.SECONDS);
        it.remove();
        assertThat(queue.readAll()).as("it fell due before the remove").containsExactly("x");
    }

    @Test
    void removeByValueStaysFastInALargeBacklog() {
        RBlockingQueue<Integer> queue = client.getBlockingQueue("big");
        RDelayedQueue<Integer> delayed = client.getDelayedQueue(queue);
        int n = 50_000;
        for (int i = 0; i < n; i++) {
            delayed.offer(i % 1_000, n - i, TimeUnit.SECONDS);
        }
        for (int i = n - 1; i >= 0; i -= 2) {
            assertThat(delayed.remove(i % 1_000)).isTrue();
        }
        assertThat(delayed.size()).isEqualTo(n / 2);
        assertThat(delayed.contains(999)).isFalse();
        assertThat(delayed.contains(998)).isTrue();
        ticker.advance(n, TimeUnit.SECONDS);
        assertThat(queue.size()).isEqualTo(n / 2);
        assertThat(delayed.isEmpty()).isTrue();
    }

    @Test
    void delayedQueueOfAnotherClientsHandleIsRefused() {
        try (InMemoryRedisson other = InMemoryRedisson.create(ticker)) {
            RQueue<String> foreign = other.getQueue("test");
            assertThatThrownBy(() -> client.getDelayedQueue(foreign)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("destinationQueue");
        }
    }

    @Test
    void clientsDoNotShareElements() {
        try (InMemoryRedisson other = InMemoryRedisson.create(ticker)) {
            client.<String>getQueue("test").offer("mine");
            assertThat(other.<String>getQueue("test").isEmpty()).isTrue();
        }
    }

    @Test
    void codecFailureOfAnyKindIsACodecException() {
        Codec<String> fussy = new Codec<>() {
            @Override
            public byte[] encode(String value) {
                if (value.equals("bad")) {
                    throw new IllegalArgumentException("will not encode 'bad'");
                }
                return value.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String decode(byte[] bytes) {
                String s = new String(bytes, StandardCharsets.UTF_8);
                if (s.equals("poison")) {
                    throw new IllegalStateException("will not decode 'poison'");
                }
                return s;
            }

            @Override
            public String toString() {
                return "FussyCodec";
            }
        };
        RBlockingQueue<String> queue = client.getBlockingQueue("test", fussy);
        assertThatThrownBy(() -> queue.offer("bad")).isInstanceOf(CodecException.class)
                .hasMessageContaining("FussyCodec").hasCauseInstanceOf(IllegalArgumentException.class);
        assertThat(queue.isEmpty()).isTrue();

        queue.offer("poison");
        queue.offer("fine");
        assertThatThrownBy(queue::poll).isInstanceOf(CodecException.class).hasMessageContaining("test");
        assertThat(queue.poll()).as("the queue goes on after an element it cannot decode").isEqualTo("fine");
    }

    @Test
    void pollLastAndOfferFirstToItsOwnNameRotatesTheDestination() {
        RBlockingQueue<String> queue = client.getBlockingQueue("ring");
        queue.addAll(List.of("a", "b", "c"));
        assertThat(queue.pollLastAndOfferFirstTo("ring")).isEqualTo("c");
        assertThat(queue.readAll()).containsExactly("c", "a", "b");

        RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
        delayed.offer("p", 1, TimeUnit.SECONDS);
        assertThat(delayed.pollLastAndOfferFirstTo("ring")).isEqualTo("p");
        assertThat(queue.readAll()).as("moved to its own destination's head, due at once")
                .containsExactly("p", "c", "a", "b");
    }

    @Test
    void createRefusesANullTicker() {
        assertThatThrownBy(() -> InMemoryRedisson.create(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("ticker");
        try (InMemoryRedisson system = InMemoryRedisson.create()) {
            assertThat(system.getQueue("q").offer("x")).isTrue();
        }
    }
}

package io.clockwork.inprocess;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.QueueStats;
import io.clockwork.testing.queue.DelayedQueueContract;
import io.clockwork.time.ManualTicker;
import io.clockwork.time.Ticker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/** The contract on a {@link ManualTicker}, plus what only the in-process backend promises. */
class InMemoryDelayedQueueTest extends DelayedQueueContract {

    private static final AtomicInteger QUEUE_NUMBER = new AtomicInteger();

    private final ManualTicker ticker = new ManualTicker();
    private final List<DelayedQueue<?>> queues = new ArrayList<>();
    private final ExecutorService pollers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "in-memory-poller");
        t.setDaemon(true);
        return t;
    });

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        InMemoryDelayedQueue.Builder<V> builder = InMemoryDelayedQueue.<V>builder()
                .name("contract-" + QUEUE_NUMBER.incrementAndGet())
                .codec(codec)
                .ticker(ticker);
        options.accept(builder);
        return track(builder.build());
    }

    @Override
    protected void passTime(Duration amount) {
        ticker.advance(amount);
    }

    private <Q extends DelayedQueue<?>> Q track(Q queue) {
        queues.add(queue);
        return queue;
    }

    @AfterEach
    void closeQueues() {
        queues.forEach(DelayedQueue::close);
        pollers.shutdownNow();
    }

    private InMemoryDelayedQueue<String> manualQueue() {
        return track(InMemoryDelayedQueue.<String>builder().ticker(ticker).build());
    }

    /** Starts a poll on another thread and returns once that thread is blocked inside it. */
    private Future<Delivery<String>> blockedPoll(DelayedQueue<String> q, Duration wait) {
        AtomicReference<Thread> poller = new AtomicReference<>();
        Future<Delivery<String>> f = pollers.submit(() -> {
            poller.set(Thread.currentThread());
            return q.poll(wait);
        });
        awaitBlocked(poller, f);
        return f;
    }

    private static void awaitBlocked(AtomicReference<Thread> poller, Future<?> f) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            Thread t = poller.get();
            if (t != null) {
                Thread.State s = t.getState();
                if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
                    return;
                }
            }
            if (f.isDone()) {
                fail("the poll returned instead of blocking");
            }
            if (System.nanoTime() - deadline > 0) {
                fail("the poll never blocked");
            }
            Thread.onSpinWait();
        }
    }

    // ---- time, exactly ----

    @Test
    void queueNamesThatDoNotRoundTripThroughUtf8AreRefusedAtBuildNamingTheName() {
        // Encoders write '?' for a lone surrogate: as bytes (Redis keys), each of these names would be "sur?".
        for (String bad : List.of("sur\uD800", "sur\uDBFF", "sur\uDC00", "\uDFFF")) {
            assertThatThrownBy(() -> InMemoryDelayedQueue.<String>builder().name(bad).codec(Codec.string()).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("name must be well-formed Unicode, which round-trips through UTF-8")
                    .hasMessageContaining("unpaired surrogate");
            assertThatThrownBy(() -> InMemoryDelayedQueue.<String>builder()
                    .options(QueueOptions.<String>builder().name(bad).build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("name ");
        }
        try (InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder().name("sur?").build();
             InMemoryDelayedQueue<String> pair = InMemoryDelayedQueue.<String>builder().name("sur\uD83D\uDE00")
                     .build()) {
            assertThat(q.name()).isEqualTo("sur?");
            assertThat(pair.name()).as("a surrogate pair is well-formed").isEqualTo("sur\uD83D\uDE00");
        }
    }

    @Test
    void messageIsDueExactlyAtItsDelayOnTheTicker() throws Exception {
        InMemoryDelayedQueue<String> q = manualQueue();
        q.offer("m", Duration.ofMillis(100));
        ticker.advance(99, TimeUnit.MILLISECONDS);
        assertThat(q.poll(Duration.ZERO)).isNull();
        assertThat(q.stats().nextDueIn()).contains(Duration.ofMillis(1));
        ticker.advance(1, TimeUnit.MILLISECONDS);
        assertThat(q.poll(Duration.ZERO)).extracting(Delivery::value).isEqualTo("m");
    }

    @Test
    void moreMessagesFallingDueTogetherThanOneSliceGoOutInDueThenOfferOrder() throws Exception {
        InMemoryDelayedQueue<String> q = manualQueue();
        int count = 3 * StoreGuard.ADVANCE_LIMIT + 17;
        List<String> expected = new ArrayList<>();
        for (int group = 0; group < 3; group++) {
            for (int i = group; i < count; i += 3) {
                expected.add(i + "");
            }
        }
        for (int i = 0; i < count; i++) {
            q.offer(i + "", Duration.ofMillis(1_000 + i % 3)); // three due times, interleaved in offer order
        }
        ticker.advance(5, TimeUnit.SECONDS);
        List<String> delivered = new ArrayList<>();
        for (Delivery<String> d = q.poll(Duration.ZERO); d != null; d = q.poll(Duration.ZERO)) {
            delivered.add(d.value());
            if (delivered.size() == 1) {
                assertThat(q.stats().ready()).isEqualTo(count - 1); // stats promote everything due
            }
        }
        assertThat(delivered).isEqualTo(expected);
    }

    @Test
    void aPollFindsADueMessageBehindACascadeLongerThanOneSlice() throws Exception {
        InMemoryDelayedQueue<String> q = manualQueue();
        int count = 5 * StoreGuard.ADVANCE_LIMIT;
        for (int i = 0; i < count; i++) {
            q.offer(i + "", Duration.ofMillis(100)); // one bucket of the wheel's second level
        }
        ticker.advance(100, TimeUnit.MILLISECONDS); // the bucket cascades now: five slices before any is ready
        Delivery<String> first = q.poll(Duration.ZERO);
        assertThat(first).isNotNull();
        assertThat(first.value()).isEqualTo("0");
        List<String> rest = new ArrayList<>();
        for (List<Delivery<String>> batch = q.poll(DelayedQueue.MAX_BATCH, Duration.ZERO); !batch.isEmpty();
                batch = q.poll(DelayedQueue.MAX_BATCH, Duration.ZERO)) {
            batch.forEach(d -> rest.add(d.value()));
        }
        assertThat(rest).hasSize(count - 1);
        assertThat(rest.get(rest.size() - 1)).isEqualTo((count - 1) + "");
    }

    @Test
    void messagesDueInOneMillisecondGoOutInOfferOrderWhateverTheirNanoseconds() throws Exception {
        InMemoryDelayedQueue<String> q = manualQueue();
        q.offer("first", Duration.ofNanos(1_900_000));
        q.offer("second", Duration.ofNanos(1_100_000));
        q.offer("earlier tick", Duration.ofNanos(900_000));
        ticker.advance(2, TimeUnit.MILLISECONDS);
        assertThat(List.of(q.poll(Duration.ZERO).value(), q.poll(Duration.ZERO).value(),
                q.poll(Duration.ZERO).value())).containsExactly("earlier tick", "first", "second");
    }

    @Test
    void aDeliveryTimedOutAfterALaterMessageFellDueStillGoesOutFirst() throws Exception {
        InMemoryDelayedQueue<String> q = track(InMemoryDelayedQueue.<String>builder().ticker(ticker)
                .visibilityTimeout(Duration.ofMillis(30)).build());
        q.offer("timed out", Duration.ZERO);
        assertThat(q.poll(Duration.ZERO).value()).isEqualTo("timed out"); // visible again at 30 ms
        q.offer("due at 40 ms", Duration.ofMillis(40));
        q.offer("due at 45 ms", Duration.ofMillis(45));
        ticker.advance(50, TimeUnit.MILLISECONDS);
        // One advance makes both 40 and 45 ready, then the delivery visible again at 30: it sorts first.
        List<String> out = new ArrayList<>();
        for (Delivery<String> d : q.poll(10, Duration.ZERO)) {
            out.add(d.value());
        }
        assertThat(out).containsExactly("timed out", "due at 40 ms", "due at 45 ms");
    }

    @Test
    void nextDueInIsExactAndIgnoresInFlightDeadlines() throws Exception {
        InMemoryDelayedQueue<String> q = manualQueue();
        q.offer("ready", Duration.ZERO);
        assertThat(q.poll(Duration.ZERO)).isNotNull(); // in flight for 30 s: not a delayed message
        assertThat(q.stats().nextDueIn()).isEmpty();
        q.offer("b", Duration.ofMillis(7_500));
        q.offer("a", Duration.ofMillis(2_345));
        assertThat(q.stats()).isEqualTo(new QueueStats(2, 0, 1, 0, Optional.of(Duration.ofMillis(2_345))));
        ticker.advance(345, TimeUnit.MILLISECONDS);
        assertThat(q.stats().nextDueIn()).contains(Duration.ofSeconds(2));
    }

    @Test
    void worksWhenTheTickerWrapsAround() throws Exception {
        ManualTicker nearEnd = new ManualTicker(Long.MAX_VALUE - TimeUnit.MILLISECONDS.toNanos(50));
        InMemoryDelayedQueue<String> q = track(InMemoryDelayedQueue.<String>builder().ticker(nearEnd)
                .visibilityTimeout(Duration.ofMillis(100)).build());
        q.offer("across", Duration.ofMillis(100));
        nearEnd.advance(99, TimeUnit.MILLISECONDS);
        assertThat(q.poll(Duration.ZERO)).isNull();
        nearEnd.advance(1, TimeUnit.MILLISECONDS);
        Delivery<String> d = q.poll(Duration.ZERO);
        assertThat(d.value()).isEqualTo("across");
        nearEnd.advance(100, TimeUnit.MILLISECONDS);
        assertThat(q.poll(Duration.ZERO).attempt()).isEqualTo(2);
    }

    // ---- blocking on the manual ticker ----

    @Test
    void pollBlockedOnTheManualTickerWakesWhenTimeAdvances() throws Exception {
        InMemoryDelayedQueue<String> q = manualQueue();
        q.offer("tick", Duration.ofMillis(100));
        Future<Delivery<String>> poll = blockedPoll(q, Duration.ofSeconds(1));
        ticker.advance(99, TimeUnit.MILLISECONDS);
        assertThat(poll.isDone()).isFalse();
        ticker.advance(1, TimeUnit.MILLISECONDS);
        assertThat(poll.get(20, TimeUnit.SECONDS).value()).isEqualTo("tick");
    }

    @Test
    void pollWaitIsMeasuredOnTheTicker() throws Exception {
        InMemoryDelayedQueue<String> q = manualQueue();
        Future<Delivery<String>> poll = blockedPoll(q, Duration.ofMillis(100));
        ticker.advance(60, TimeUnit.MILLISECONDS);
        ticker.advance(39, TimeUnit.MILLISECONDS);
        assertThat(poll.isDone()).isFalse();
        ticker.advance(1, TimeUnit.MILLISECONDS);
        assertThat(poll.get(20, TimeUnit.SECONDS)).isNull();
    }

    @Test
    void closeWakesEveryBlockedPollerAndLaterPollsFail() throws Exception {
        InMemoryDelayedQueue<String> q = manualQueue();
        Future<Delivery<String>> one = blockedPoll(q, Duration.ofDays(1));
        Future<Delivery<String>> two = blockedPoll(q, Duration.ofDays(1));
        q.close();
        assertThat(one.get(20, TimeUnit.SECONDS)).isNull();
        assertThat(two.get(20, TimeUnit.SECONDS)).isNull();
        assertThatThrownBy(() -> q.poll(Duration.ofDays(1))).isInstanceOf(IllegalStateException.class)
                .hasMessage("queue '" + q.name() + "' is closed");
    }

    @Test
    void interruptedPollThrows() throws Exception {
        InMemoryDelayedQueue<String> q = manualQueue();
        AtomicReference<Thread> poller = new AtomicReference<>();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Future<?> f = pollers.submit(() -> {
            poller.set(Thread.currentThread());
            try {
                q.poll(Duration.ofDays(1));
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        awaitBlocked(poller, f);
        poller.get().interrupt();
        assertThat(outcome.get(20, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    }

    // ---- receipts and values ----

    @Test
    void lateAckSucceedsUntilSomeoneElseTakesTheMessage() throws Exception {
        InMemoryDelayedQueue<String> q = track(InMemoryDelayedQueue.<String>builder().ticker(ticker)
                .visibilityTimeout(Duration.ofMillis(100)).build());
        q.offer("slow", Duration.ZERO);
        Delivery<String> d = q.poll(Duration.ZERO);
        ticker.advance(100, TimeUnit.MILLISECONDS);
        assertThat(q.stats().ready()).as("timed out, back in line").isOne();
        assertThat(d.ack()).as("nobody took it since: the late ack still counts").isTrue();
        assertThat(q.stats().total()).isZero();
    }

    @Test
    void withoutACodecValuesAreKeptByReferenceAndNotSizeLimited() throws Exception {
        InMemoryDelayedQueue<StringBuilder> q = track(InMemoryDelayedQueue.<StringBuilder>builder().ticker(ticker)
                .maxAttempts(1).build());
        StringBuilder value = new StringBuilder("x".repeat(QueueOptions.DEFAULT_MAX_PAYLOAD_BYTES + 1));
        q.offer(value, Duration.ZERO);
        Delivery<StringBuilder> d = q.poll(Duration.ZERO);
        assertThat(d.value()).isSameAs(value);
        assertThat(d.nack(Duration.ZERO)).isTrue();
        DeadLetter letter = q.deadLetters(1).get(0);
        assertThat(letter.payload()).as("no codec, no bytes").isEmpty();
        assertThat(q.requeueDead(letter.id())).isTrue();
        assertThat(q.poll(Duration.ZERO).value()).isSameAs(value);
    }

    @Test
    void maxPayloadBytesWithoutACodecFailsAtBuildNamingTheOption() throws Exception {
        InMemoryDelayedQueue.Builder<String> noCodec = InMemoryDelayedQueue.<String>builder().ticker(ticker)
                .maxPayloadBytes(10);
        assertThatThrownBy(noCodec::build).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maxPayloadBytes(10)").hasMessageContaining("codec");

        // With a codec the option holds, with Redis's error.
        InMemoryDelayedQueue<String> q = track(InMemoryDelayedQueue.<String>builder().ticker(ticker)
                .codec(Codec.string()).maxPayloadBytes(10).build());
        q.offer("0123456789", Duration.ZERO);
        assertThatThrownBy(() -> q.offer("0123456789a", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("value of queue '" + q.name() + "' is 11 bytes encoded, above maxPayloadBytes (10)");
    }

    @Test
    void codecRoundTripsValuesAsBytes() throws Exception {
        InMemoryDelayedQueue<byte[]> q = track(InMemoryDelayedQueue.<byte[]>builder().ticker(ticker)
                .codec(Codec.bytes()).build());
        byte[] value = {1, 2, 3};
        q.offer(value, Duration.ZERO);
        value[0] = 9; // the queue stored a copy
        assertThat(q.poll(Duration.ZERO).value()).containsExactly(1, 2, 3);
    }

    // ---- builder ----

    @Test
    void builderRejectsBadOrRepeatedOptions() {
        assertThatThrownBy(() -> InMemoryDelayedQueue.builder().ticker(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("ticker");
        assertThatThrownBy(() -> InMemoryDelayedQueue.builder().ticker(ticker).ticker(ticker))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("ticker");
        assertThatThrownBy(() -> InMemoryDelayedQueue.builder().maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> InMemoryDelayedQueue.builder().visibilityTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("visibilityTimeout");
    }

    @Test
    void defaultNamesAreDistinct() {
        InMemoryDelayedQueue<String> a = track(InMemoryDelayedQueue.<String>builder().build());
        InMemoryDelayedQueue<String> b = track(InMemoryDelayedQueue.<String>builder().build());
        assertThat(a.name()).startsWith("in-memory-").isNotEqualTo(b.name());
        assertThat(a).hasToString("InMemoryDelayedQueue[" + a.name() + "]");
    }

    // ---- the system ticker ----

    @Test
    void onTheSystemTickerABlockedPollWakesWhenTheMessageFallsDue() throws Exception {
        InMemoryDelayedQueue<String> q = track(InMemoryDelayedQueue.<String>builder().build());
        Ticker clock = Ticker.system();
        long start = clock.read();
        q.offer("real", Duration.ofMillis(50));
        Delivery<String> d = q.poll(Duration.ofSeconds(20));
        long waited = clock.read() - start;
        assertThat(d.value()).isEqualTo("real");
        assertThat(waited).as("not before its due time").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
    }

    @Test
    void onTheSystemTickerAnEarlierOfferWakesAPollSleepingTowardsALaterOne() throws Exception {
        InMemoryDelayedQueue<String> q = track(InMemoryDelayedQueue.<String>builder().build());
        q.offer("later", Duration.ofSeconds(30));
        Future<Delivery<String>> poll = blockedPoll(q, Duration.ofSeconds(60));
        q.offer("sooner", Duration.ofMillis(20));
        assertThat(poll.get(10, TimeUnit.SECONDS).value()).isEqualTo("sooner");
    }
}

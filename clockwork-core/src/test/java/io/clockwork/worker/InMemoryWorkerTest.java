package io.clockwork.worker;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.ForwardingDelayedQueue;
import io.clockwork.testing.Await;
import io.clockwork.testing.queue.FlakyQueue;
import io.clockwork.testing.queue.WorkerContract;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@link WorkerContract} on {@link InMemoryDelayedQueue}s (system clock), plus the worker's argument checks. */
class InMemoryWorkerTest extends WorkerContract {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final List<DelayedQueue<?>> queues = new ArrayList<>();

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        InMemoryDelayedQueue.Builder<V> b = InMemoryDelayedQueue.<V>builder()
                .name("worker-" + NAMES.incrementAndGet()).codec(codec);
        options.accept(b);
        InMemoryDelayedQueue<V> q = b.build();
        queues.add(q);
        return q;
    }

    @Override
    protected DelayedQueue<String> otherClientOf(DelayedQueue<String> queue) {
        return queue; // in process, the queue is its only client
    }

    @Override
    protected void closeQueues() {
        queues.forEach(DelayedQueue::close);
    }

    @Test
    void builderRejectsBadOptionsByName() {
        DelayedQueue<String> q = newQueue(Codec.string(), b -> { });
        JobHandler<String> h = job -> { };
        assertThatThrownBy(() -> Worker.builder(null, h)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("queue");
        assertThatThrownBy(() -> Worker.builder(q, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("handler");
        assertThatThrownBy(() -> Worker.builder(q, h).concurrency(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("concurrency");
        assertThatThrownBy(() -> Worker.builder(q, h).prefetch(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefetch");
        assertThatThrownBy(() -> Worker.builder(q, h).prefetch(DelayedQueue.MAX_BATCH + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prefetch");
        assertThatThrownBy(() -> Worker.builder(q, h).pollWait(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pollWait");
        assertThatThrownBy(() -> Worker.builder(q, h).concurrency(2).concurrency(3))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("concurrency");
        assertThatThrownBy(() -> Worker.builder(q, h).retryPolicy(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("retryPolicy");
        assertThatThrownBy(() -> Worker.builder(q, h).listener(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("listener");
    }

    @Test
    void acksThatFallBehindHoldBackPollingSoUnackedJobsCannotPileUp() throws Exception {
        DelayedQueue<String> inner = newQueue(Codec.string(), b -> { });
        CountDownLatch ackEntered = new CountDownLatch(1);
        CountDownLatch releaseAcks = new CountDownLatch(1);
        AtomicInteger taken = new AtomicInteger();
        DelayedQueue<String> slowAcks = new ForwardingDelayedQueue<>(inner) {
            @Override
            public List<Delivery<String>> poll(int maxMessages, Duration wait) throws InterruptedException {
                List<Delivery<String>> got = super.poll(maxMessages, wait);
                taken.addAndGet(got.size());
                return got;
            }

            @Override
            public List<Boolean> ackAll(List<? extends Delivery<String>> deliveries) {
                ackEntered.countDown();
                try {
                    releaseAcks.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.ackAll(deliveries);
            }
        };
        int total = 3_000;
        for (int i = 0; i < total; i += DelayedQueue.MAX_BATCH) {
            List<String> values = new ArrayList<>();
            for (int j = i; j < i + DelayedQueue.MAX_BATCH; j++) {
                values.add("job-" + j);
            }
            inner.offerAll(values, Duration.ZERO);
        }
        AtomicInteger handled = new AtomicInteger();
        Worker<String> w = Worker.builder(slowAcks, job -> handled.incrementAndGet()).concurrency(4).build();
        try {
            assertThat(ackEntered.await(10, TimeUnit.SECONDS)).isTrue();
            // Why real time: what is checked is that nothing more happens while the acks are stuck; with polling not
            // held back, this time drains the whole backlog into the unacked pile.
            Thread.sleep(500);
            // Handlers and prefetch, the batch stuck in ackAll and one more gathering, and one job per handler
            // between its end and its place in the ack queue.
            int bound = 4 + Worker.MAX_ADAPTIVE_PREFETCH + 2 * Worker.ACK_BATCH + 4;
            assertThat(taken.get()).as("taken while acks are stuck").isLessThanOrEqualTo(bound);
            assertThat(handled.get()).isLessThanOrEqualTo(bound);
            releaseAcks.countDown();
            Await.until("every job acked", () -> inner.stats().ready() + inner.stats().inFlight() == 0);
            assertThat(handled.get()).isEqualTo(total);
        } finally {
            releaseAcks.countDown();
            w.shutdown(Duration.ofSeconds(10));
        }
    }

    @Test
    void withoutPrefetchTheWorkerHoldsOneMessagePerHandler() throws Exception {
        DelayedQueue<String> q = newQueue(Codec.string(), b -> { });
        for (int i = 0; i < 5; i++) {
            q.offer("v" + i, Duration.ZERO);
        }
        CountDownLatch finish = new CountDownLatch(1);
        Worker<String> w = start(Worker.builder(q, job -> finish.await()).concurrency(2));
        Await.until("two running", Await.DEFAULT_LIMIT, () -> w.running() == 2);
        assertThat(w.held()).isEqualTo(2);
        assertThat(q.stats().ready()).isEqualTo(3);
        finish.countDown();
        Await.until("all handled", Await.DEFAULT_LIMIT, () -> q.stats().total() == 0);
    }

    @Test
    void aCallersExecutorRunsTheHandlersWithinTheConcurrencyLimit() throws Exception {
        DelayedQueue<String> q = newQueue(Codec.string(), b -> { });
        for (int i = 0; i < 200; i++) {
            q.offer("v" + i, Duration.ZERO);
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            AtomicInteger now = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            Set<String> threads = ConcurrentHashMap.newKeySet();
            start(Worker.builder(q, job -> {
                most.accumulateAndGet(now.incrementAndGet(), Math::max);
                threads.add(Thread.currentThread().getName());
                Thread.sleep(1); // why real time: a handler's work takes time, so that handlers overlap
                now.decrementAndGet();
                done.incrementAndGet();
            }).concurrency(3).prefetch(10).executor(pool));
            Await.until("all handled", Await.DEFAULT_LIMIT, () -> done.get() == 200 && q.stats().total() == 0);
            assertThat(most.get()).isBetween(1, 3);
            assertThat(threads).allSatisfy(t -> assertThat(t).startsWith("pool-"));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theHeartbeatFollowsTheTickerItIsGiven() throws Exception {
        ManualTicker ticker = new ManualTicker();
        InMemoryDelayedQueue<String> inner = InMemoryDelayedQueue.<String>builder().name("ticker-worker")
                .codec(Codec.string()).ticker(ticker).visibilityTimeout(Duration.ofSeconds(30)).build();
        queues.add(inner);
        FlakyQueue<String> q = new FlakyQueue<>(inner);
        q.offer("long", "v", Duration.ZERO);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger acked = new AtomicInteger();
        Worker<String> w = start(Worker.builder(q, job -> {
            runs.incrementAndGet();
            finish.await();
        }).ticker(ticker).listener(new WorkerListener<>() {
            @Override
            public void acked(Job<String> job) {
                acked.incrementAndGet();
            }
        }));
        Await.until("running", Await.DEFAULT_LIMIT, () -> w.running() == 1);
        // Two minutes of ticker time, four visibility timeouts, in steps of a third of one: each step's extend
        // happens before the next step, so the message never times out.
        for (int step = 1; step <= 12; step++) {
            ticker.advance(Duration.ofSeconds(10));
            int expected = step;
            Await.until("extend " + step, Await.DEFAULT_LIMIT, () -> q.extendCalls() == expected);
            assertThat(inner.stats().inFlight()).isOne();
            assertThat(inner.stats().ready()).isZero();
        }
        finish.countDown();
        Await.until("acked", Await.DEFAULT_LIMIT, () -> acked.get() == 1);
        assertThat(runs.get()).isOne();
        assertThat(inner.stats().total()).isZero();
    }

    @Test
    void shutdownIsIdempotentAndReturnsTheFirstResult() throws Exception {
        DelayedQueue<String> q = newQueue(Codec.string(), b -> { });
        Worker<String> w = start(Worker.builder(q, job -> { }).pollWait(Duration.ofMillis(50)));
        WorkerShutdown first = w.shutdown(Duration.ofSeconds(1));
        assertThat(first).isEqualTo(new WorkerShutdown(0, 0, 0, 0));
        assertThat(w.shutdown(Duration.ZERO)).isSameAs(first);
        w.close();
    }

    @Test
    void theRecordedErrorIsTheClassAndTheMessage() {
        assertThat(JobRunner.describe(new IllegalStateException("boom")))
                .isEqualTo("java.lang.IllegalStateException: boom");
        assertThat(JobRunner.describe(new NullPointerException())).isEqualTo("java.lang.NullPointerException");
    }
}

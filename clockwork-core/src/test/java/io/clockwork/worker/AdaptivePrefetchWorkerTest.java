package io.clockwork.worker;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.testing.Await;
import io.clockwork.testing.queue.FlakyQueue;
import io.clockwork.time.ManualTicker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker whose prefetch was never set, on an {@link InMemoryDelayedQueue} in real time: it batches under a backlog
 * of quick jobs, returns to one message per free handler when the queue is idle, does not hoard messages for slow
 * handlers, and hands back what it buffered at shutdown; an explicit prefetch 0 never batches.
 */
class AdaptivePrefetchWorkerTest {

    private static final Duration LIMIT = Await.DEFAULT_LIMIT;
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final List<Worker<?>> workers = new CopyOnWriteArrayList<>();
    private final List<DelayedQueue<?>> queues = new ArrayList<>();
    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "adaptive-prefetch-test-background");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stop() throws InterruptedException {
        for (Worker<?> w : workers) {
            w.shutdown(Duration.ZERO);
        }
        background.shutdownNow();
        queues.forEach(DelayedQueue::close);
    }

    /**
     * Counts acks per id and records the worker's holdings and prefetch at each delivery once it knows the worker
     * (tests offer their backlog after the worker is built, so that every delivery of it is recorded).
     */
    private static final class Watcher implements WorkerListener<String> {
        final AtomicReference<Worker<String>> worker = new AtomicReference<>();
        final Map<String, AtomicInteger> acks = new ConcurrentHashMap<>();
        final AtomicInteger mostHeld = new AtomicInteger();
        final AtomicInteger mostPrefetch = new AtomicInteger();
        final List<String> released = new CopyOnWriteArrayList<>();

        @Override
        public void delivered(Job<String> job) {
            Worker<String> w = worker.get();
            if (w != null) {
                mostHeld.accumulateAndGet(w.held(), Math::max);
                mostPrefetch.accumulateAndGet(w.prefetchNow(), Math::max);
            }
        }

        @Override
        public void acked(Job<String> job) {
            acks.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void released(Job<String> job) {
            released.add(job.id());
        }

        void reset() {
            mostHeld.set(0);
            mostPrefetch.set(0);
        }
    }

    private InMemoryDelayedQueue<String> queue(Duration visibility) {
        InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder()
                .name("adaptive-" + NAMES.incrementAndGet()).codec(Codec.string()).visibilityTimeout(visibility)
                .build();
        queues.add(q);
        return q;
    }

    private static List<String> offer(DelayedQueue<String> q, int n) {
        List<String> ids = new ArrayList<>(n);
        for (int from = 0; from < n; from += DelayedQueue.MAX_BATCH) {
            Map<String, String> batch = new LinkedHashMap<>();
            for (int i = from; i < Math.min(n, from + DelayedQueue.MAX_BATCH); i++) {
                batch.put("m-" + i, "v" + i);
            }
            ids.addAll(q.offerAll(batch, Duration.ZERO));
        }
        return ids;
    }

    private Worker<String> start(Worker.Builder<String> builder, Watcher watcher) {
        Worker<String> w = builder.listener(watcher).build();
        watcher.worker.set(w);
        workers.add(w);
        return w;
    }

    private static long total(DelayedQueue<?> q) {
        var s = q.stats();
        return s.delayed() + s.ready() + s.inFlight();
    }

    @Test
    void underABacklogOfQuickJobsTheDefaultWorkerTakesMoreThanItRunsAndAcksEachOnce() {
        InMemoryDelayedQueue<String> q = queue(Duration.ofSeconds(30));
        Watcher watcher = new Watcher();
        Worker<String> w = start(Worker.builder(q, job -> { }).concurrency(2), watcher);
        assertThat(w.toString()).contains("prefetch adaptive (now 0, max 50)");
        List<String> ids = offer(q, 1000);
        Await.until("every message acked", LIMIT, () -> watcher.acks.size() == ids.size());
        Await.until("the queue empty", LIMIT, () -> total(q) == 0);
        assertThat(watcher.acks.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(watcher.acks.values()).allSatisfy(n -> assertThat(n.get()).as("acked once").isOne());
        assertThat(watcher.mostHeld.get()).as("held beyond the handlers: the prefetch grew").isGreaterThan(2);
        assertThat(watcher.mostPrefetch.get()).isBetween(1, 50);
    }

    @Test
    void onceTheBacklogDrainsThePrefetchReturnsToZeroAndAnIdleWorkerHoldsOnlyWhatItRuns() {
        InMemoryDelayedQueue<String> q = queue(Duration.ofSeconds(30));
        Watcher watcher = new Watcher();
        Worker<String> w = start(Worker.builder(q, job -> { }).concurrency(2).pollWait(Duration.ofMillis(20)),
                watcher);
        offer(q, 1000);
        Await.until("every message acked", LIMIT, () -> watcher.acks.size() == 1000);
        assertThat(watcher.mostPrefetch.get()).as("grew under the backlog").isPositive();
        Await.until("the prefetch back at 0 on an idle queue", LIMIT, () -> w.prefetchNow() == 0);
        assertThat(w.toString()).contains("prefetch adaptive (now 0, max 50)");

        watcher.reset();
        q.offer("single", "v", Duration.ZERO);
        Await.until("the single message acked", LIMIT, () -> watcher.acks.containsKey("single"));
        assertThat(watcher.mostHeld.get()).as("held while idle").isBetween(1, 2);
        assertThat(w.prefetchNow()).isZero();
        assertThat(watcher.acks.values()).allSatisfy(n -> assertThat(n.get()).isOne());
    }

    @Test
    void anExplicitPrefetchOfZeroNeverHoldsMoreThanTheHandlersRun() {
        InMemoryDelayedQueue<String> q = queue(Duration.ofSeconds(30));
        Watcher watcher = new Watcher();
        Worker<String> w = start(Worker.builder(q, job -> { }).concurrency(2).prefetch(0), watcher);
        List<String> ids = offer(q, 1000);
        Await.until("every message acked", LIMIT, () -> watcher.acks.size() == ids.size());
        assertThat(watcher.acks.values()).allSatisfy(n -> assertThat(n.get()).isOne());
        assertThat(watcher.mostHeld.get()).isBetween(1, 2);
        assertThat(watcher.mostPrefetch.get()).isZero();
        assertThat(w.prefetchNow()).isZero();
        assertThat(w.toString()).contains("prefetch 0]");
    }

    /**
     * Handlers that each block until the test gives them a permit, released one at a time, each step awaited until
     * the worker is still: the freed handler started its next job and the poller filled the free prefetch slots.
     */
    private static final class SlowJobs implements JobHandler<String> {
        final Semaphore permits = new Semaphore(0);
        final AtomicInteger started = new AtomicInteger();

        @Override
        public void handle(Job<String> job) throws InterruptedException {
            started.incrementAndGet();
            permits.acquire();
        }

        void finishOne(Worker<String> w, Watcher watcher, int concurrency, int step) {
            permits.release();
            Await.until("step " + step + ": the freed handler on its next job", LIMIT,
                    () -> started.get() == concurrency + step && watcher.acks.size() == step);
            Await.until("step " + step + ": the worker still", LIMIT, () -> {
                int buffered = w.buffered();
                return w.running() == concurrency && buffered >= w.prefetchNow()
                        && w.held() == concurrency + buffered;
            });
        }
    }

    @Test
    void slowHandlersKeepTheAdaptivePrefetchSmallAndItShrinksWhileJobsWaitForThem() {
        int concurrency = 4;
        InMemoryDelayedQueue<String> q = queue(Duration.ofSeconds(30));
        offer(q, 200);
        Watcher watcher = new Watcher();
        SlowJobs jobs = new SlowJobs();
        Worker<String> w = start(Worker.builder(q, jobs).concurrency(concurrency), watcher);
        Await.until("all handlers busy", LIMIT, () -> jobs.started.get() == concurrency);
        assertThat(w.held()).as("a full first poll is no reason to buffer").isEqualTo(concurrency);
        assertThat(w.prefetchNow()).isZero();
        List<Integer> limits = new ArrayList<>();
        for (int step = 1; step <= 20; step++) {
            jobs.finishOne(w, watcher, concurrency, step);
            limits.add(w.prefetchNow());
        }
        // A finished handler that found more due raises the limit to the handler count once; from there no
        // handler ever starves (a job always waits in the buffer), so it only falls while jobs wait.
        assertThat(limits.get(0)).isEqualTo(concurrency);
        assertThat(watcher.mostPrefetch.get()).isEqualTo(concurrency);
        assertThat(limits.get(limits.size() - 1)).as("shrunk while jobs waited").isLessThanOrEqualTo(1);
        // running + buffered up to the limit + one finished job whose ack is still on its way
        assertThat(watcher.mostHeld.get()).isLessThanOrEqualTo(2 * concurrency + 1);
        assertThat(watcher.acks.values()).allSatisfy(n -> assertThat(n.get()).isOne());
    }

    @Test
    void theHeartbeatExtendsTheBufferedMessagesAsWellAsTheRunningOnes() {
        int concurrency = 2;
        ManualTicker ticker = new ManualTicker();
        InMemoryDelayedQueue<String> inner = InMemoryDelayedQueue.<String>builder().name("adaptive-heartbeat")
                .codec(Codec.string()).ticker(ticker).visibilityTimeout(Duration.ofSeconds(30)).build();
        queues.add(inner);
        FlakyQueue<String> q = new FlakyQueue<>(inner);
        offer(q, 20);
        Watcher watcher = new Watcher();
        SlowJobs jobs = new SlowJobs();
        Worker<String> w = start(Worker.builder(q, jobs).concurrency(concurrency).ticker(ticker), watcher);
        Await.until("all handlers busy", LIMIT, () -> jobs.started.get() == concurrency);
        jobs.finishOne(w, watcher, concurrency, 1);
        assertThat(w.buffered()).isEqualTo(concurrency);
        // Four steps of a third of the visibility timeout, longer than one timeout in all: every held delivery,
        // buffered or running, is extended at each step, so none times out.
        for (int step = 1; step <= 4; step++) {
            ticker.advance(Duration.ofSeconds(10));
            int expected = step * 2 * concurrency;
            Await.until("extends of step " + step, LIMIT, () -> q.extendCalls() == expected);
            assertThat(inner.stats().inFlight()).isEqualTo(2 * concurrency);
        }
        assertThat(inner.stats().ready()).isEqualTo(20 - 1 - 2 * concurrency);
        assertThat(w.buffered()).isEqualTo(concurrency);
    }

    @Test
    void shutdownHandsBackEveryBufferedMessageAtOnceWithItsAttemptUnchanged() throws Exception {
        int concurrency = 4;
        int n = 50;
        InMemoryDelayedQueue<String> q = queue(Duration.ofSeconds(30));
        offer(q, n);
        Watcher watcher = new Watcher();
        SlowJobs jobs = new SlowJobs();
        Worker<String> w = start(Worker.builder(q, jobs).concurrency(concurrency), watcher);
        Await.until("all handlers busy", LIMIT, () -> jobs.started.get() == concurrency);
        jobs.finishOne(w, watcher, concurrency, 1);
        int buffered = w.buffered();
        assertThat(buffered).as("the prefetch grew and filled").isEqualTo(concurrency);
        assertThat(q.stats().inFlight()).isEqualTo(2 * concurrency);

        Future<WorkerShutdown> stopping = background.submit(() -> w.shutdown(LIMIT));
        Await.until("the buffered messages handed back while the handlers still run", LIMIT,
                () -> watcher.released.size() == buffered && q.stats().inFlight() == concurrency);
        assertThat(q.stats().ready()).isEqualTo(n - 1 - concurrency);
        assertThat(stopping.isDone()).as("still waiting for the running handlers").isFalse();

        jobs.permits.release(concurrency);
        WorkerShutdown s = stopping.get(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(s).isEqualTo(new WorkerShutdown(buffered, concurrency, 0, 0));
        assertThat(w.held()).isZero();
        assertThat(watcher.acks).hasSize(1 + concurrency);
        List<Delivery<String>> rest = q.poll(DelayedQueue.MAX_BATCH, Duration.ZERO);
        assertThat(rest).hasSize(n - 1 - concurrency);
        Set<String> restIds = ConcurrentHashMap.newKeySet();
        rest.forEach(d -> restIds.add(d.id()));
        assertThat(restIds).containsAll(watcher.released);
        assertThat(rest).allSatisfy(d -> assertThat(d.attempt()).as("released: not an attempt").isOne());
    }
}

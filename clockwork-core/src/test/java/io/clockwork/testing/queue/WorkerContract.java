package io.clockwork.testing.queue;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.worker.Job;
import io.clockwork.worker.JobHandler;
import io.clockwork.worker.JobTimeoutException;
import io.clockwork.worker.RetryLater;
import io.clockwork.worker.RetryPolicy;
import io.clockwork.worker.Worker;
import io.clockwork.worker.WorkerListener;
import io.clockwork.worker.WorkerShutdown;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The behaviour of a {@link Worker} on every {@link DelayedQueue} backend, written once: a backend's test extends this
 * class and supplies fresh queues. Shipped in clockwork-core's test-jar so that clockwork-redis runs it against a real
 * Redis.
 *
 * <p>The worker runs in real time, so the tests use short visibility timeouts and retry delays, wait for conditions
 * with {@link Await} (never for a fixed time), and keep their runs to a second or two each.
 */
public abstract class WorkerContract {

    /** How long a test waits for a condition before it fails: far longer than a correct run takes. */
    protected static final Duration LIMIT = Duration.ofSeconds(30);

    private final List<Worker<?>> workers = new CopyOnWriteArrayList<>();
    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "worker-contract-background");
        t.setDaemon(true);
        return t;
    });

    /**
     * Creates a fresh, empty queue with a new name, on the system clock; the subclass closes it after the test.
     *
     * @param codec   the codec
     * @param options options applied to the backend's builder
     * @param <V>     the value type
     * @return the queue
     */
    protected abstract <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options);

    /**
     * Opens a second client of a queue made by {@link #newQueue}: on a shared backend a new client of the same name,
     * in process the queue itself.
     *
     * @param queue a queue from {@link #newQueue}
     * @return a queue object that sees the same messages
     */
    protected abstract DelayedQueue<String> otherClientOf(DelayedQueue<String> queue);

    /** Closes every queue {@link #newQueue} and {@link #otherClientOf} opened; called after the workers stopped. */
    protected abstract void closeQueues();

    @AfterEach
    void stopWorkers() throws InterruptedException {
        for (Worker<?> w : workers) {
            w.shutdown(Duration.ZERO);
        }
        background.shutdownNow();
        closeQueues();
    }

    /** Starts a worker and shuts it down after the test. */
    protected final <V> Worker<V> start(Worker.Builder<V> builder) {
        Worker<V> w = builder.build();
        workers.add(w);
        return w;
    }

    private DelayedQueue<String> queue(Consumer<DelayedQueueBuilder<String, ?>> options) {
        return newQueue(Codec.string(), options);
    }

    private static List<String> offer(DelayedQueue<String> q, int n, String prefix) {
        List<String> ids = new ArrayList<>(n);
        for (int from = 0; from < n; from += DelayedQueue.MAX_BATCH) {
            Map<String, String> batch = new LinkedHashMap<>();
            for (int i = from; i < Math.min(n, from + DelayedQueue.MAX_BATCH); i++) {
                batch.put(prefix + i, "value-" + i);
            }
            ids.addAll(q.offerAll(batch, Duration.ZERO));
        }
        assertThat(ids).hasSize(n);
        return ids;
    }

    private static long total(DelayedQueue<?> q) {
        var s = q.stats();
        return s.delayed() + s.ready() + s.inFlight();
    }

    /** Records every event, by kind, as {@code kind:id} (and the reason or delay where there is one). */
    static final class Recorder implements WorkerListener<String> {
        final List<String> events = new CopyOnWriteArrayList<>();
        final Map<String, AtomicInteger> acks = new ConcurrentHashMap<>();
        final List<String> backendErrors = new CopyOnWriteArrayList<>();
        /** {@code id:outcome:nanos} per handler run; apart from {@link #events}, whose order tests check. */
        final List<String> handled = new CopyOnWriteArrayList<>();

        @Override
        public void handled(Job<String> job, long nanos, Throwable failure) {
            handled.add(job.id() + ":" + (failure == null ? "ok" : failure.getClass().getSimpleName()) + ":" + nanos);
        }

        @Override
        public void delivered(Job<String> job) {
            events.add("delivered:" + job.id());
        }

        @Override
        public void acked(Job<String> job) {
            events.add("acked:" + job.id()); // before the count, which tests await: then the event is there
            acks.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void retried(Job<String> job, Duration delay, String error) {
            events.add("retried:" + job.id() + ":" + delay.toMillis() + ":" + error);
        }

        @Override
        public void deadLettered(Job<String> job, String reason) {
            events.add("deadLettered:" + job.id() + ":" + reason);
        }

        @Override
        public void released(Job<String> job) {
            events.add("released:" + job.id());
        }

        @Override
        public void leaseLost(Job<String> job) {
            events.add("leaseLost:" + job.id());
        }

        @Override
        public void backendError(String operation, RuntimeException error) {
            backendErrors.add(operation);
        }

        List<String> of(String kind) {
            return events.stream().filter(e -> e.startsWith(kind + ":")).toList();
        }

        int acked() {
            return acks.size();
        }
    }

    // ---- the happy path ----

    @Test
    void aWorkerOnAPausedQueueIdlesWithoutSpinningAndWorksOnResume() throws Exception {
        DelayedQueue<String> q = queue(b -> { });
        q.pause();
        List<String> ids = offer(q, 20, "p-");
        PollCountingQueue<String> counted = new PollCountingQueue<>(q);
        Set<String> handled = ConcurrentHashMap.newKeySet();
        long start = System.nanoTime();
        start(Worker.builder(counted, job -> handled.add(job.id())).concurrency(4)
                .pollWait(Duration.ofMillis(200)));
        Await.until("four polls of the paused queue", LIMIT, () -> counted.polls() >= 4);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("each paused poll waits its wait: no spinning")
                .isGreaterThanOrEqualTo(Duration.ofMillis(500));
        assertThat(handled).isEmpty();
        q.resume();
        Await.until("every message handled after resume", LIMIT, () -> handled.size() == ids.size());
        assertThat(handled).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void theHandlerSeesTheMessagesHeaders() throws Exception {
        DelayedQueue<String> q = queue(b -> { });
        q.offer(io.clockwork.queue.Message.of("a").id("with-headers").header("traceparent", "00-abc-01")
                .header("tenant", "acme"));
        Map<String, Map<String, String>> seen = new ConcurrentHashMap<>();
        start(Worker.builder(q, job -> seen.put(job.id(), job.headers())));
        Await.until("the message handled", LIMIT, () -> seen.containsKey("with-headers"));
        assertThat(seen.get("with-headers")).containsExactly(Map.entry("traceparent", "00-abc-01"),
                Map.entry("tenant", "acme"));
    }

    @Test
    void everyMessageIsHandledOnceWhenHandlersSucceed() throws Exception {
        DelayedQueue<String> q = queue(b -> { });
        List<String> ids = offer(q, 500, "m-");
        Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
        Recorder events = new Recorder();
        Worker<String> w = start(Worker.builder(q, job -> {
            assertThat(job.value()).isEqualTo("value-" + job.id().substring(2));
            handled.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
        }).concurrency(4).prefetch(16).listener(events));
        Await.until("every message acked", LIMIT, () -> events.acked() == ids.size());
        Await.until("the queue empty", LIMIT, () -> total(q) == 0);
        assertThat(handled.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(handled.values()).allSatisfy(n -> assertThat(n.get()).isOne());
        assertThat(events.acks.values()).allSatisfy(n -> assertThat(n.get()).isOne());
        assertThat(events.of("delivered")).hasSize(ids.size());
        WorkerShutdown s = w.shutdown(Duration.ofSeconds(5));
        assertThat(s.clean()).isTrue();
        assertThat(w.held()).isZero();
    }

    // ---- failures ----

    @Test
    void failedJobsAreRetriedWithBackoffThenDeadLetteredWithTheLastError() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(10));
        q.offer("job", "v", Duration.ZERO);
        List<Long> attemptsAt = new CopyOnWriteArrayList<>();
        Recorder events = new Recorder();
        RetryPolicy policy = RetryPolicy.builder().initialDelay(Duration.ofMillis(100)).multiplier(2)
                .maxDelay(Duration.ofSeconds(1)).jitter(0).maxAttempts(3).build();
        start(Worker.builder(q, job -> {
            attemptsAt.add(System.nanoTime());
            throw new IllegalStateException("boom " + job.attempt());
        }).retryPolicy(policy).listener(events));
        Await.until("the job dead and reported", LIMIT,
                () -> q.stats().dead() == 1 && events.of("deadLettered").size() == 1);
        DeadLetter letter = q.deadLetters(1).get(0);
        assertThat(letter.id()).isEqualTo("job");
        assertThat(letter.attempts()).isEqualTo(3);
        assertThat(letter.reason()).isEqualTo("java.lang.IllegalStateException: boom 3");
        assertThat(attemptsAt).hasSize(3);
        assertThat(attemptsAt.get(1) - attemptsAt.get(0)).as("first backoff").isGreaterThanOrEqualTo(100_000_000L);
        assertThat(attemptsAt.get(2) - attemptsAt.get(1)).as("second backoff").isGreaterThanOrEqualTo(200_000_000L);
        assertThat(events.of("retried")).containsExactly(
                "retried:job:100:java.lang.IllegalStateException: boom 1",
                "retried:job:200:java.lang.IllegalStateException: boom 2");
        assertThat(events.of("deadLettered")).containsExactly(
                "deadLettered:job:java.lang.IllegalStateException: boom 3");
        assertThat(events.of("acked")).isEmpty();
        assertThat(events.handled).hasSize(3).allMatch(h -> h.startsWith("job:IllegalStateException:"));
    }

    @Test
    void theListenerHearsHowLongEachHandlerRanAndHowItEnded() throws Exception {
        DelayedQueue<String> q = queue(b -> { });
        q.offer("slow", "v", Duration.ZERO);
        Recorder events = new Recorder();
        // Why real time: a handler's real work, whose run time is what the listener hears
        start(Worker.builder(q, job -> Thread.sleep(50)).listener(events));
        Await.until("acked", LIMIT, () -> events.acked() == 1);
        assertThat(events.handled).hasSize(1);
        String[] h = events.handled.get(0).split(":");
        assertThat(h[0] + ":" + h[1]).isEqualTo("slow:ok");
        assertThat(Long.parseLong(h[2])).as("nanos the handler ran").isGreaterThanOrEqualTo(50_000_000L);
    }

    @Test
    void anExceptionNeverRetriedGoesStraightToTheDeadLetters() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(10));
        q.offer("bad", "v", Duration.ZERO);
        AtomicInteger calls = new AtomicInteger();
        Recorder events = new Recorder();
        start(Worker.builder(q, job -> {
            calls.incrementAndGet();
            throw new IllegalArgumentException("no such customer");
        }).retryPolicy(RetryPolicy.builder().noRetry(IllegalArgumentException.class).build()).listener(events));
        Await.until("the job dead and reported", LIMIT,
                () -> q.stats().dead() == 1 && events.of("deadLettered").size() == 1);
        DeadLetter letter = q.deadLetters(1).get(0);
        assertThat(letter.attempts()).isOne();
        assertThat(letter.reason()).isEqualTo("java.lang.IllegalArgumentException: no such customer");
        assertThat(calls.get()).isOne();
        assertThat(events.of("deadLettered")).hasSize(1);
        assertThat(events.of("retried")).isEmpty();
    }

    @Test
    void aHandlerChoosesItsRetryDelayWithRetryLater() throws Exception {
        DelayedQueue<String> q = queue(b -> { });
        q.offer("limited", "v", Duration.ZERO);
        List<Long> attemptsAt = new CopyOnWriteArrayList<>();
        Recorder events = new Recorder();
        start(Worker.builder(q, job -> {
            attemptsAt.add(System.nanoTime());
            if (job.attempt() == 1) {
                throw new RetryLater(Duration.ofMillis(300), new java.io.IOException("429 Too Many Requests"));
            }
        }).retryPolicy(RetryPolicy.fixed(Duration.ofMinutes(10))).listener(events));
        Await.until("the job acked", LIMIT, () -> events.acked() == 1);
        assertThat(attemptsAt.get(1) - attemptsAt.get(0)).isGreaterThanOrEqualTo(300_000_000L);
        assertThat(events.of("retried")).containsExactly("retried:limited:300:java.io.IOException: 429 Too Many"
                + " Requests");
    }

    // ---- shutdown ----

    @Test
    void shutdownReleasesUnstartedPrefetchedMessagesAtOnceAndWaitsForRunningHandlers() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(Duration.ofSeconds(30)));
        offer(q, 5, "m-");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Recorder events = new Recorder();
        Worker<String> w = start(Worker.builder(q, job -> {
            started.countDown();
            finish.await();
        }).concurrency(1).prefetch(4).listener(events));
        assertThat(started.await(LIMIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        Await.until("all five held", LIMIT, () -> w.held() == 5);

        Future<WorkerShutdown> stopping = background.submit(() -> w.shutdown(LIMIT));
        DelayedQueue<String> other = otherClientOf(q);
        List<Delivery<String>> taken = new ArrayList<>();
        Await.until("the four prefetched messages pollable by another consumer", LIMIT, () -> {
            try {
                taken.addAll(other.poll(4, Duration.ZERO));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return taken.size() == 4;
        });
        assertThat(taken).allSatisfy(d -> assertThat(d.attempt()).as("released: not an attempt").isOne());
        assertThat(stopping.isDone()).as("still waiting for the running handler").isFalse();

        finish.countDown();
        WorkerShutdown s = stopping.get(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(s).isEqualTo(new WorkerShutdown(4, 1, 0, 0));
        assertThat(events.of("released")).hasSize(4);
        assertThat(events.acked()).as("the running job, acked before shutdown returned").isOne();
        assertThat(other.ackAll(taken)).containsOnly(true);
        assertThat(total(q)).isZero();
    }

    @Test
    void aHandlerStillRunningAtTheDeadlineIsInterruptedAndItsMessageComesBack() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(Duration.ofMillis(500)));
        q.offer("stuck", "v", Duration.ZERO);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger interrupted = new AtomicInteger();
        Worker<String> w = start(Worker.builder(q, job -> {
            started.countDown();
            try {
                never.await(); // a job that only an interrupt ends
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                throw e;
            }
        }));
        assertThat(started.await(LIMIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        WorkerShutdown s = w.shutdown(Duration.ofMillis(100));
        assertThat(s.interrupted()).isOne();
        assertThat(s.clean()).isFalse();
        Await.until("the handler interrupted", LIMIT, () -> interrupted.get() == 1);
        DelayedQueue<String> other = otherClientOf(q);
        Delivery<String> again = other.poll(LIMIT);
        assertThat(again).as("back after the visibility timeout").isNotNull();
        assertThat(again.id()).isEqualTo("stuck");
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(q.stats().dead()).as("the interrupted attempt was neither retried nor buried").isZero();
    }

    // ---- leases ----

    @Test
    void aHandlerThreeTimesLongerThanTheVisibilityTimeoutRunsOnce() throws Exception {
        Duration visibility = Duration.ofMillis(600);
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(visibility));
        q.offer("long", "v", Duration.ZERO);
        AtomicInteger runs = new AtomicInteger();
        Recorder events = new Recorder();
        JobHandler<String> slow = job -> {
            runs.incrementAndGet();
            Thread.sleep(visibility.toMillis() * 3); // why real time: work outliving the lease the heartbeat extends
        };
        start(Worker.builder(q, slow).concurrency(2).listener(events));
        start(Worker.builder(otherClientOf(q), slow).concurrency(2).listener(events));
        Await.until("the job acked", LIMIT, () -> events.acked() == 1);
        assertThat(runs.get()).isOne();
        assertThat(events.of("leaseLost")).isEmpty();
        assertThat(events.of("delivered")).hasSize(1);
    }

    @Test
    void aCancelledRunningJobIsInterruptedAtTheNextHeartbeatAndNeitherAckedNorRetried() throws Exception {
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(Duration.ofMillis(300)));
        q.offer("cancelled", "v", Duration.ZERO);
        Recorder events = new Recorder();
        AtomicInteger interruptedWithLeaseLost = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        start(Worker.builder(q, job -> {
            started.countDown();
            try {
                never.await(); // a long job: only the worker's interrupt ends it
            } catch (InterruptedException e) {
                if (job.isLeaseLost()) {
                    interruptedWithLeaseLost.incrementAndGet();
                }
                throw e;
            }
        }).listener(events));
        assertThat(started.await(LIMIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(q.cancel("cancelled")).isTrue();
        Await.until("the handler interrupted, its lease lost", LIMIT, () -> interruptedWithLeaseLost.get() == 1);
        Await.until("the lease lost reported", LIMIT, () -> events.of("leaseLost").size() == 1);
        assertThat(events.of("acked")).isEmpty();
        assertThat(events.of("retried")).isEmpty();
        assertThat(events.of("deadLettered")).isEmpty();
        assertThat(q.stats().dead()).isZero();
        assertThat(q.stats().total()).isZero();
    }

    @Test
    void aJobPastTheWorkersTimeoutIsInterruptedAndRetriedByThePolicy() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(5));
        q.offer("slow", "v", Duration.ZERO);
        Recorder events = new Recorder();
        AtomicInteger interrupted = new AtomicInteger();
        RetryPolicy now = RetryPolicy.builder().initialDelay(Duration.ofMillis(1)).jitter(0).maxAttempts(5).build();
        start(Worker.builder(q, job -> {
            if (job.attempt() == 1) {
                try {
                    new CountDownLatch(1).await(); // stuck until the timeout interrupts it
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                    throw e;
                }
            }
        }).timeout(Duration.ofMillis(200)).retryPolicy(now).listener(events));
        Await.until("the retry acked", LIMIT, () -> events.acked() == 1);
        assertThat(interrupted.get()).isEqualTo(1);
        assertThat(events.of("retried")).singleElement().asString()
                .contains(JobTimeoutException.class.getName()).contains("timeout of 200 ms");
        Await.until("the queue empty", LIMIT, () -> total(q) == 0);
    }

    @Test
    void aJobThatIgnoresTheInterruptIsStillSettledAtItsTimeout() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(1));
        q.offer(io.clockwork.queue.Message.of("v").id("stubborn").timeout(Duration.ofMillis(150)));
        Recorder events = new Recorder();
        CountDownLatch release = new CountDownLatch(1);
        start(Worker.builder(q, job -> {
            while (release.getCount() > 0) {
                Thread.onSpinWait(); // ignores interrupts
            }
        }).timeout(Duration.ofMinutes(10)).listener(events));
        Await.until("dead-lettered by its own timeout, not the worker's", LIMIT,
                () -> events.of("deadLettered").size() == 1);
        assertThat(events.of("deadLettered").get(0)).contains("timeout of 150 ms");
        assertThat(q.deadLetters(1)).singleElement().extracting(DeadLetter::id).isEqualTo("stubborn");
        release.countDown();
        assertThat(events.of("acked")).isEmpty();
    }

    @Test
    void aMalformedTimeoutHeaderFailsTheJobWithAnErrorNamingIt() throws Exception {
        DelayedQueue<String> q = queue(b -> b.maxAttempts(1));
        q.offer(io.clockwork.queue.Message.of("v").id("bad-timeout").header(io.clockwork.queue.Message.TIMEOUT_HEADER,
                "soon"));
        Recorder events = new Recorder();
        AtomicInteger ran = new AtomicInteger();
        start(Worker.builder(q, job -> ran.incrementAndGet()).listener(events));
        Await.until("dead-lettered", LIMIT, () -> events.of("deadLettered").size() == 1);
        assertThat(events.of("deadLettered").get(0)).contains("clockwork-timeout-ms").contains("'soon'");
        assertThat(ran.get()).as("the handler never ran").isZero();
    }

    @Test
    void timeoutsOutOfRangeAreRefusedByName() {
        DelayedQueue<String> q = queue(b -> { });
        Worker.Builder<String> b = Worker.builder(q, job -> { });
        assertThatThrownBy(() -> b.timeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout must be in (0, PT24H]");
        assertThatThrownBy(() -> b.timeout(Duration.ofDays(2))).hasMessageContaining("timeout");
        assertThatThrownBy(() -> io.clockwork.queue.Message.of("v").timeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout must be in");
        assertThat(io.clockwork.queue.Message.of("v").timeout(Duration.ofNanos(1_500_000)).headers())
                .containsEntry(io.clockwork.queue.Message.TIMEOUT_HEADER, "2");
    }

    // ---- listeners and backend failures ----

    @Test
    void listenersSeeEachEvent() throws Exception {
        DelayedQueue<String> q = queue(b -> { });
        q.offer("ok", "v", Duration.ZERO);
        q.offer("flaky", "v", Duration.ZERO);
        q.offer("fatal", "v", Duration.ZERO);
        Recorder events = new Recorder();
        start(Worker.builder(q, job -> {
            if (job.id().equals("fatal")) {
                throw new UnsupportedOperationException("never");
            }
            if (job.id().equals("flaky") && job.attempt() == 1) {
                throw new java.io.IOException("reset");
            }
        }).retryPolicy(RetryPolicy.builder().initialDelay(Duration.ofMillis(10)).jitter(0)
                .noRetry(UnsupportedOperationException.class).build()).listener(events));
        Await.until("both good jobs acked", LIMIT, () -> events.acked() == 2);
        Await.until("the fatal one dead", LIMIT, () -> events.of("deadLettered").size() == 1);
        assertThat(events.of("delivered")).containsExactlyInAnyOrder("delivered:ok", "delivered:flaky",
                "delivered:fatal", "delivered:flaky");
        assertThat(events.of("acked")).containsExactlyInAnyOrder("acked:ok", "acked:flaky");
        assertThat(events.of("retried")).containsExactly("retried:flaky:10:java.io.IOException: reset");
        assertThat(events.of("deadLettered")).containsExactly(
                "deadLettered:fatal:java.lang.UnsupportedOperationException: never");
        assertThat(events.backendErrors).isEmpty();
    }

    @Test
    void backendFailuresNeverEndTheWorkerWhichResumesByItself() throws Exception {
        FlakyQueue<String> q = new FlakyQueue<>(queue(b -> b.visibilityTimeout(Duration.ofSeconds(2))));
        Recorder events = new Recorder();
        start(Worker.builder(q, job -> { }).concurrency(2).pollWait(Duration.ofMillis(100)).listener(events));
        offer(q, 10, "a-");
        Await.until("the first ten acked", LIMIT, () -> events.acked() == 10);
        q.failing(true);
        Await.until("a poll failed", LIMIT, () -> events.backendErrors.contains("poll"));
        offer(q, 10, "b-");
        q.failing(false);
        Await.until("the other ten acked", LIMIT, () -> events.acked() == 20);
        assertThat(events.acks.values()).allSatisfy(n -> assertThat(n.get()).isOne());
    }

    // ---- stress ----

    @Test
    void workersClosedAndKilledMidRunLoseNothingAndAckEachMessageOnce() throws Exception {
        int n = 3000;
        DelayedQueue<String> q = queue(b -> b.visibilityTimeout(Duration.ofSeconds(1)).maxAttempts(1000));
        List<String> ids = offer(q, n, "s-");
        Map<String, AtomicInteger> acks = new ConcurrentHashMap<>();
        WorkerListener<String> counter = new WorkerListener<>() {
            @Override
            public void acked(Job<String> job) {
                acks.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
            }
        };
        JobHandler<String> work = job -> {
            if (Math.floorMod(job.id().hashCode(), 50) == 0) {
                Thread.sleep(1); // why real time: some handlers take time, so jobs overlap and finish out of order
            }
        };
        List<FlakyQueue<String>> clients = Collections.synchronizedList(new ArrayList<>());
        List<Worker<String>> live = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            FlakyQueue<String> client = new FlakyQueue<>(otherClientOf(q));
            clients.add(client);
            live.add(start(Worker.builder(client, work).concurrency(2).prefetch(8).listener(counter)
                    .pollWait(Duration.ofMillis(100))));
        }
        Await.until("a third done", LIMIT, () -> acks.size() >= n / 3);
        // Close one gracefully: its prefetched messages go back at once, its running ones finish.
        WorkerShutdown closed = live.get(0).shutdown(Duration.ofSeconds(5));
        assertThat(closed.interrupted()).isZero();
        // Kill another: its backend calls fail from now on, as if its process died with messages in hand.
        clients.get(1).failing(true);
        live.get(1).shutdown(Duration.ZERO);
        FlakyQueue<String> replacement = new FlakyQueue<>(otherClientOf(q));
        start(Worker.builder(replacement, work).concurrency(2).prefetch(8).listener(counter)
                .pollWait(Duration.ofMillis(100)));
        Await.until("every message acked", LIMIT, () -> acks.size() == n);
        Await.until("the queue empty", LIMIT, () -> total(q) == 0);
        assertThat(acks.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(acks.values()).allSatisfy(c -> assertThat(c.get()).as("acked once").isOne());
        assertThat(q.stats().dead()).isZero();
    }
}

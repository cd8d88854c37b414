package io.clockwork.worker;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.testing.Await;
import io.clockwork.testing.queue.PollCountingQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link Worker} over an in-process queue with flow control: it holds each group to the queue's
 * {@code maxInFlightPerGroup} and idles, without spinning, while a rate limit holds messages back. On the system
 * clock, as the worker runs in real time.
 */
class InMemoryWorkerFlowControlTest {

    private final List<Worker<?>> workers = new CopyOnWriteArrayList<>();
    private final List<DelayedQueue<?>> queues = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (Worker<?> w : workers) {
            w.shutdown(Duration.ZERO);
        }
        queues.forEach(DelayedQueue::close);
    }

    private <V> Worker<V> start(Worker.Builder<V> builder) {
        Worker<V> w = builder.build();
        workers.add(w);
        return w;
    }

    @Test
    void aWorkerOfConcurrencyFourNeverRunsTwoMessagesOfOneGroupAtOnceUnderMaxInFlightPerGroupOne() {
        InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder().maxInFlightPerGroup(1).build();
        queues.add(q);
        int groups = 3; // fewer than the handlers, so that without the limit two of a group would run together
        int perGroup = 40;
        for (int i = 0; i < perGroup; i++) {
            for (int g = 0; g < groups; g++) {
                q.offer(Message.of(g + ":" + i).group("g" + g));
            }
        }
        Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        Map<String, List<Integer>> order = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger now = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        start(Worker.<String>builder(q, job -> {
            String[] parts = job.value().split(":");
            AtomicInteger mine = running.computeIfAbsent(parts[0], k -> new AtomicInteger());
            if (mine.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            most.accumulateAndGet(now.incrementAndGet(), Math::max);
            order.computeIfAbsent(parts[0], k -> new CopyOnWriteArrayList<>()).add(Integer.parseInt(parts[1]));
            LockSupport.parkNanos(200_000); // a handler's real work, so that handlers overlap
            now.decrementAndGet();
            mine.decrementAndGet();
            done.incrementAndGet();
        }).concurrency(4).prefetch(8));
        Await.until("every message handled", () -> done.get() == groups * perGroup && q.stats().total() == 0);
        assertThat(overlaps.get()).as("two messages of one group running at once").isZero();
        assertThat(most.get()).as("the groups did run in parallel").isGreaterThan(1);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < perGroup; i++) {
            expected.add(i);
        }
        assertThat(order).hasSize(groups).allSatisfy((g, handled) ->
                assertThat(handled).as("group %s, one at a time in due order", g).isEqualTo(expected));
    }

    @Test
    void aWorkerHeldBackByARateLimitIdlesWithoutSpinningAndCountsTheWait() {
        InMemoryDelayedQueue<String> q = InMemoryDelayedQueue.<String>builder()
                .rateLimit(2, Duration.ofHours(1)).build();
        queues.add(q);
        for (int i = 0; i < 6; i++) {
            q.offer("m" + i, Duration.ZERO);
        }
        PollCountingQueue<String> counted = new PollCountingQueue<>(q);
        Set<String> handled = ConcurrentHashMap.newKeySet();
        long start = System.nanoTime();
        start(Worker.builder(counted, job -> handled.add(job.value())).concurrency(4)
                .pollWait(Duration.ofMillis(200)));
        Await.until("two handled, then four polls held back", () -> handled.size() == 2 && counted.polls() >= 6);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("each held-back poll waits its wait: no spinning")
                .isGreaterThanOrEqualTo(Duration.ofMillis(600));
        assertThat(handled).hasSize(2);
        assertThat(q.stats().ready()).as("held back, not dropped").isEqualTo(4);
        assertThat(q.counters().orElseThrow().rateLimited()).isGreaterThanOrEqualTo(1);
    }
}

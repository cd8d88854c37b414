package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.worker.Job;
import io.clockwork.worker.Worker;
import io.clockwork.worker.WorkerListener;
import io.clockwork.worker.WorkerShutdown;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.clockwork.redis.Reliability.hold;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link Worker} under load while Redis is frozen for 5 s ({@code SIGSTOP}, then {@code SIGCONT}): its client fails
 * fast (no {@code retryOnConnectionLoss}), so every poll, ack and extend of the worker fails while Redis is frozen,
 * and leases (visibility 2 s) run out meanwhile. Nobody restarts anything: the worker backs off, resumes by itself,
 * every message offered is handled, the queue ends empty, and no message is acked twice. (Leases run out in the
 * freeze, so some messages go to another handler and their first leases are reported lost: the test counts handled
 * messages and the queue's emptiness, not ack events; {@link RedisAckRetryIT} checks the ack events through a freeze
 * shorter than the leases.)
 */
@ExtendWith(RedisExtension.class)
class RedisWorkerPauseIT {

    private static final Duration PAUSE = Duration.ofSeconds(5);

    private final RedisServerProcess redis;

    RedisWorkerPauseIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    private static boolean empty(RedisDelayedQueue<String> q) {
        var s = q.stats();
        return s.delayed() + s.ready() + s.inFlight() == 0;
    }

    @Test
    void aWorkerRidesOutAFiveSecondPauseByItselfAndHandlesEveryMessage() throws Exception {
        String name = "worker-paused";
        ExecutorService threads = Executors.newCachedThreadPool();
        try (RedisDelayedQueue<String> producer = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                     .commandTimeout(Duration.ofSeconds(1)).retryOnConnectionLoss(Duration.ofSeconds(30))
                     .visibilityTimeout(Duration.ofSeconds(2)).build();
             RedisDelayedQueue<String> consumer = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                     .commandTimeout(Duration.ofSeconds(1)).visibilityTimeout(Duration.ofSeconds(2)).build()) {
            Set<String> stored = ConcurrentHashMap.newKeySet();
            Set<String> attempted = ConcurrentHashMap.newKeySet();
            Map<String, AtomicInteger> acks = new ConcurrentHashMap<>();
            Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
            Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
            AtomicInteger leasesLost = new AtomicInteger();
            AtomicLong lastAckNanos = new AtomicLong();
            WorkerListener<String> listener = new WorkerListener<>() {
                @Override
                public void acked(Job<String> job) {
                    acks.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
                    lastAckNanos.set(System.nanoTime());
                }

                @Override
                public void leaseLost(Job<String> job) {
                    leasesLost.incrementAndGet();
                }

                @Override
                public void backendError(String operation, RuntimeException error) {
                    errors.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet();
                }
            };
            Worker<String> worker = Worker.builder(consumer, (Job<String> job) -> {
                Thread.sleep(1);
                handled.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
            })
                    .concurrency(4).prefetch(16).pollWait(Duration.ofMillis(200)).listener(listener).build();
            AtomicBoolean stop = new AtomicBoolean();
            Future<?> producing = threads.submit(() -> {
                for (int i = 0; !stop.get(); i++) {
                    attempted.add("p-" + i);
                    try {
                        if (producer.offer("p-" + i, "v" + i, Duration.ZERO)) {
                            stored.add("p-" + i);
                        }
                        Thread.sleep(0, 200_000);
                    } catch (RedisQueueException e) {
                        // outcome unknown: the message may be stored (then it is acked like any other) or not
                    }
                }
                return null;
            });

            Await.until("steady traffic", Duration.ofSeconds(20), () -> acks.size() >= 1_000);
            redis.pause();
            hold(PAUSE);
            int ackedFrozen = acks.size();
            redis.resume();
            long resumedAt = System.nanoTime();
            Await.until("acks again after the pause", Duration.ofSeconds(20),
                    () -> lastAckNanos.get() - resumedAt > 0);
            long recovery = lastAckNanos.get() - resumedAt;
            Await.until("1,000 more acks", Duration.ofSeconds(20), () -> acks.size() >= ackedFrozen + 1_000);
            stop.set(true);
            producing.get(30, TimeUnit.SECONDS);
            Await.until("every stored message handled and the queue empty", Duration.ofSeconds(30),
                    () -> handled.keySet().containsAll(stored) && empty(producer));
            WorkerShutdown s = worker.shutdown(Duration.ofSeconds(10));

            assertThat(attempted).as("nothing handled that was never offered").containsAll(handled.keySet());
            assertThat(acks.values()).allSatisfy(n -> assertThat(n.get()).as("never acked twice").isOne());
            assertThat(producer.stats().dead()).isZero();
            long twice = handled.values().stream().filter(n -> n.get() > 1).count();
            assertThat(errors).as("the worker saw the pause").isNotEmpty();
            assertThat(s.clean()).isTrue();
            System.out.printf("[reliability] RedisWorkerPauseIT: %,d messages offered, all handled, queue empty, none"
                    + " acked twice; %d handled twice (leases run out in the freeze); first ack %d ms after SIGCONT;"
                    + " backend errors during the pause %s; leases lost %d; %s%n", stored.size(), twice,
                    TimeUnit.NANOSECONDS.toMillis(recovery), errors, leasesLost.get(), s);
        } finally {
            threads.shutdownNow();
        }
    }
}

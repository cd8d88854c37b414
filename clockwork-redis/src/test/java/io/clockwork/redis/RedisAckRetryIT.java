package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.worker.Job;
import io.clockwork.queue.QueueCounters;
import io.clockwork.worker.Worker;
import io.clockwork.worker.WorkerListener;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.clockwork.redis.Reliability.hold;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An ack whose call timed out while Redis was frozen ({@code SIGSTOP}) still runs when Redis wakes ({@code SIGCONT}):
 * its retry finds the message gone, and must report it acked; while an ack whose delivery's lease ran out, and whose
 * message another consumer took and acked, must still be reported lost, retried or not.
 */
@ExtendWith(RedisExtension.class)
class RedisAckRetryIT {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    private final RedisServerProcess redis;

    RedisAckRetryIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    private RedisDelayedQueue<String> queue(String name, Duration visibility) {
        return RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).commandTimeout(COMMAND_TIMEOUT)
                .visibilityTimeout(visibility).build();
    }

    private static long acked(RedisDelayedQueue<?> q) {
        return q.counters().orElseThrow().acked();
    }

    @Test
    void anAckThatTimedOutInAFreezeAndRanWhenRedisWokeIsReportedAckedByItsRetry() throws Exception {
        try (RedisDelayedQueue<String> q = queue("ack-retried", Duration.ofSeconds(10))) {
            for (String id : List.of("single", "batch", "turnover")) {
                q.offer(id, "v", Duration.ZERO);
            }
            Delivery<String> single = q.poll(Duration.ofSeconds(1));
            Delivery<String> batch = q.poll(Duration.ofSeconds(1));
            Delivery<String> turnover = q.poll(Duration.ofSeconds(1));
            assertThat(List.of(single.id(), batch.id(), turnover.id()))
                    .containsExactly("single", "batch", "turnover");
            redis.pause();
            try {
                assertThatThrownBy(single::ack).isInstanceOf(RedisQueueException.class);
                assertThatThrownBy(() -> q.ackAll(List.of(batch))).isInstanceOf(RedisQueueException.class);
                assertThatThrownBy(() -> q.ackAndPoll(turnover)).isInstanceOf(RedisQueueException.class);
            } finally {
                redis.resume();
            }
            Await.until("the acks sent into the freeze ran when Redis woke", () -> acked(q) == 3);
            assertThat(q.stats().inFlight()).isZero();

            assertThat(single.ack()).as("the retry of a single ack").isTrue();
            assertThat(q.ackAll(List.of(batch))).as("the retry of an ackAll").containsExactly(true);
            assertThat(q.ackAndPoll(turnover).acked()).as("the retry of an ackAndPoll").isTrue();
            assertThat(acked(q)).as("nothing acked twice").isEqualTo(3);
        }
    }

    @Test
    void aRetriedAckWhoseLeaseRanOutAndWentToAnotherConsumerIsStillReportedLost() throws Exception {
        try (RedisDelayedQueue<String> q = queue("ack-lost", Duration.ofMillis(500));
             RedisDelayedQueue<String> other = queue("ack-lost", Duration.ofSeconds(10))) {
            q.offer("x", "v", Duration.ZERO);
            Delivery<String> first = q.poll(Duration.ofSeconds(1));
            Delivery<String> second = other.poll(Duration.ofSeconds(10)); // after the lease ran out
            assertThat(second).isNotNull();
            assertThat(second.id()).isEqualTo("x");
            assertThat(second.ack()).isTrue();
            redis.pause();
            try {
                assertThatThrownBy(first::ack).isInstanceOf(RedisQueueException.class);
            } finally {
                redis.resume();
            }
            assertThat(first.ack()).as("the retry: the message went to another consumer").isFalse();
            assertThat(q.ackAll(List.of(first))).containsExactly(false);
            assertThat(first.extend(Duration.ofSeconds(1))).isFalse();
            assertThat(acked(q)).isEqualTo(1);
        }
    }

    @Test
    void threeWorkersThroughAFiveSecondFreezeReportEveryAckTheServerCountedAndNoLostLease() throws Exception {
        String name = "ack-retry-workers";
        Duration visibility = Duration.ofSeconds(10);
        try (RedisDelayedQueue<String> producer = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .commandTimeout(Duration.ofSeconds(1)).retryOnConnectionLoss(Duration.ofSeconds(30))
                .visibilityTimeout(visibility).build()) {
            Map<String, AtomicInteger> acks = new ConcurrentHashMap<>();
            AtomicInteger leasesLost = new AtomicInteger();
            AtomicInteger backendErrors = new AtomicInteger();
            AtomicLong lastAck = new AtomicLong();
            WorkerListener<String> listener = new WorkerListener<>() {
                @Override
                public void acked(Job<String> job) {
                    acks.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
                    lastAck.set(System.nanoTime());
                }

                @Override
                public void leaseLost(Job<String> job) {
                    leasesLost.incrementAndGet();
                }

                @Override
                public void backendError(String operation, RuntimeException error) {
                    backendErrors.incrementAndGet();
                }
            };
            List<RedisDelayedQueue<String>> consumers = new ArrayList<>();
            List<Worker<String>> workers = new ArrayList<>();
            try {
                for (int w = 0; w < 3; w++) {
                    RedisDelayedQueue<String> c = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                            .commandTimeout(Duration.ofSeconds(1)).visibilityTimeout(visibility).build();
                    consumers.add(c);
                    // each job takes a millisecond of real time, as a handler's work does, so acks are in flight
                    // when Redis freezes
                    workers.add(Worker.builder(c, (Job<String> job) -> Thread.sleep(1)).concurrency(4)
                            .prefetch(16).pollWait(Duration.ofMillis(200)).listener(listener).build());
                }
                int offered = 0;
                for (int round = 0; round < 40; round++) {
                    Map<String, String> batch = new java.util.LinkedHashMap<>();
                    for (int i = 0; i < 500; i++) {
                        batch.put("m-" + offered++, "v");
                    }
                    producer.offerAll(batch, Duration.ZERO);
                }
                Await.until("steady traffic", Duration.ofSeconds(30), () -> acks.size() >= 2_000);
                redis.pause();
                hold(Duration.ofSeconds(5));
                redis.resume();
                long resumed = System.nanoTime();
                int total = offered;
                Await.until("acks again after the freeze", Duration.ofSeconds(30), () -> lastAck.get() - resumed > 0);
                Await.until("every message settled", Duration.ofSeconds(60), () -> {
                    var s = producer.stats();
                    return s.ready() + s.delayed() + s.inFlight() == 0 && acked(producer) == total;
                });
                Await.until("the listeners heard every ack", Duration.ofSeconds(20),
                        () -> acks.size() + leasesLost.get() >= total);
            } finally {
                for (Worker<String> w : workers) {
                    w.shutdown(Duration.ofSeconds(10));
                }
                consumers.forEach(RedisDelayedQueue::close);
            }
            QueueCounters server = producer.counters().orElseThrow();
            assertThat(backendErrors.get()).as("the workers saw the freeze").isPositive();
            assertThat(leasesLost.get()).as("no lease lost: the freeze is shorter than the visibility timeout")
                    .isZero();
            assertThat(acks.values()).allSatisfy(n -> assertThat(n.get()).as("acked once").isOne());
            assertThat((long) acks.size()).as("the listeners' acks, against the server's").isEqualTo(server.acked());
            Reliability.report("RedisAckRetryIT", "%,d acked by the server and heard by the listeners; %d backend"
                    + " errors in the freeze", server.acked(), backendErrors.get());
        }
    }
}

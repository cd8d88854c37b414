package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.RateLimit;
import io.clockwork.worker.Worker;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import io.clockwork.testing.queue.RateLimitContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@link RateLimitContract} on a real {@code redis-server}, plus what only a shared backend promises: one limit
 * for every client of a queue, on the server's clock, stored with the queue.
 */
@ExtendWith(RedisExtension.class)
class RedisRateLimitIT extends RateLimitContract {

    private static final Duration VISIBILITY = Duration.ofMinutes(5);

    private final RedisServerProcess redis;
    private final ContractQueues queues;

    RedisRateLimitIT(RedisServerProcess redis) {
        this.redis = redis;
        this.queues = new ContractQueues(redis, "rate-");
    }

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    /** Half an interval covers a test step's own latency on a busy machine. */
    @Override
    protected Duration interval() {
        return Duration.ofSeconds(1);
    }

    /** Connects the server clock's reader before a test's timed steps, so that its first step pays no connect. */
    @BeforeEach
    void connectTheClock() {
        queues.passTime(Duration.ZERO);
    }

    @Override
    protected void passTime(Duration amount) {
        queues.passTime(amount);
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }

    private RedisDelayedQueue<String> client(String name, int partitions, RateLimit limit) {
        RedisQueueBuilder<String> b = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .partitions(partitions).visibilityTimeout(VISIBILITY);
        if (limit != null) {
            b.rateLimit(limit.permits(), limit.interval());
        }
        return queues.track(b.build());
    }

    /**
     * The server time of every delivery still in flight, read from the in-flight sets: a poll scores its delivery
     * at the server's clock plus the visibility timeout.
     */
    private List<Long> deliveryTimes(String name, int partitions) {
        List<Long> times = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            List<?> r = (List<?>) redis.call("ZRANGE", KeyLayout.prefix(name, p) + "inflight", "0", "-1",
                    "WITHSCORES");
            for (int i = 1; i < r.size(); i += 2) {
                String score = String.valueOf(r.get(i));
                if (!score.equals("inf")) { // the set's keep-alive member
                    times.add(Long.parseLong(score) - VISIBILITY.toMillis());
                }
            }
        }
        times.sort(null);
        return times;
    }

    /** @return the most deliveries in any window (t - window, t] of whole milliseconds */
    static int mostInAnyWindow(List<Long> sorted, long windowMs) {
        int most = 0;
        int from = 0;
        for (int to = 0; to < sorted.size(); to++) {
            while (sorted.get(from) <= sorted.get(to) - windowMs) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        return most;
    }

    @Test
    void threeClientsShareOneLimitOnTheServersClock() throws Exception {
        String name = "rate-shared";
        RateLimit limit = new RateLimit(50, Duration.ofMillis(500));
        int total = 300;
        List<RedisDelayedQueue<String>> clients = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            clients.add(client(name, 2, limit));
        }
        for (int i = 0; i < total; i++) {
            clients.get(0).offer("m" + i, Duration.ZERO);
        }
        AtomicBoolean done = new AtomicBoolean();
        List<Future<Integer>> consumers = new ArrayList<>();
        for (RedisDelayedQueue<String> q : clients) {
            for (int t = 0; t < 2; t++) {
                boolean batches = t == 0;
                consumers.add(background.submit(() -> {
                    int taken = 0;
                    while (!done.get()) {
                        taken += batches ? q.poll(7, Duration.ofMillis(200)).size()
                                : (q.poll(Duration.ofMillis(200)) != null ? 1 : 0);
                    }
                    return taken;
                }));
            }
        }
        Await.until("every message delivered", Duration.ofSeconds(30),
                () -> deliveryTimes(name, 2).size() >= total);
        done.set(true);
        int taken = 0;
        for (Future<Integer> f : consumers) {
            taken += f.get(10, TimeUnit.SECONDS);
        }
        List<Long> times = deliveryTimes(name, 2);
        assertThat(taken).isEqualTo(total);
        assertThat(times).hasSize(total);
        assertThat(mostInAnyWindow(times, 500)).as("deliveries in any 500 ms of the server's clock")
                .isLessThanOrEqualTo(50);
        assertThat(times.get(total - 1) - times.get(0)).as("six windows' worth: five full intervals at least")
                .isGreaterThanOrEqualTo(5 * 500L).isLessThan(5 * 500L + 2_000L);
        RedisDelayedQueue<String> observer = client(name, 2, null);
        assertThat(observer.counters().orElseThrow().rateLimited()).as("waits every process sees").isPositive();
        assertThat(observer.counters().orElseThrow().delivered()).isEqualTo(total);
    }

    @Test
    void theLimitIsStoredWithTheQueueAndTheLastClientBuiltWithOneSetsItForAll() throws Exception {
        String name = "rate-changed";
        RedisDelayedQueue<String> first = client(name, 1, new RateLimit(2, Duration.ofSeconds(30)));
        for (int i = 0; i < 10; i++) {
            first.offer("m" + i, Duration.ZERO);
        }
        assertThat(first.rateLimit()).contains(new RateLimit(2, Duration.ofSeconds(30)));
        assertThat(first.poll(10, Duration.ZERO)).hasSize(2);
        RedisDelayedQueue<String> plain = client(name, 1, null);
        assertThat(plain.rateLimit()).as("a client without a limit follows the stored one")
                .contains(new RateLimit(2, Duration.ofSeconds(30)));
        assertThat(plain.poll(10, Duration.ZERO)).isEmpty();
        RedisDelayedQueue<String> second = client(name, 1, new RateLimit(5, Duration.ofSeconds(30)));
        assertThat(first.rateLimit()).as("the newer limit replaced it for every client")
                .contains(new RateLimit(5, Duration.ofSeconds(30)));
        assertThat(first.poll(10, Duration.ZERO)).as("the first client obeys the new limit at once").hasSize(3);
        assertThat(second.poll(10, Duration.ZERO)).isEmpty();
        assertThat(redis.call("HGET", KeyLayout.prefix(name, 0) + "config", "rate")).isEqualTo("5 30000");
    }

    @Test
    void aQueueWithoutALimitStoresNoneAndPollsAsBefore() throws Exception {
        String name = "rate-none";
        RedisDelayedQueue<String> q = client(name, 1, null);
        for (int i = 0; i < 20; i++) {
            q.offer("m" + i, Duration.ZERO);
        }
        assertThat(q.rateLimit()).isEmpty();
        assertThat(q.poll(20, Duration.ZERO)).hasSize(20);
        assertThat(redis.call("EXISTS", KeyLayout.prefix(name, 0) + "rate")).isEqualTo(0L);
        assertThat(q.counters().orElseThrow().rateLimited()).isZero();
    }

    @Test
    void theQueuesLimitAndTheGroupsLimitAreStoredApart() {
        RedisDelayedQueue<String> q = queues.track(RedisDelayedQueue.builder(redis.uri(), "rate-groups", Codec.string())
                .partitions(2).rateLimit(10, Duration.ofSeconds(1)).groupRateLimit(1, Duration.ofSeconds(1)).build());
        assertThat(q.rateLimit()).contains(new RateLimit(10, Duration.ofSeconds(1)));
        assertThat(redis.call("HGET", KeyLayout.prefix("rate-groups", 0) + "config", "rate")).isEqualTo("10 1000");
        for (int p = 0; p < 2; p++) {
            assertThat(redis.call("HGET", KeyLayout.prefix("rate-groups", p) + "gconf", "rate")).as("partition %d", p)
                    .isEqualTo("1 1000");
        }
    }

    @Test
    void ackAndPollObeysTheLimit() throws Exception {
        RedisDelayedQueue<String> q = client("rate-ack-poll", 1, new RateLimit(2, Duration.ofSeconds(30)));
        for (int i = 0; i < 5; i++) {
            q.offer("m" + i, Duration.ZERO);
        }
        Delivery<String> d = q.poll(Duration.ZERO);
        var next = q.ackAndPoll(d);
        assertThat(next.acked()).isTrue();
        assertThat(next.next()).as("the second permit").isNotNull();
        var third = q.ackAndPoll(next.next());
        assertThat(third.acked()).isTrue();
        assertThat(third.next()).as("no third permit in the interval").isNull();
        assertThat(q.stats().ready()).isEqualTo(3);
    }

    /** @return the script calls the server ran so far ({@code FCALL} and {@code EVALSHA}) */
    private long scriptCalls() {
        long calls = 0;
        for (String line : String.valueOf(redis.call("INFO", "commandstats")).split("\r?\n")) {
            if (line.startsWith("cmdstat_fcall:") || line.startsWith("cmdstat_evalsha:")) {
                String c = line.substring(line.indexOf("calls=") + 6);
                calls += Long.parseLong(c.substring(0, c.indexOf(',')));
            }
        }
        return calls;
    }

    @Test
    void aWorkerHeldBackByTheLimitIdlesWithoutSpinning() throws Exception {
        RedisDelayedQueue<String> q = client("rate-worker", 1, new RateLimit(2, Duration.ofHours(1)));
        for (int i = 0; i < 6; i++) {
            q.offer("m" + i, Duration.ZERO);
        }
        Set<String> handled = ConcurrentHashMap.newKeySet();
        Worker<String> worker = Worker.builder(q, job -> handled.add(job.value())).concurrency(4)
                .pollWait(Duration.ofMillis(200)).build();
        try {
            Await.until("two handled and a poll held back", () -> handled.size() == 2
                    && q.counters().orElseThrow().rateLimited() > 0);
            long before = scriptCalls();
            long start = System.nanoTime();
            queues.passTime(Duration.ofSeconds(1)); // real time is the subject: what the idle worker costs
            double perSecond = (scriptCalls() - before) / ((System.nanoTime() - start) / 1e9);
            assertThat(perSecond).as("script calls per second while held back: waits, not spins")
                    .isLessThan(100);
            assertThat(handled).hasSize(2);
            assertThat(q.stats().ready()).as("held back, not dropped").isEqualTo(4);
        } finally {
            worker.shutdown(Duration.ZERO);
        }
    }
}

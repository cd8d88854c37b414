package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.clockwork.redis.Reliability.millis;
import static io.clockwork.redis.Reliability.perSecond;
import static io.clockwork.redis.Reliability.report;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * 30,000 messages through 4 consumers; one of them, a JVM of its own ({@link CrashingConsumerMain}), is killed
 * with {@code SIGKILL} in the middle of a batch, holding deliveries it never acked. Every message is acked exactly
 * once in the end, exactly the killed consumer's unacked deliveries are redelivered (after the visibility
 * timeout), and none is lost. Redisson's {@code RDelayedQueue} has no ack: the killed consumer's batch would be gone.
 */
@ExtendWith(RedisExtension.class)
class RedisQueueCrashIT {

    private static final int TOTAL = 30_000;
    private static final int SURVIVORS = 3;
    private static final int BATCH = 100;
    private static final Duration VISIBILITY = Duration.ofSeconds(3);

    private final RedisServerProcess redis;

    RedisQueueCrashIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Test
    void consumerKilledMidBatchLosesNothingAndOnlyItsUnackedMessagesComeBack() throws Exception {
        String name = "crash";
        ExecutorService threads = Executors.newCachedThreadPool();
        List<RedisDelayedQueue<String>> clients = new ArrayList<>();
        Process child = null;
        try {
            // Offer 30,000 (4 threads pipelining over one client).
            RedisDelayedQueue<String> producer = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                    .visibilityTimeout(VISIBILITY).build();
            clients.add(producer);
            long offerStart = System.nanoTime();
            List<Future<?>> offers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int first = t;
                offers.add(threads.submit(() -> {
                    for (int i = first; i < TOTAL; i += 4) {
                        assertThat(producer.offer("m-" + i, "v" + i, Duration.ZERO)).isTrue();
                    }
                    return null;
                }));
            }
            for (Future<?> f : offers) {
                f.get(60, TimeUnit.SECONDS);
            }
            long offerNanos = System.nanoTime() - offerStart;

            // The consumer to be killed, in its own JVM.
            child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), "-Xmx128m", "-XX:TieredStopAtLevel=1",
                    CrashingConsumerMain.class.getName(), redis.uri(), name, Long.toString(VISIBILITY.toMillis()),
                    Integer.toString(BATCH)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            Map<String, Integer> childDelivered = new ConcurrentHashMap<>();
            Set<String> childAcked = ConcurrentHashMap.newKeySet();
            CountDownLatch ready = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            BufferedReader childOut = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            threads.submit(() -> {
                String line;
                while ((line = childOut.readLine()) != null) {
                    String[] f = line.split(" ");
                    switch (f[0]) {
                        case "READY" -> ready.countDown();
                        case "D" -> childDelivered.put(f[1], Integer.parseInt(f[2]));
                        case "A" -> childAcked.add(f[1]);
                        case "HOLDING" -> holding.countDown();
                        default -> throw new IllegalStateException("child said: " + line);
                    }
                }
                return null;
            });
            assertThat(ready.await(30, TimeUnit.SECONDS)).as("the child consumer started").isTrue();

            // Three surviving consumers, each with its own client.
            Map<String, List<Integer>> survivorDeliveries = new ConcurrentHashMap<>();
            Map<String, Integer> survivorAcks = new ConcurrentHashMap<>();
            AtomicInteger survivorAckCount = new AtomicInteger();
            AtomicBoolean done = new AtomicBoolean();
            long consumeStart = System.nanoTime();
            List<Future<?>> survivors = new ArrayList<>();
            for (int s = 0; s < SURVIVORS; s++) {
                RedisDelayedQueue<String> q = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                        .visibilityTimeout(VISIBILITY).build();
                clients.add(q);
                survivors.add(threads.submit(() -> {
                    while (!done.get()) {
                        Delivery<String> d = q.poll(Duration.ofMillis(200));
                        if (d == null) {
                            continue;
                        }
                        survivorDeliveries.computeIfAbsent(d.id(), k -> new ArrayList<>()).add(d.attempt());
                        if (d.ack()) {
                            survivorAcks.merge(d.id(), 1, Integer::sum);
                            survivorAckCount.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }

            // Mid-run, tell the child to crash in its next batch; kill it while it holds half that batch unacked.
            Await.until("a third of the messages acked", Duration.ofSeconds(60),
                    () -> survivorAckCount.get() + childAcked.size() >= TOTAL / 3);
            OutputStream control = child.getOutputStream();
            control.write("crash\n".getBytes(StandardCharsets.US_ASCII));
            control.flush();
            assertThat(holding.await(30, TimeUnit.SECONDS)).as("the child holds a half-acked batch").isTrue();
            child.destroyForcibly(); // SIGKILL
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
            Set<String> unackedByChild = new HashSet<>(childDelivered.keySet());
            unackedByChild.removeAll(childAcked);
            int ackedAtKill = survivorAckCount.get() + childAcked.size();

            Await.until("every message acked", Duration.ofSeconds(90),
                    () -> survivorAckCount.get() + childAcked.size() >= TOTAL);
            long consumeNanos = System.nanoTime() - consumeStart;
            done.set(true);
            for (Future<?> f : survivors) {
                f.get(30, TimeUnit.SECONDS);
            }

            // Acked exactly once, none lost.
            Set<String> all = new HashSet<>(childAcked);
            assertThat(survivorAcks.keySet()).as("acked by a survivor and by the killed consumer")
                    .doesNotContainAnyElementsOf(childAcked);
            all.addAll(survivorAcks.keySet());
            assertThat(all).as("acked messages").hasSize(TOTAL);
            assertThat(survivorAcks.values()).as("acks per message").allMatch(n -> n == 1);
            // Redelivered: exactly what the killed consumer held unacked, each once more (attempt 2).
            Set<String> redelivered = new HashSet<>();
            survivorDeliveries.forEach((id, attempts) -> {
                if (attempts.size() > 1 || attempts.get(0) > 1) {
                    redelivered.add(id);
                }
            });
            assertThat(unackedByChild).as("held by the killed consumer").hasSize(BATCH / 2);
            assertThat(redelivered).as("redelivered messages").isEqualTo(unackedByChild);
            assertThat(unackedByChild).allSatisfy(id -> assertThat(survivorDeliveries.get(id))
                    .as("deliveries of %s", id).containsExactly(2));
            assertThat(producer.stats().total()).isZero();
            report("RedisQueueCrashIT", "%d offers in %d ms (%.0f/s, 4 threads); %d consumers (1 child JVM) acked "
                    + "%d in %d ms (%.0f/s); child killed (SIGKILL) after %d acks of its own, %d acked in total, "
                    + "holding %d unacked; redelivered %d (exactly those, attempt 2), visibility timeout %d ms; "
                    + "0 lost, 0 acked twice", TOTAL, millis(offerNanos), perSecond(TOTAL, offerNanos),
                    SURVIVORS + 1, TOTAL, millis(consumeNanos), perSecond(TOTAL, consumeNanos), childAcked.size(),
                    ackedAtKill, unackedByChild.size(), redelivered.size(), VISIBILITY.toMillis());
        } finally {
            if (child != null) {
                child.destroyForcibly();
            }
            threads.shutdownNow();
            clients.forEach(RedisDelayedQueue::close);
        }
    }
}

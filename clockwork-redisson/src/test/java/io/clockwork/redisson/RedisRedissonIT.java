package io.clockwork.redisson;

import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.redisson.RBlockingQueue;
import io.clockwork.redisson.RDelayedQueue;
import io.clockwork.redisson.RedissonClient;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the Redisson face on Redis does beyond the face's contract: elements fall due by the server's clock with no
 * client running, a second client sees the same queue, the Redis keys are a Clockwork queue's plus two indexes, and
 * the value index stays as small as the queue.
 */
@ExtendWith(RedisExtension.class)
class RedisRedissonIT {

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final RedisServerProcess redis;
    private final String name = "face-" + NAMES.incrementAndGet();
    private RedissonClient client;

    RedisRedissonIT(RedisServerProcess redis) {
        this.redis = redis;
        this.client = RedisRedisson.create(redis.uri());
    }

    @AfterEach
    void shutdown() {
        client.shutdown();
    }

    @Test
    void delayedElementsReachTheDestinationInDueOrderWhileTheDelayedViewKeepsOfferOrder() throws Exception {
        RBlockingQueue<String> destination = client.getBlockingQueue(name);
        RDelayedQueue<String> delayed = client.getDelayedQueue(destination);
        delayed.offer("c", 600, TimeUnit.MILLISECONDS);
        delayed.offer("a", 200, TimeUnit.MILLISECONDS);
        delayed.offer("b", 400, TimeUnit.MILLISECONDS);
        assertThat(delayed.readAll()).containsExactly("c", "a", "b");
        assertThat(delayed.peek()).isEqualTo("c");
        assertThat(destination.poll()).isNull();
        assertThat(destination.take()).isEqualTo("a");
        assertThat(destination.poll(5, TimeUnit.SECONDS)).isEqualTo("b");
        assertThat(delayed).containsExactly("c");
        Await.until("c falls due", Duration.ofSeconds(5), () -> destination.size() == 1);
        assertThat(delayed).isEmpty();
        assertThat(destination.readAll()).containsExactly("c");
    }

    @Test
    void removeContainsAndRetainWorkByValueWithDuplicates() {
        RBlockingQueue<Integer> destination = client.getBlockingQueue(name);
        RDelayedQueue<Integer> delayed = client.getDelayedQueue(destination);
        delayed.offer(3, 5, TimeUnit.SECONDS);
        delayed.offer(1, 2, TimeUnit.SECONDS);
        delayed.offer(2, 1, TimeUnit.SECONDS);
        delayed.offer(1, 3, TimeUnit.SECONDS);
        assertThat(delayed.contains(1)).isTrue();
        assertThat(delayed.contains(4)).isFalse();
        assertThat(delayed.contains(1L)).as("a Long is another value").isFalse();
        assertThat(delayed.containsAll(List.of(1, 2, 1))).isTrue();
        assertThat(delayed.remove(1)).isTrue();
        assertThat(delayed.readAll()).containsExactly(3, 2, 1);
        assertThat(delayed.retainAll(List.of(1, 2, 3))).isFalse();
        assertThat(delayed.retainAll(List.of(1, 2))).isTrue();
        assertThat(delayed.readAll()).containsExactly(2, 1);
        assertThat(delayed.removeAll(List.of(2, 4))).isTrue();
        assertThat(delayed.poll(5)).containsExactly(1);
        assertThat(delayed.isEmpty()).isTrue();
        assertThat(destination.isEmpty()).isTrue();
    }

    @Test
    void pollLastAndOfferFirstToMovesTheLastDelayedElementToTheHeadOfAnotherQueue() {
        RBlockingQueue<Integer> destination = client.getBlockingQueue(name);
        RDelayedQueue<Integer> delayed = client.getDelayedQueue(destination);
        delayed.offer(3, 5, TimeUnit.SECONDS);
        delayed.offer(2, 2, TimeUnit.SECONDS);
        delayed.offer(1, 1, TimeUnit.SECONDS);
        var other = client.<Integer>getQueue(name + "-other");
        other.offer(6);
        other.offer(5);
        other.offer(4);
        assertThat(delayed.pollLastAndOfferFirstTo(other.getName())).isEqualTo(1);
        assertThat(other).containsExactly(1, 6, 5, 4);
        assertThat(delayed).containsExactly(3, 2);
    }

    @Test
    void concurrentTakersGetEveryElementExactlyOnce() throws Exception {
        int producers = 2;
        int perProducer = 1000;
        RBlockingQueue<String> destination = client.getBlockingQueue(name);
        RDelayedQueue<String> delayed = client.getDelayedQueue(destination);
        java.util.concurrent.ConcurrentHashMap<String, Integer> taken = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicInteger removedEarly = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(6);
        try {
            List<java.util.concurrent.Future<?>> work = new java.util.ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int producer = p;
                work.add(pool.submit(() -> {
                    for (int i = 0; i < perProducer; i++) {
                        String v = producer + "-" + i;
                        delayed.offer(v, i % 50, TimeUnit.MILLISECONDS);
                        if (i % 10 == 0 && delayed.remove(v)) { // taken early, or already due and in the destination
                            removedEarly.incrementAndGet();
                            taken.merge(v, 1, Integer::sum);
                        }
                    }
                    return null;
                }));
            }
            for (int c = 0; c < 4; c++) {
                work.add(pool.submit(() -> {
                    String v;
                    while ((v = destination.poll(2, TimeUnit.SECONDS)) != null) {
                        taken.merge(v, 1, Integer::sum);
                    }
                    return null;
                }));
            }
            for (var f : work) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(taken).hasSize(producers * perProducer);
        assertThat(taken.values()).containsOnly(1);
        assertThat(removedEarly.get()).isPositive();
        assertThat(delayed.size() + destination.size()).isZero();
    }

    @Test
    void aDelayedQueueNeedsADelayAndADestroyedHandleRefusesUse() {
        RDelayedQueue<String> delayed = client.getDelayedQueue(client.getBlockingQueue(name));
        assertThatThrownBy(() -> delayed.offer("x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> delayed.add("x")).isInstanceOf(UnsupportedOperationException.class);
        delayed.destroy();
        assertThatThrownBy(() -> delayed.offer("x", 1, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name);
    }
}

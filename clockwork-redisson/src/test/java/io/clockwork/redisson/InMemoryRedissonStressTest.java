package io.clockwork.redisson;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Producers offer (delayed and direct), removers remove by value and poll early, consumers take, all at once on the
 * system clock; afterwards every element is accounted for exactly once: taken, removed or polled early.
 */
class InMemoryRedissonStressTest {

    private static final int PRODUCERS = 3;
    private static final int PER_PRODUCER = 4_000;
    private static final int REMOVERS = 2;
    private static final int CONSUMERS = 3;

    @Test
    void everyElementIsTakenRemovedOrPolledExactlyOnce() throws Exception {
        int total = PRODUCERS * PER_PRODUCER;
        Map<String, String> outcome = new ConcurrentHashMap<>();
        List<String> duplicates = new ArrayList<>();
        AtomicInteger accounted = new AtomicInteger();
        ConcurrentLinkedQueue<String> removable = new ConcurrentLinkedQueue<>();
        CountDownLatch produced = new CountDownLatch(PRODUCERS);
        ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS + REMOVERS + CONSUMERS);

        try (InMemoryRedisson client = InMemoryRedisson.create()) {
            RBlockingQueue<String> queue = client.getBlockingQueue("stress");
            RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
            BiConsumer<String, String> account = (value, how) -> {
                String before = outcome.putIfAbsent(value, how);
                if (before != null) {
                    synchronized (duplicates) {
                        duplicates.add(value + " " + before + " then " + how);
                    }
                } else {
                    accounted.incrementAndGet();
                }
            };
            List<Future<?>> tasks = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                int producer = p;
                tasks.add(pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < PER_PRODUCER; i++) {
                        String value = "p" + producer + "-" + i;
                        if (i % 10 == 0) {
                            queue.offer(value);
                        } else {
                            delayed.offer(value, random.nextInt(3_000), TimeUnit.MICROSECONDS);
                            if (i % 3 == 0) {
                                removable.add(value);
                            }
                        }
                    }
                    produced.countDown();
                    return null;
                }));
            }
            for (int r = 0; r < REMOVERS; r++) {
                tasks.add(pool.submit(() -> {
                    while (produced.getCount() > 0 || !removable.isEmpty()) {
                        String value = removable.poll();
                        if (value != null && delayed.remove(value)) {
                            account.accept(value, "removed");
                        }
                        if (ThreadLocalRandom.current().nextInt(20) == 0) {
                            for (String early : delayed.poll(2)) {
                                account.accept(early, "polled early");
                            }
                        }
                    }
                    return null;
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (int c = 0; c < CONSUMERS; c++) {
                tasks.add(pool.submit(() -> {
                    while (accounted.get() < total && System.nanoTime() - deadline < 0) {
                        String value = queue.poll(5, TimeUnit.MILLISECONDS);
                        if (value != null) {
                            account.accept(value, "taken");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> task : tasks) {
                task.get(60, TimeUnit.SECONDS);
            }

            assertThat(duplicates).as("elements seen twice").isEmpty();
            assertThat(outcome).hasSize(total);
            assertThat(delayed.isEmpty()).isTrue();
            assertThat(queue.isEmpty()).isTrue();
            assertThat(outcome.values()).contains("taken", "removed");
        } finally {
            pool.shutdownNow();
        }
    }
}

package io.clockwork.storm;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Several threads put, get and remove while a clock thread moves a {@link ManualTicker} and the shared cleaner
 * thread rotates. Every value put is unique; none is reported twice (by the callback or by {@code remove}), and the
 * last value put for each key is reported once everything has expired.
 */
class TimeCacheMapStressTest {

    private static final int THREADS = 4;
    private static final int KEYS_PER_THREAD = 2_000;
    private static final int ROUNDS = 100;

    @Test
    void everyEntryIsReportedExactlyOnceUnlessOverwritten() throws Exception {
        ManualTicker ticker = new ManualTicker();
        ConcurrentHashMap<Long, Boolean> reported = new ConcurrentHashMap<>();
        AtomicReference<String> violation = new AtomicReference<>();
        TimeCacheMap<Integer, Long> map = new TimeCacheMap<>(Duration.ofMillis(20), 3,
                (k, v) -> report(reported, violation, k, v), ticker);
        AtomicBoolean done = new AtomicBoolean();
        Thread clock = new Thread(() -> {
            while (!done.get()) {
                ticker.advance(1, TimeUnit.MILLISECONDS);
                Thread.yield();
            }
        });
        clock.start();
        long[][] lastPut = new long[THREADS][KEYS_PER_THREAD];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long seq = 0;
                for (int round = 0; round < ROUNDS; round++) {
                    for (int i = 0; i < KEYS_PER_THREAD; i++) {
                        int key = thread * KEYS_PER_THREAD + i;
                        int op = random.nextInt(10);
                        if (op < 6) {
                            long value = ((long) thread << 40) | ++seq;
                            map.put(key, value);
                            lastPut[thread][i] = value;
                        } else if (op < 8) {
                            Long value = map.remove(key);
                            if (value != null) {
                                report(reported, violation, key, value);
                            }
                        } else {
                            map.get(key);
                        }
                    }
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        done.set(true);
        clock.join();
        ticker.advance(1, TimeUnit.SECONDS);
        Await.until("every entry has expired", () -> map.size() == 0);
        try {
            Await.until("the last value of every key is reported", () -> {
                for (int t = 0; t < THREADS; t++) {
                    for (int i = 0; i < KEYS_PER_THREAD; i++) {
                        if (lastPut[t][i] != 0 && !reported.containsKey(lastPut[t][i])) {
                            return false;
                        }
                    }
                }
                return true;
            });
        } finally {
            map.close();
        }
        assertThat(violation.get()).isNull();
    }

    private static void report(ConcurrentHashMap<Long, Boolean> reported, AtomicReference<String> violation,
            int key, Long value) {
        if (value == null || (int) (value >>> 40) != key / KEYS_PER_THREAD) {
            violation.compareAndSet(null, "key " + key + " reported a value never put for it: " + value);
        } else if (reported.putIfAbsent(value, Boolean.TRUE) != null) {
            violation.compareAndSet(null, "value " + value + " of key " + key + " reported twice");
        }
    }
}

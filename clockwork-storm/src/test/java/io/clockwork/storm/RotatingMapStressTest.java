package io.clockwork.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Several threads put, get and remove while another rotates. Every value put is unique; a value may be reported
 * (by the callback or by {@code remove}) at most once, every reported value was put, and the last value put for
 * each key is reported exactly once once rotation has expired everything: none lost, none duplicated.
 */
class RotatingMapStressTest {

    private static final int THREADS = 4;
    private static final int KEYS_PER_THREAD = 2_000;
    private static final int ROUNDS = 100;

    @Test
    void everyEntryIsReportedExactlyOnceUnlessOverwritten() throws Exception {
        ConcurrentHashMap<Long, Boolean> reported = new ConcurrentHashMap<>();
        AtomicReference<String> violation = new AtomicReference<>();
        RotatingMap<Integer, Long> map = new RotatingMap<>(3, (k, v) -> report(reported, violation, k, v));
        AtomicBoolean done = new AtomicBoolean();
        Thread rotator = new Thread(() -> {
            while (!done.get()) {
                map.rotate();
            }
        });
        rotator.start();
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
        rotator.join();
        for (int r = 0; r < 3; r++) {
            map.rotate();
        }

        assertThat(violation.get()).isNull();
        assertThat(map.size()).isZero();
        for (int t = 0; t < THREADS; t++) {
            for (int i = 0; i < KEYS_PER_THREAD; i++) {
                long last = lastPut[t][i];
                if (last != 0) {
                    assertThat(reported).as("last value put for key %d", t * KEYS_PER_THREAD + i).containsKey(last);
                }
            }
        }
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

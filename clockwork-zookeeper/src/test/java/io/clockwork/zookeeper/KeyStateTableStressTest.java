package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * State updates by CAS race the rebuilds that insertions and removals cause: no update is lost, and no present key
 * is ever missed. Each counting thread owns a set of keys that stay in the table, and increments their states one
 * CAS at a time; meanwhile churning threads insert and remove other keys of the same segments, growing and shrinking
 * them again and again. At the end every owned key's state is exactly its number of increments.
 */
class KeyStateTableStressTest {

    private static final int COUNTERS = 2;
    private static final int CHURNERS = 2;
    private static final int OWNED = 2_000;
    private static final int ROUNDS = 100;

    @Test
    void casUpdatesAreNeverLostAndKeysNeverMissedWhileSegmentsAreRebuilt() throws Exception {
        KeyStateTable table = new KeyStateTable();
        Object[][] owned = new Object[COUNTERS][OWNED];
        for (Object[] keys : owned) {
            for (int i = 0; i < OWNED; i++) {
                keys[i] = new Object();
                assertThat(table.insert(keys[i], KeyStateTable.hash(keys[i]), 0L)).isTrue();
            }
        }
        AtomicBoolean done = new AtomicBoolean();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> churners = new ArrayList<>();
        for (int c = 0; c < CHURNERS; c++) {
            churners.add(start(failures, () -> {
                while (!done.get()) {
                    Object[] batch = new Object[20_000];
                    for (int i = 0; i < batch.length; i++) {
                        batch[i] = new Object();
                        table.insert(batch[i], KeyStateTable.hash(batch[i]), 7L);
                    }
                    for (Object key : batch) {
                        assertThat(table.remove(key, KeyStateTable.hash(key))).isEqualTo(7L);
                    }
                }
            }));
        }
        List<Thread> counters = new ArrayList<>();
        for (Object[] keys : owned) {
            counters.add(start(failures, () -> {
                for (int r = 0; r < ROUNDS; r++) {
                    for (Object key : keys) {
                        increment(table, key);
                    }
                }
            }));
        }
        for (Thread t : counters) {
            t.join();
        }
        done.set(true);
        for (Thread t : churners) {
            t.join();
        }
        assertThat(failures).isEmpty();
        for (Object[] keys : owned) {
            for (Object key : keys) {
                int hash = KeyStateTable.hash(key);
                KeyStateTable.Slots a = table.slots(hash);
                assertThat(KeyStateTable.state(a, KeyStateTable.indexOf(a, key, hash))).isEqualTo(ROUNDS);
            }
        }
        assertThat(table.size()).isEqualTo(COUNTERS * OWNED);
    }

    private static void increment(KeyStateTable table, Object key) {
        int hash = KeyStateTable.hash(key);
        KeyStateTable.Slots a = table.slots(hash);
        while (true) {
            int i = KeyStateTable.indexOf(a, key, hash);
            if (i < 0) {
                throw new AssertionError("a present key was missed");
            }
            long s = KeyStateTable.state(a, i);
            if (s == KeyStateTable.MOVING) {
                a = table.awaitRebuilt(a, hash);
            } else if (s < 0) {
                throw new AssertionError("a present key read as removed");
            } else if (KeyStateTable.cas(a, i, s, s + 1)) {
                return;
            }
        }
    }

    private static Thread start(List<Throwable> failures, Runnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failures.add(e);
            }
        });
        t.start();
        return t;
    }
}

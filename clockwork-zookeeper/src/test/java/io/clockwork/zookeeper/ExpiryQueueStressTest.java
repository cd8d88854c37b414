package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.time.ManualTicker;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several threads update and remove elements while another moves time and polls. Every element that is not removed
 * is polled after its last update; none is polled twice unless an update took effect in between; none is polled
 * after its removal.
 *
 * <p>"An update took effect in between" is checked with a global stamp counter: a second poll is legitimate only if
 * some update of the element began before that poll ended and had not finished when the previous poll began.
 * The test runs with polls that look at each due filing, and again with polls that re-file every element (the
 * expiry-storm path), which race the updates differently.
 */
class ExpiryQueueStressTest {

    private static final int THREADS = 4;
    private static final int PER_THREAD = 20_000;
    private static final int MAX_UPDATES = 5;
    private static final int INTERVAL = 10;

    private final ManualTicker ticker = new ManualTicker();
    private final ExpiryQueue<Integer> queue = new ExpiryQueue<>(INTERVAL, ticker);
    private final int n = THREADS * PER_THREAD;
    private final AtomicLong clock = new AtomicLong(1);
    private final AtomicIntegerArray started = new AtomicIntegerArray(n);
    private final AtomicLongArray finishedAt = new AtomicLongArray(n * MAX_UPDATES); // stamp, per update
    private final AtomicIntegerArray polls = new AtomicIntegerArray(n);
    private final AtomicLongArray lastPollBegan = new AtomicLongArray(n);
    private final AtomicIntegerArray startedAtLastPoll = new AtomicIntegerArray(n);
    private final AtomicReference<String> violation = new AtomicReference<>();

    @ParameterizedTest(name = "storm share {0}")
    @ValueSource(doubles = {Double.POSITIVE_INFINITY, 0.0})
    void everyElementExpiresExactlyOnceUnlessUpdatedOrRemovedInTime(double stormShare) throws Exception {
        queue.stormShare(stormShare);
        boolean[] removed = new boolean[n];
        AtomicBoolean done = new AtomicBoolean();
        Thread poller = new Thread(() -> {
            while (!done.get()) {
                ticker.advance(INTERVAL / 2, TimeUnit.MILLISECONDS);
                pollAndRecord();
            }
        });
        poller.start();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int base = t * PER_THREAD;
            Thread worker = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = base; i < base + PER_THREAD; i++) {
                    int updates = 1 + random.nextInt(MAX_UPDATES);
                    for (int k = 0; k < updates; k++) {
                        started.incrementAndGet(i);
                        queue.updateExpiry(i, 1 + random.nextInt(3 * INTERVAL));
                        finishedAt.set(i * MAX_UPDATES + k, clock.incrementAndGet());
                    }
                    if (random.nextInt(4) == 0) {
                        removed[i] = true;
                        queue.removeExpiry(i);
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
        poller.join();

        int[] pollsBeforeDrain = new int[n];
        for (int i = 0; i < n; i++) {
            pollsBeforeDrain[i] = polls.get(i);
        }
        ticker.advance(1, TimeUnit.HOURS);
        pollAndRecord();

        assertThat(violation.get()).isNull();
        for (int i = 0; i < n; i++) {
            if (removed[i]) {
                assertThat(polls.get(i)).as("polls of removed %d after the workers finished", i)
                        .isEqualTo(pollsBeforeDrain[i]);
            } else {
                assertThat(polls.get(i)).as("polls of %d", i).isPositive();
                assertThat(startedAtLastPoll.get(i)).as("last poll of %d came after its last update", i)
                        .isEqualTo(started.get(i));
            }
        }
        assertThat(queue.getExpiryMap()).isEmpty();
        assertThat(queue.poll()).isEmpty();
    }

    private void pollAndRecord() {
        long began = clock.incrementAndGet();
        Set<Integer> expired = queue.poll();
        for (int e : expired) {
            int startedNow = started.get(e);
            if (polls.getAndIncrement(e) > 0) {
                long previousBegan = lastPollBegan.get(e);
                int finishedBeforePrevious = 0;
                for (int k = 0; k < MAX_UPDATES; k++) {
                    long stamp = finishedAt.get(e * MAX_UPDATES + k);
                    if (stamp != 0 && stamp < previousBegan) {
                        finishedBeforePrevious++;
                    }
                }
                if (startedNow <= finishedBeforePrevious) {
                    violation.compareAndSet(null, "element " + e + " polled twice without an update in between");
                }
            }
            lastPollBegan.set(e, began);
            startedAtLastPoll.set(e, startedNow);
        }
    }
}

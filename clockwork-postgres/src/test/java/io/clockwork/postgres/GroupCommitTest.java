package io.clockwork.postgres;

import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GroupCommitTest {

    private final List<List<Integer>> batches = Collections.synchronizedList(new ArrayList<>());
    /** Counted down when the batch holding item 0 runs; it then waits for {@link #release}. */
    private final CountDownLatch firstRuns = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    /** @return whether the batch holds item 0, having waited for {@link #release} if so */
    private boolean holdTheFirstBatch(List<Integer> batch) {
        if (!batch.contains(0)) {
            return false;
        }
        firstRuns.countDown();
        await(release);
        return true;
    }

    private List<String> results(List<Integer> batch) {
        batches.add(List.copyOf(batch));
        return batch.stream().map(i -> "r" + i).toList();
    }

    @Test
    void aCallerAloneRunsAtOnceInABatchOfItsOwn() {
        GroupCommit<Integer, String> commits = new GroupCommit<>(2, 100, this::results);
        assertThat(commits.submit(1)).isEqualTo("r1");
        assertThat(commits.submit(2)).isEqualTo("r2");
        assertThat(batches).containsExactly(List.of(1), List.of(2));
    }

    @Test
    void callersThatFindEverySlotTakenGoTogetherInTheNextBatchEachWithItsOwnResult() throws Exception {
        GroupCommit<Integer, String> commits = new GroupCommit<>(1, 100, batch -> {
            holdTheFirstBatch(batch);
            return results(batch);
        });
        ExecutorService callers = Executors.newFixedThreadPool(6);
        try {
            List<Future<String>> out = new ArrayList<>();
            out.add(callers.submit(() -> commits.submit(0)));
            assertThat(firstRuns.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 1; i <= 5; i++) {
                int item = i;
                out.add(callers.submit(() -> commits.submit(item)));
            }
            Await.until("five callers waiting", () -> commits.waiting() == 5);
            release.countDown();
            for (int i = 0; i <= 5; i++) {
                assertThat(out.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("r" + i);
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(batches).hasSize(2);
        assertThat(batches.get(0)).containsExactly(0);
        assertThat(batches.get(1)).containsExactlyInAnyOrder(1, 2, 3, 4, 5);
    }

    @Test
    void aFailedBatchFailsEachOfItsCallersAndTheNextBatchRunsAsUsual() throws Exception {
        GroupCommit<Integer, String> commits = new GroupCommit<>(1, 100, batch -> {
            if (holdTheFirstBatch(batch)) {
                return results(batch);
            }
            throw new IllegalStateException("the database is gone");
        });
        ExecutorService callers = Executors.newFixedThreadPool(3);
        try {
            Future<String> first = callers.submit(() -> commits.submit(0));
            assertThat(firstRuns.await(10, TimeUnit.SECONDS)).isTrue();
            Future<String> a = callers.submit(() -> commits.submit(1));
            Future<String> b = callers.submit(() -> commits.submit(2));
            Await.until("two callers waiting", () -> commits.waiting() == 2);
            release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("r0");
            for (Future<String> f : List.of(a, b)) {
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasRootCauseMessage("the database is gone");
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aStoreGivingTooFewResultsFailsTheBatchSayingSo() {
        GroupCommit<Integer, String> commits = new GroupCommit<>(1, 100, batch -> List.of());
        assertThatThrownBy(() -> commits.submit(7)).isInstanceOf(IllegalStateException.class)
                .hasMessage("a batch of 1 gave 0 results");
    }

    @Test
    void manyCallersGetEachTheirOwnResultOnceWithNoMoreBatchesRunningThanAllowed() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        ConcurrentHashMap<Integer, Integer> stored = new ConcurrentHashMap<>();
        GroupCommit<Integer, String> commits = new GroupCommit<>(2, 50, batch -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                for (int i : batch) {
                    stored.merge(i, 1, Integer::sum);
                }
                Thread.yield(); // lets other callers queue up behind the running batches
                return batch.stream().map(i -> "r" + i).toList();
            } finally {
                running.decrementAndGet();
            }
        });
        int threads = 8;
        int each = 2000;
        ExecutorService callers = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int base = t * each;
                done.add(callers.submit(() -> {
                    for (int i = base; i < base + each; i++) {
                        assertThat(commits.submit(i)).isEqualTo("r" + i);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(stored).hasSize(threads * each);
        assertThat(stored.values()).containsOnly(1);
        assertThat(most.get()).isBetween(1, 2);
        assertThat(commits.waiting()).isZero();
    }

    @Test
    void limitsAreChecked() {
        assertThatThrownBy(() -> new GroupCommit<Integer, String>(0, 1, b -> List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("statements and max");
        assertThatThrownBy(() -> new GroupCommit<Integer, String>(1, 0, b -> List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("statements and max");
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

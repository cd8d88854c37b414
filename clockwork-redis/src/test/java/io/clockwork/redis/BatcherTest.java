package io.clockwork.redis;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** The group commit itself, without Redis: who sends, what goes together, who gets which reply. */
class BatcherTest {

    /** A call carrying a number; its reply is that number times ten. */
    static final class Req extends CompletableFuture<Integer> {
        final int n;

        Req(int n) {
            this.n = n;
        }
    }

    private final List<List<Integer>> sent = new CopyOnWriteArrayList<>();
    private final List<CompletableFuture<Void>> replies = new CopyOnWriteArrayList<>();

    /** Sends nothing: records the batch and hands its reply out when the test completes {@code replies}. */
    private Batcher<Req> batcher(int max) {
        return batcher(max, 1);
    }

    private Batcher<Req> batcher(int max, int maxInFlight) {
        return new Batcher<>(max, maxInFlight, batch -> {
            sent.add(batch.stream().map(r -> r.n).toList());
            CompletableFuture<Void> reply = new CompletableFuture<>();
            replies.add(reply);
            return reply.thenRun(() -> batch.forEach(r -> r.complete(r.n * 10)));
        });
    }

    @Test
    void aCallerAloneIsSentAtOnce() {
        Batcher<Req> b = batcher(64);
        Req r = new Req(1);
        b.submit(r);
        assertThat(sent).containsExactly(List.of(1));
        replies.get(0).complete(null);
        assertThat(r.join()).isEqualTo(10);
    }

    @Test
    void callsArrivingWhileABatchIsInFlightGoTogetherAndEachGetsItsOwnReply() {
        Batcher<Req> b = batcher(3);
        List<Req> reqs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            reqs.add(new Req(i));
            b.submit(reqs.get(i));
        }
        // 0 went alone; 1..5 waited for its reply and then go in batches of at most 3, in arrival order.
        assertThat(sent).containsExactly(List.of(0));
        replies.get(0).complete(null);
        assertThat(sent).containsExactly(List.of(0), List.of(1, 2, 3));
        replies.get(1).complete(null);
        assertThat(sent).containsExactly(List.of(0), List.of(1, 2, 3), List.of(4, 5));
        replies.get(2).complete(null);
        for (int i = 0; i < 6; i++) {
            assertThat(reqs.get(i).join()).isEqualTo(i * 10);
        }
    }

    @Test
    void withTwoInFlightTwoCallersAreSentAtOnceAndLaterOnesGroupBehindThem() {
        Batcher<Req> b = batcher(64, 2);
        List<Req> reqs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            reqs.add(new Req(i));
            b.submit(reqs.get(i));
        }
        assertThat(sent).containsExactly(List.of(0), List.of(1));
        replies.get(1).complete(null); // the second answers first: its slot takes everything waiting
        assertThat(sent).containsExactly(List.of(0), List.of(1), List.of(2, 3, 4));
        assertThat(reqs.get(1).join()).isEqualTo(10);
        assertThat(reqs.get(0)).isNotDone();
        replies.get(0).complete(null);
        replies.get(2).complete(null);
        for (int i = 0; i < 5; i++) {
            assertThat(reqs.get(i).join()).isEqualTo(i * 10);
        }
    }

    @Test
    void aCancelledCallIsNeverSentAndAFailedBatchFailsEachOfItsCalls() {
        Batcher<Req> b = batcher(64);
        Req first = new Req(1);
        Req cancelled = new Req(2);
        Req third = new Req(3);
        b.submit(first);
        b.submit(cancelled);
        b.submit(third);
        cancelled.cancel(false); // its caller timed out before the batch was sent
        replies.get(0).completeExceptionally(new IllegalStateException("boom"));
        assertThat(first).isCompletedExceptionally();
        assertThat(sent).containsExactly(List.of(1), List.of(3));
        replies.get(1).complete(null);
        assertThat(third.join()).isEqualTo(30);
    }

    @Test
    void concurrentCallersEachGetTheirOwnReply() throws Exception {
        Batcher<Req> b = new Batcher<>(8, 2, batch -> CompletableFuture.runAsync(
                () -> batch.forEach(r -> r.complete(r.n * 10))));
        int threads = 4;
        int each = 2_000;
        List<Thread> ts = new ArrayList<>();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            int base = t * each;
            ts.add(new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    Req r = new Req(base + i);
                    b.submit(r);
                    if (r.join() != (base + i) * 10) {
                        errors.add(new AssertionError("wrong reply for " + (base + i)));
                    }
                }
            }));
        }
        ts.forEach(Thread::start);
        for (Thread t : ts) {
            t.join();
        }
        assertThat(errors).isEmpty();
    }
}

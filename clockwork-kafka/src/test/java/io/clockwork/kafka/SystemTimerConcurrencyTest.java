package io.clockwork.kafka;

import io.clockwork.testing.Await;
import io.clockwork.time.Ticker;
import io.clockwork.kafka.KafkaFaceTesting.RecordingTask;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static io.clockwork.kafka.KafkaFaceTesting.PATIENCE;
import static org.assertj.core.api.Assertions.assertThat;

/** Several producers add, re-add and cancel while a reaper expires: every task ends run once or cancelled. */
class SystemTimerConcurrencyTest {

    private static final int PRODUCERS = 4;
    private static final int TASKS_PER_PRODUCER = 50_000;

    @Test
    void everyTaskRunsExactlyOnceOrIsCancelledUnderConcurrentAddsAndCancels() throws Exception {
        ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
        List<List<RecordingTask>> perProducer = new ArrayList<>();
        try (SystemTimer systemTimer = new SystemTimer("stress");
             Timer timer = new SystemTimerReaper("stress-reaper", systemTimer)) {
            CyclicBarrier start = new CyclicBarrier(PRODUCERS);
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                List<RecordingTask> tasks = new ArrayList<>(TASKS_PER_PRODUCER);
                perProducer.add(tasks);
                done.add(CompletableFuture.runAsync(() -> produce(timer, tasks, start), producers));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new))
                    .get(3 * PATIENCE.toMillis(), TimeUnit.MILLISECONDS);

            List<RecordingTask> all = perProducer.stream().flatMap(List::stream).toList();
            List<RecordingTask> live = all.stream().filter(t -> !t.isCancelled()).toList();
            Await.until("every live task ran", () -> live.stream().allMatch(RecordingTask::ran));
            Await.until("size() drops to 0, was " + timer.size(), () -> timer.size() == 0);
            KafkaFaceTesting.drainTaskThread(systemTimer);

            // A re-added task may legitimately run twice: once if its first schedule ran before the re-add (as in
            // Kafka), once for the newest; "only the newest" is checked deterministically in SystemTimerTest.
            assertThat(all).allSatisfy(t -> assertThat(t.runs.get()).as("%s", t).isBetween(0, t.id < 0 ? 2 : 1));
            assertThat(live).allSatisfy(t -> assertThat(t.runs.get()).as("%s", t).isBetween(1, t.id < 0 ? 2 : 1));
            assertThat(live.size()).as("some tasks survive, some are cancelled").isBetween(1, all.size() - 1);
        } finally {
            producers.shutdownNow();
        }
    }

    private static void produce(Timer timer, List<RecordingTask> tasks, CyclicBarrier start) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
            start.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        for (int i = 0; i < TASKS_PER_PRODUCER; i++) {
            int action = random.nextInt(10);
            boolean readd = action == 5;
            // Re-added tasks get a negative id, so the checks can tell them apart.
            RecordingTask task = new RecordingTask(random.nextInt(-2, 30), readd ? -1 - i : i, Ticker.system());
            tasks.add(task);
            timer.add(task);
            if (action < 5) {
                task.cancel(); // may race the expiry: then it ran once, and still reads as cancelled
            } else if (readd) {
                timer.add(task); // re-add: the first schedule is cancelled unless it already ran
            }
        }
    }
}

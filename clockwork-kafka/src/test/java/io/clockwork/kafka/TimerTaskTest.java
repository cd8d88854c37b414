package io.clockwork.kafka;

import io.clockwork.time.ManualTicker;
import io.clockwork.kafka.KafkaFaceTesting.RecordingTask;
import org.junit.jupiter.api.AfterEach;
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
import static io.clockwork.kafka.KafkaFaceTesting.drainTaskThread;
import static org.assertj.core.api.Assertions.assertThat;

/** What Kafka's {@code TimerTaskListTest} checks, on the task side: one schedule per task, counted once. */
class TimerTaskTest {

    private final ManualTicker ticker = new ManualTicker();
    private final SystemTimer first = new SystemTimer("first", 1, 20, ticker);
    private final SystemTimer second = new SystemTimer("second", 1, 20, ticker);
    private final SystemTimer third = new SystemTimer("third", 1, 20, ticker);
    private final ExecutorService helpers = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        helpers.shutdownNow();
        first.close();
        second.close();
        third.close();
    }

    private static int total(SystemTimer... timers) {
        int sum = 0;
        for (SystemTimer t : timers) {
            sum += t.size();
        }
        return sum;
    }

    @Test
    void reinsertingTasksMovesThemWithoutChangingTheCount() {
        List<RecordingTask> tasks = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            RecordingTask task = new RecordingTask(10, i, ticker);
            first.add(task);
            tasks.add(task);
            assertThat(first.size()).isEqualTo(i);
        }

        for (RecordingTask task : tasks.subList(0, 4)) {
            int before = total(first, second, third);
            second.add(task);
            assertThat(total(first, second, third)).as("reinserting keeps the count").isEqualTo(before);
        }
        assertThat(first.size()).isEqualTo(6);
        assertThat(second.size()).isEqualTo(4);

        for (RecordingTask task : tasks.subList(4, 10)) {
            int before = total(first, second, third);
            third.add(task);
            assertThat(total(first, second, third)).isEqualTo(before);
        }
        assertThat(first.size()).isZero();
        assertThat(second.size()).isEqualTo(4);
        assertThat(third.size()).isEqualTo(6);

        tasks.subList(0, 4).forEach(TimerTask::cancel);
        assertThat(second.size()).isZero();
        assertThat(third.size()).isEqualTo(6);
        tasks.subList(4, 10).forEach(TimerTask::cancel);
        assertThat(total(first, second, third)).isZero();
    }

    @Test
    void aNewTaskReadsAsCancelledAsInKafka() {
        assertThat(new RecordingTask(5, ticker).isCancelled()).isTrue();
    }

    @Test
    void cancelOfATaskNeverAddedIsANoOp() {
        RecordingTask task = new RecordingTask(5, ticker);
        task.cancel();
        assertThat(task.isCancelled()).isTrue();
        first.add(task);
        assertThat(first.size()).isEqualTo(1);
    }

    @Test
    void delayMsIsPublicAndFinal() throws NoSuchFieldException {
        RecordingTask task = new RecordingTask(1234, ticker);
        assertThat(task.delayMs).isEqualTo(1234);
        assertThat(java.lang.reflect.Modifier.isFinal(TimerTask.class.getField("delayMs").getModifiers())).isTrue();
    }

    @Test
    void racingReaddsAndCancelsLeaveAtMostOneLiveSchedule() throws Exception {
        int threads = 4;
        int rounds = 2_000;
        List<RecordingTask> tasks = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            tasks.add(new RecordingTask(100, i, ticker));
        }
        SystemTimer[] timers = {first, second, third};
        CyclicBarrier start = new CyclicBarrier(threads);
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            workers.add(CompletableFuture.runAsync(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int r = 0; r < rounds; r++) {
                    RecordingTask task = tasks.get(random.nextInt(tasks.size()));
                    if (random.nextInt(4) == 0) {
                        task.cancel();
                    } else {
                        timers[random.nextInt(timers.length)].add(task);
                    }
                }
            }, helpers));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new))
                .get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);

        long live = tasks.stream().filter(t -> !t.isCancelled()).count();
        assertThat(total(first, second, third)).as("one pending schedule per bound task").isEqualTo((int) live);

        ticker.advance(100, TimeUnit.MILLISECONDS);
        for (SystemTimer timer : timers) {
            timer.advanceClock(0);
            drainTaskThread(timer);
        }
        assertThat(tasks).allSatisfy(t -> assertThat(t.runs).as("%s", t).hasValue(t.isCancelled() ? 0 : 1));
        assertThat(total(first, second, third)).isZero();
    }
}

package io.clockwork.worker;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.testing.Await;
import io.clockwork.testing.queue.FlakyQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a worker logs through {@link System.Logger} while its backend is out: one line when the outage begins and one
 * when it ends, whatever kinds of call fail meanwhile; stack traces only below info. The records are read where the
 * JDK's default {@code System.LoggerFinder} sends them: the {@code java.util.logging} logger of the same name.
 */
class WorkerOutageLogTest {

    private final Logger jul = Logger.getLogger(Worker.class.getName());
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level level;

    @BeforeEach
    void captureTheWorkersLog() {
        level = jul.getLevel();
        jul.setLevel(Level.ALL);
        capture.setLevel(Level.ALL);
        jul.addHandler(capture);
    }

    @AfterEach
    void restoreTheLog() {
        jul.removeHandler(capture);
        jul.setLevel(level);
    }

    @Test
    void anOutageOfPollAckAndExtendLogsOneLineWhenItBeginsAndOneWhenItEndsWithTracesOnlyAtDebug() throws Exception {
        Set<String> failedCalls = java.util.concurrent.ConcurrentHashMap.newKeySet();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        try (InMemoryDelayedQueue<String> memory = InMemoryDelayedQueue.<String>builder().name("outage-log")
                .visibilityTimeout(Duration.ofSeconds(3)).build()) {
            FlakyQueue<String> q = new FlakyQueue<>(memory);
            WorkerListener<String> listener = new WorkerListener<>() {
                @Override
                public void backendError(String operation, RuntimeException error) {
                    failedCalls.add(operation);
                }
            };
            Worker<String> worker = Worker.builder(q, (Job<String> job) -> {
                running.countDown();
                finish.await();
            }).name("logged").concurrency(2).pollWait(Duration.ofMillis(50)).listener(listener).build();
            try {
                q.offer("job", "v", Duration.ZERO);
                running.await();
                q.failing(true);
                Await.until("a poll and an extend failed", () -> failedCalls.containsAll(Set.of("poll", "extend")));
                finish.countDown();
                Await.until("an ack failed too", () -> failedCalls.contains("ack"));
                q.failing(false);
                Await.until("the job acked", () -> memory.stats().inFlight() == 0 && memory.stats().ready() == 0);
                Await.until("the end of the outage logged", () -> records.stream()
                        .anyMatch(r -> r.getLevel() == Level.INFO));
            } finally {
                finish.countDown();
                worker.close();
            }
        }
        List<LogRecord> lines = records.stream()
                .filter(r -> r.getLevel().intValue() >= Level.INFO.intValue()).toList();
        assertThat(lines).extracting(LogRecord::getLevel).containsExactly(Level.WARNING, Level.INFO);
        assertThat(lines.get(0).getMessage()).startsWith("worker 'logged' of queue 'outage-log': the backend fails (")
                .contains("FlakyQueue").endsWith("backing off and retrying until it answers again");
        assertThat(lines.get(1).getMessage())
                .startsWith("worker 'logged' of queue 'outage-log': the backend answers again (")
                .containsPattern("after \\d+ failed call\\(s\\)$");
        assertThat(lines).allSatisfy(r -> {
            assertThat(r.getThrown()).as("no stack trace at info and above").isNull();
            assertThat(r.getMessage()).doesNotContain("\n");
        });
        List<LogRecord> traced = records.stream().filter(r -> r.getThrown() != null).toList();
        assertThat(traced).as("each failure's trace, below info").isNotEmpty()
                .allSatisfy(r -> assertThat(r.getLevel().intValue()).isLessThan(Level.INFO.intValue()));
        assertThat(traced.get(0).getLevel()).as("the trace of the failure that began the outage")
                .isEqualTo(Level.FINE);
    }
}

package io.clockwork.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.schedule.Occurrence;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.schedule.ScheduleRule;
import io.clockwork.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PostgresSchedules#start()}: background passes that sleep until the next fire time, wake on another client's
 * put through {@code NOTIFY}, and ride out a database restart, logging once per outage; a schedule a client cannot
 * read; spread; and the errors of bad input, of a closed queue and of a closed scheduler.
 */
@ExtendWith(PostgresExtension.class)
class PostgresSchedulesBackgroundIT {

    private final PostgresServerProcess postgres;

    PostgresSchedulesBackgroundIT(PostgresServerProcess postgres) {
        this.postgres = postgres;
    }

    @Test
    void aStartedSchedulerFiresInTheBackgroundAndWakesOnAnotherClientsPut() throws Exception {
        try (PostgresDelayedQueue<String> queue = PostgresDelayedQueue.builder(ContractQueues.dataSource(),
                "started", Codec.string()).build();
             PostgresSchedules<String> started = PostgresSchedules.builder(queue).build().start();
             PostgresDelayedQueue<String> otherQueue = PostgresDelayedQueue.builder(ContractQueues.dataSource(),
                     "started", Codec.string()).build();
             PostgresSchedules<String> other = PostgresSchedules.builder(otherQueue).build()) {
            Await.until("the started scheduler listens", Duration.ofSeconds(10), started::isListening);
            long before = started.notificationsReceived();
            long first = other.put(Schedule.of("bg", ScheduleRule.fixedRate(Duration.ofMillis(50)), "v"))
                    .nextFire().orElseThrow().toEpochMilli();
            List<Long> seen = new ArrayList<>();
            while (seen.size() < 5) {
                Delivery<String> d = queue.poll(Duration.ofSeconds(10));
                assertThat(d).isNotNull();
                seen.add(Occurrence.of(d.id()).orElseThrow().fireTime().toEpochMilli());
                d.ack();
            }
            assertThat(seen).containsExactly(first, first + 50, first + 100, first + 150, first + 200);
            assertThat(started.notificationsReceived()).as("the put's NOTIFY woke the started scheduler")
                    .isGreaterThan(before);
        }
    }

    @Test
    void aStartedSchedulerRidesOutADatabaseRestartLoggingOnceAndSkipsNoFireTime() throws Exception {
        Logger jul = Logger.getLogger(PostgresSchedules.class.getName());
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(handler);
        long p = 100;
        // A short connection timeout, so that passes fail during the outage rather than wait it out.
        try (HikariDataSource pool = connected(ContractQueues.pool(postgres.jdbcUrl(), 6, Duration.ofMillis(500)));
             PostgresDelayedQueue<String> queue = PostgresDelayedQueue.builder(pool, "restarted", Codec.string())
                     .build();
             PostgresSchedules<String> schedules = PostgresSchedules.builder(queue)
                     .misfireThreshold(Duration.ofMinutes(1)).build().start()) { // the outage's fire times are on time
            long first = schedules.put(Schedule.of("beat", ScheduleRule.fixedRate(Duration.ofMillis(p)), "v"))
                    .nextFire().orElseThrow().toEpochMilli();
            TreeMap<Long, Integer> seen = new TreeMap<>();
            consumeUntil(queue, seen, 3);
            postgres.kill();
            Thread.sleep(1000); // the outage: real time is the subject, about ten fire times with no database
            postgres.restart();
            consumeUntil(queue, seen, seen.size() + 10);
            assertThat(schedules.pause("beat")).isTrue();
            long last = schedules.get("beat").orElseThrow().lastFire().orElseThrow().toEpochMilli();
            while (true) {
                Delivery<String> d = queue.poll(Duration.ZERO);
                if (d == null) {
                    break;
                }
                seen.merge(Occurrence.of(d.id()).orElseThrow().fireTime().toEpochMilli(), 1, Integer::sum);
                d.ack();
            }
            assertThat(seen.firstKey()).isEqualTo(first);
            assertThat(seen.lastKey()).isEqualTo(last);
            assertThat(seen).as("every fire time, the outage's included")
                    .hasSize((int) ((last - first) / p + 1));
            assertThat(seen.values()).containsOnly(1);
            List<LogRecord> warnings = records.stream().filter(r -> r.getLevel() == Level.WARNING).toList();
            assertThat(warnings).as("one warning for the outage").hasSize(1);
            assertThat(records.stream().filter(r -> r.getLevel() == Level.INFO)
                    .anyMatch(r -> r.getMessage().contains("passes run again"))).isTrue();
        } finally {
            jul.removeHandler(handler);
        }
    }

    /** @return the pool, once it has opened a connection (a busy machine may take longer than its timeout) */
    private static HikariDataSource connected(HikariDataSource pool) {
        Await.until("the pool connects", Duration.ofSeconds(30), () -> {
            try (Connection c = pool.getConnection()) {
                return true;
            } catch (SQLException e) {
                return false;
            }
        });
        return pool;
    }

    /** Takes and acks until {@code seen} holds {@code n} fire times; polls that fail (no database) are retried. */
    private static void consumeUntil(PostgresDelayedQueue<String> queue, TreeMap<Long, Integer> seen, int n) {
        Await.until(n + " fire times delivered", Duration.ofSeconds(30), () -> {
            try {
                Delivery<String> d = queue.poll(Duration.ofMillis(200));
                if (d != null) {
                    seen.merge(Occurrence.of(d.id()).orElseThrow().fireTime().toEpochMilli(), 1, Integer::sum);
                    d.ack();
                }
            } catch (PostgresQueueException e) {
                // the database is still recovering
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return seen.size() >= n;
        });
    }

    @Test
    void aScheduleThisClientCannotReadIsLeftAloneAndTheOthersFire() throws Exception {
        try (PostgresDelayedQueue<String> queue = PostgresDelayedQueue.builder(ContractQueues.dataSource(),
                "unreadable", Codec.string()).build();
             PostgresSchedules<String> schedules = PostgresSchedules.builder(queue).build()) {
            schedules.put(Schedule.of("readable", ScheduleRule.fixedRate(Duration.ofMillis(50)), "v"));
            // What a process with clockwork-cron stores; this one has no cron parser on its class path.
            postgres.sql("INSERT INTO clockwork.clockwork_schedules (queue, name, rule, misfire, payload, next_fire,"
                    + " look_at) VALUES ('unreadable', 'cron-job', 'cron:* * * * *|UTC', 'once', '\\x76'::bytea,"
                    + " 0, 0)");
            ContractQueues.passTime(Duration.ofMillis(100));
            assertThat(schedules.fireDue()).isPositive();
            assertThat(queue.poll(Duration.ZERO).id()).startsWith("readable@");
            ScheduleInfo cron = schedules.get("cron-job").orElseThrow();
            assertThat(cron.lastFire()).isEmpty();
            assertThat(cron.nextFire()).contains(java.time.Instant.EPOCH); // left as it was, for a client with cron
        }
    }

    @Test
    void aSpreadScheduleOccurrenceFallsDueItsOffsetAfterItsFireTime() throws Exception {
        try (PostgresDelayedQueue<String> queue = PostgresDelayedQueue.builder(ContractQueues.dataSource(),
                "spread", Codec.string()).build();
             PostgresSchedules<String> schedules = PostgresSchedules.builder(queue).build()) {
            Schedule<String> spread = Schedule.of("spread", ScheduleRule.fixedRate(Duration.ofMillis(50)), "v")
                    .spread(Duration.ofHours(1));
            long offset = spread.spreadOffsetMillis();
            assertThat(offset).as("this name's offset in the hour").isGreaterThan(60_000);
            long first = schedules.put(spread).nextFire().orElseThrow().toEpochMilli();
            ContractQueues.passTime(Duration.ofMillis(60));
            assertThat(schedules.fireDue()).isPositive();
            assertThat(queue.poll(Duration.ZERO)).as("not due before its offset").isNull();
            Duration dueIn = queue.stats().nextDueIn().orElseThrow();
            assertThat(dueIn.toMillis()).isBetween(offset - 10_000, offset);
            assertThat(schedules.get("spread").orElseThrow().lastFire().orElseThrow().toEpochMilli())
                    .isGreaterThanOrEqualTo(first);
        }
    }

    @Test
    void aPriorityHeaderGoesWithEachOccurrence() throws Exception {
        try (PostgresDelayedQueue<String> queue = PostgresDelayedQueue.builder(ContractQueues.dataSource(),
                "prioritized", Codec.string()).build();
             PostgresSchedules<String> schedules = PostgresSchedules.builder(queue).build()) {
            schedules.put(Schedule.of("urgent", ScheduleRule.fixedRate(Duration.ofMillis(50)), "v")
                    .header(Message.PRIORITY_HEADER, "7"));
            ContractQueues.passTime(Duration.ofMillis(60));
            assertThat(schedules.fireDue()).isPositive();
            Delivery<String> d = queue.poll(Duration.ZERO);
            assertThat(d.headers()).containsEntry(Message.PRIORITY_HEADER, "7");
        }
    }

    @Test
    void aValueOverTheQueuesPayloadLimitIsRefusedAndNothingIsStored() {
        try (PostgresDelayedQueue<String> queue = PostgresDelayedQueue.builder(ContractQueues.dataSource(),
                "small", Codec.string()).maxPayloadBytes(16).build();
             PostgresSchedules<String> schedules = PostgresSchedules.builder(queue).build()) {
            assertThatThrownBy(() -> schedules.put(Schedule.of("big", ScheduleRule.fixedRate(Duration.ofSeconds(1)),
                    "x".repeat(17)))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16");
            assertThat(schedules.list()).isEmpty();
        }
    }

    @Test
    void aClosedSchedulerAndAClosedQueueRefuseCallsAndBadNamesAreRefused() {
        PostgresDelayedQueue<String> queue = PostgresDelayedQueue.builder(ContractQueues.dataSource(), "closing",
                Codec.string()).build();
        PostgresSchedules<String> schedules = PostgresSchedules.builder(queue).build();
        Schedule<String> s = Schedule.of("s", ScheduleRule.fixedRate(Duration.ofSeconds(1)), "v");
        assertThatThrownBy(() -> schedules.pause("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> schedules.put(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("schedule");
        assertThatThrownBy(() -> schedules.put(s.header(Message.GROUP_HEADER, "tenant")))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("clockwork-group");
        assertThat(schedules.list()).isEmpty();
        queue.close();
        assertThatThrownBy(() -> schedules.put(s)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("queue 'closing' is closed");
        schedules.close();
        assertThatThrownBy(schedules::fireDue).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");
        assertThatThrownBy(() -> PostgresSchedules.builder(queue).pollInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pollInterval");
        assertThatThrownBy(() -> PostgresSchedules.builder(queue).misfireThreshold(Duration.ofNanos(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("misfireThreshold");
    }
}

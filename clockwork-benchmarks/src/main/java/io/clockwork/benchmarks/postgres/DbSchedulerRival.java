package io.clockwork.benchmarks.postgres;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * db-scheduler as its documentation recommends for throughput on PostgreSQL: one {@code scheduled_tasks} table (the
 * columns and indexes its documentation gives for PostgreSQL), a one-time task whose data is the payload
 * (db-scheduler's default Java serialization), the {@code lock-and-fetch} polling strategy
 * ({@code SELECT ... FOR UPDATE SKIP LOCKED}) with the fractions it suggests for high throughput (1.0, 4.0),
 * immediate execution on, and a polling interval of {@link #POLLING_INTERVAL} (its precision is the polling interval;
 * its examples poll every second). Offers go through
 * {@code SchedulerClient.schedule(task.instance(id, payload), due)}, through the running {@link Scheduler} when there
 * is one (so immediate execution can wake it). Thread-safe as {@link JobRival} requires.
 */
final class DbSchedulerRival extends JobRival {

    static final String NAME = "db-scheduler";
    static final Duration POLLING_INTERVAL = Duration.ofSeconds(1);
    private static final String TASK = "bench-job";

    /** The table of db-scheduler's documentation for PostgreSQL. */
    private static final String[] SCHEMA = {
        "CREATE TABLE IF NOT EXISTS scheduled_tasks ("
                + " task_name text NOT NULL,"
                + " task_instance text NOT NULL,"
                + " task_data bytea,"
                + " execution_time timestamp with time zone NOT NULL,"
                + " picked boolean NOT NULL,"
                + " picked_by text,"
                + " last_success timestamp with time zone,"
                + " last_failure timestamp with time zone,"
                + " consecutive_failures int,"
                + " last_heartbeat timestamp with time zone,"
                + " version bigint NOT NULL,"
                + " priority smallint,"
                + " PRIMARY KEY (task_name, task_instance))",
        "CREATE INDEX IF NOT EXISTS execution_time_idx ON scheduled_tasks (execution_time)",
        "CREATE INDEX IF NOT EXISTS last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
        "CREATE INDEX IF NOT EXISTS priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)",
    };

    private final DataSource db;
    private final int threads;
    private final OneTimeTask<String> task;
    private final SchedulerClient client;
    private volatile Scheduler scheduler;

    DbSchedulerRival(DataSource db, int threads, HandledJobs sink) {
        super(NAME);
        this.db = db;
        this.threads = threads;
        createTable(db);
        this.task = Tasks.oneTime(TASK, String.class)
                .execute((instance, context) -> sink.handled(id(instance.getData())));
        this.client = SchedulerClient.Builder.create(db, task).build();
    }

    private static void createTable(DataSource db) {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            for (String sql : SCHEMA) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create db-scheduler's table: " + e.getMessage(), e);
        }
    }

    @Override
    void offer(int id, Instant due) {
        Scheduler running = scheduler;
        (running != null ? running : client).schedule(task.instance(Integer.toString(id), payload(id)), due);
    }

    @Override
    void offerAll(int from, int count, Instant due) {
        List<TaskInstance<?>> batch = new ArrayList<>(count);
        for (int id = from; id < from + count; id++) {
            batch.add(task.instance(Integer.toString(id), payload(id)));
        }
        client.scheduleBatch(batch, due);
    }

    @Override
    void start() {
        Scheduler s = Scheduler.create(db, task)
                .threads(threads)
                .pollUsingLockAndFetch(1.0, 4.0)
                .pollingInterval(POLLING_INTERVAL)
                .enableImmediateExecution()
                .build();
        s.start();
        scheduler = s;
    }

    @Override
    void stop() {
        Scheduler s = scheduler;
        scheduler = null;
        if (s != null) {
            s.stop();
        }
    }

    @Override
    String api() {
        return "`schedule(task.instance(id, payload), due)`; `Scheduler` with " + threads + " threads, "
                + "`pollUsingLockAndFetch(1.0, 4.0)`, `pollingInterval(" + POLLING_INTERVAL.toSeconds()
                + " s)`, `enableImmediateExecution()`";
    }

    @Override
    public void close() {
        stop();
    }
}

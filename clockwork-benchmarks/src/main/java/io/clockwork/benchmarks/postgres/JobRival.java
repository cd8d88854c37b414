package io.clockwork.benchmarks.postgres;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * One PostgreSQL job scheduler under test, reduced to what {@link PostgresJobRun}'s phases do: offer one job (its own
 * transaction, as a web request would), offer many through the scheduler's batch API, and run or stop its worker
 * with a no-op handler that reports each job to a {@link HandledJobs}. Each rival is configured as its documentation
 * recommends for throughput; its class says how. An instance works on one database; thread-safe for offers from
 * several threads, while {@link #start()} and {@link #stop()} are called by one thread.
 */
abstract class JobRival implements AutoCloseable {

    /** Clockwork's name among the rivals (the ratio columns divide by its figures). */
    static final String CLOCKWORK = "clockwork";
    /** Length of every job's payload, in bytes (ASCII). */
    static final int PAYLOAD_BYTES = 100;

    final String name;

    JobRival(String name) {
        this.name = name;
    }

    /** The rivals this build can measure, in the order they run. */
    static List<String> available() {
        return List.of(ClockworkRival.NAME, DbSchedulerRival.NAME, JobRunrRival.NAME);
    }

    /**
     * Opens a rival on a database, creating its tables if they are missing; its worker is stopped.
     *
     * @param name    one of {@link #available()}
     * @param db      the rival's own database
     * @param threads the worker's handler threads
     * @param sink    where the handler reports each job
     * @return the rival
     */
    static JobRival open(String name, DataSource db, int threads, HandledJobs sink) {
        Objects.requireNonNull(db, "db");
        Objects.requireNonNull(sink, "sink");
        switch (name) {
            case DbSchedulerRival.NAME:
                return new DbSchedulerRival(db, threads, sink);
            case JobRunrRival.NAME:
                return new JobRunrRival(db, threads, sink);
            case ClockworkRival.NAME:
                return new ClockworkRival(db, threads, sink);
            default:
                break;
        }
        throw new IllegalArgumentException("rival '" + name + "' is not one of " + available());
    }

    /** Offers job {@code id}, due at {@code due}, in a transaction of its own; returns when it is committed. */
    abstract void offer(int id, Instant due);

    /** Offers jobs {@code from} to {@code from + count - 1}, due at {@code due}, with the scheduler's batch API. */
    abstract void offerAll(int from, int count, Instant due);

    /** Starts the worker: it handles due jobs on its handler threads until {@link #stop()}. */
    abstract void start();

    /**
     * Waits until the worker has completed (acked, deleted, marked done) the first {@code jobs} jobs its handlers ran
     * since {@link #start()}. A rival that completes a job on the handler's thread before it takes the next has
     * nothing to wait for, which is the default.
     *
     * @param jobs  how many jobs the handlers ran
     * @param limit how long to wait at most
     * @throws IllegalStateException if they are not completed in time
     */
    void awaitCompleted(int jobs, Duration limit) throws InterruptedException {
    }

    /** Stops the worker, letting running handlers finish. */
    abstract void stop();

    /** @return the calls that offer and handle jobs, and the settings used, for the report */
    abstract String api();

    @Override
    public abstract void close();

    /**
     * @param name one of {@link #available()}
     * @return the version of its library on the class path, from its Maven metadata or jar manifest; "?" if neither
     */
    static String version(String name) {
        String[] coordinates = switch (name) {
            case DbSchedulerRival.NAME -> new String[] {"com.github.kagkarlsson", "db-scheduler"};
            case JobRunrRival.NAME -> new String[] {"org.jobrunr", "jobrunr"};
            default -> new String[] {"io.clockwork", "clockwork-postgres"};
        };
        try (InputStream in = JobRival.class.getResourceAsStream("/META-INF/maven/" + coordinates[0] + "/"
                + coordinates[1] + "/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "?");
            }
        } catch (IOException e) {
            return "?";
        }
        if (name.equals(CLOCKWORK)) {
            return "(this build)";
        }
        String v = org.jobrunr.scheduling.JobRequestScheduler.class.getPackage().getImplementationVersion();
        return v != null ? v : pinned(name);
    }

    /** @return a rival's version as the POM pins it (rivals.properties), or "?" */
    private static String pinned(String name) {
        try (InputStream in = JobRival.class.getResourceAsStream("rivals.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty(name, "?");
        } catch (IOException e) {
            return "?";
        }
    }

    /** @return job {@code id}'s payload: its decimal id, a colon, then padding to {@link #PAYLOAD_BYTES} */
    static String payload(int id) {
        StringBuilder sb = new StringBuilder(PAYLOAD_BYTES).append(id).append(':');
        while (sb.length() < PAYLOAD_BYTES) {
            sb.append('x');
        }
        return sb.toString();
    }

    /** @return the id a {@link #payload(int)} carries */
    static int id(String payload) {
        return Integer.parseInt(payload, 0, payload.indexOf(':'), 10);
    }
}

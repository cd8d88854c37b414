package io.clockwork.benchmarks.postgres;

import org.jobrunr.jobs.lambdas.JobRequest;
import org.jobrunr.jobs.lambdas.JobRequestHandler;
import org.jobrunr.jobs.mappers.JobMapper;
import org.jobrunr.scheduling.JobBuilder;
import org.jobrunr.scheduling.JobRequestScheduler;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.server.BackgroundJobServerConfiguration;
import org.jobrunr.server.JobActivator;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;
import org.jobrunr.utils.mapper.JsonMapper;
import org.jobrunr.utils.mapper.jackson.JacksonJsonMapper;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.IntStream;

/**
 * JobRunr (open-source edition) on its PostgreSQL storage provider, which creates and migrates its own tables, with
 * Jackson as its JSON mapper. Jobs are {@link JobRequest}s (a command and its handler, serialized as JSON; no lambda
 * analysis at enqueue time) carrying the payload: {@code JobRequestScheduler.enqueue(request)} for a job due now,
 * {@code schedule(due, request)} for a later one, and the {@code Stream} forms for batches. The worker is a
 * {@link BackgroundJobServer} with the handler threads asked for and the shortest poll interval JobRunr accepts on a
 * SQL database, {@link #POLL_INTERVAL}. Instances share no static state (JobRunr's static facade is not used), so
 * several can live in one JVM. Thread-safe as {@link JobRival} requires.
 */
final class JobRunrRival extends JobRival {

    static final String NAME = "jobrunr";
    /** JobRunr refuses a shorter poll interval on a SQL storage provider. */
    static final Duration POLL_INTERVAL = Duration.ofSeconds(5);

    private final int threads;
    private final JsonMapper json = new JacksonJsonMapper();
    private final PostgresStorageProvider storage;
    private final JobRequestScheduler scheduler;
    private final Handler handler;
    private BackgroundJobServer server;

    JobRunrRival(DataSource db, int threads, HandledJobs sink) {
        super(NAME);
        this.threads = threads;
        this.storage = new PostgresStorageProvider(db);
        this.storage.setJobMapper(new JobMapper(json));
        this.scheduler = new JobRequestScheduler(storage);
        this.handler = new Handler(sink);
    }

    @Override
    void offer(int id, Instant due) {
        BenchJob job = new BenchJob(payload(id));
        if (due.isAfter(Instant.now())) {
            scheduler.schedule(due, job);
        } else {
            scheduler.enqueue(job);
        }
    }

    @Override
    void offerAll(int from, int count, Instant due) {
        if (due.isAfter(Instant.now())) {
            scheduler.create(IntStream.range(from, from + count)
                    .mapToObj(id -> JobBuilder.aJob().scheduleAt(due).withJobRequest(new BenchJob(payload(id)))));
        } else {
            scheduler.enqueue(IntStream.range(from, from + count).mapToObj(id -> new BenchJob(payload(id))));
        }
    }

    @Override
    void start() {
        JobActivator activator = new JobActivator() {
            @Override
            public <T> T activateJob(Class<T> type) {
                return type.cast(handler);
            }
        };
        server = new BackgroundJobServer(storage, json, activator,
                BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration()
                        .andWorkerCount(threads)
                        .andPollInterval(POLL_INTERVAL));
        server.start();
    }

    @Override
    void stop() {
        if (server != null) {
            server.stop();
            server = null;
        }
    }

    @Override
    String api() {
        return "`JobRequestScheduler.enqueue(request)` / `schedule(due, request)` (a `JobRequest` with the payload); "
                + "`BackgroundJobServer` with " + threads + " workers, `pollInterval` " + POLL_INTERVAL.toSeconds()
                + " s (its minimum on SQL)";
    }

    @Override
    public void close() {
        stop();
        storage.close();
    }

    /** The job: a payload, handled by {@link Handler}. Public with a no-argument constructor for JobRunr's mapper. */
    public static final class BenchJob implements JobRequest {
        private String payload;

        /** For the JSON mapper. */
        public BenchJob() {
        }

        BenchJob(String payload) {
            this.payload = payload;
        }

        /** @return the job's payload */
        public String getPayload() {
            return payload;
        }

        @Override
        public Class<Handler> getJobRequestHandler() {
            return Handler.class;
        }
    }

    /** Reports each job to the harness and does nothing else. */
    public static final class Handler implements JobRequestHandler<BenchJob> {
        private final HandledJobs sink;

        Handler(HandledJobs sink) {
            this.sink = sink;
        }

        @Override
        public void run(BenchJob job) {
            sink.handled(id(job.getPayload()));
        }
    }
}

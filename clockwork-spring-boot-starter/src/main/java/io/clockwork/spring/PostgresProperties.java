package io.clockwork.spring;

import java.time.Duration;

/**
 * The PostgreSQL backend's options ({@code clockwork.postgres.*}, used when {@code clockwork.backend=postgres}), bound
 * by Spring at start. Not thread-safe: set once while the context starts, then read.
 */
public class PostgresProperties {

    /** The schema of the queues' tables: a lowercase SQL identifier. */
    private String schema = "clockwork";
    /**
     * Whether the queues create and upgrade their tables at start; false: a DBA applies the SQL files shipped in
     * clockwork-postgres (io/clockwork/postgres/schema), and a queue fails its start naming any file missing.
     */
    private boolean autoCreateSchema = true;
    /**
     * How often an idle consumer takes again without a notification (1 ms to 1 s, the horizon of the offers'
     * notifications; see PostgresQueueBuilder.recheckInterval).
     */
    private Duration recheckInterval = Duration.ofSeconds(1);

    public Duration getRecheckInterval() {
        return recheckInterval;
    }

    public void setRecheckInterval(Duration recheckInterval) {
        this.recheckInterval = ClockworkProperties.checkRange("clockwork.postgres.recheck-interval",
                recheckInterval, Duration.ofMillis(1), Duration.ofSeconds(1));
    }

    public String getSchema() {
        return schema;
    }

    public void setSchema(String schema) {
        this.schema = schema;
    }

    public boolean isAutoCreateSchema() {
        return autoCreateSchema;
    }

    public void setAutoCreateSchema(boolean autoCreateSchema) {
        this.autoCreateSchema = autoCreateSchema;
    }
}

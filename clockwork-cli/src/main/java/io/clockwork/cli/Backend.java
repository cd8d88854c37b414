package io.clockwork.cli;

import io.clockwork.dashboard.QueueSource;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.schedule.Schedules;

/**
 * Where the queues a command works on live, Redis ({@link RedisTarget}) or PostgreSQL ({@link PostgresTarget}), as
 * {@link ServerOptions} chooses it from {@code --redis} or {@code --postgres}: the commands open queues, delete them
 * and serve the dashboard through this, whatever the backend. Implementations are immutable.
 */
public interface Backend {

    /** @return where the server is, for messages: e.g. {@code 127.0.0.1:6379}; never a password */
    String where();

    /**
     * @param text a message, or null
     * @return the message without the server's password
     */
    String redact(String text);

    /** @return whether queues here are split into partitions ({@code --partitions} and {@code --cluster} apply) */
    boolean partitioned();

    /**
     * Opens a queue that some client has created, with raw byte values, writing nothing if none has.
     *
     * @param name        the queue's name
     * @param maxAttempts the queue's maxAttempts, as its clients build it
     * @param partitions  the partition count the queue must have, or 0 for the one stored with it (0 where
     *                    {@link #partitioned()} is false)
     * @return the open queue; closing it releases every connection it opened
     * @throws CliException if the server cannot be reached or has no such queue
     */
    DelayedQueue<byte[]> openExisting(String name, int maxAttempts, int partitions);

    /**
     * Opens a queue's recurring schedules, not started: the command runs no scheduler pass of its own.
     *
     * @param name   the queue's name
     * @param create whether a queue that no client has created yet may be created ({@code schedule add})
     * @return the schedules, with raw byte values; closing them closes the queue and its connections
     * @throws CliException if the server cannot be reached or, unless {@code create}, has no such queue
     */
    OpenSchedules openSchedules(String name, boolean create);

    /**
     * A queue's schedules and what they hold open. Not thread-safe: one per command.
     *
     * @param schedules the schedules
     * @param release   closes the queue and its connections, after the schedules
     */
    record OpenSchedules(Schedules<byte[]> schedules, Runnable release) implements AutoCloseable {
        @Override
        public void close() {
            try {
                schedules.close();
            } finally {
                release.run();
            }
        }
    }

    /**
     * Deletes a queue and everything stored for it, and its entry in the list of queues.
     *
     * @param name the queue's name
     * @return one line saying what was deleted
     * @throws CliException if the server cannot be reached, has no such queue, or fails
     */
    String delete(String name);

    /**
     * @param maxAttempts the queues' maxAttempts, as their clients build them
     * @param cluster     whether the server is a seed node of a Redis Cluster (only where {@link #partitioned()})
     * @return the dashboard's source of every queue here, connected
     * @throws CliException if the server cannot be reached
     */
    QueueSource dashboardSource(int maxAttempts, boolean cluster);
}

package io.clockwork.dashboard;

import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import io.clockwork.schedule.ScheduleInfo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What the dashboard reads from and does to one queue, whatever its backend. Implementations are thread-safe: the
 * sampler and any number of requests call them at once.
 */
public interface QueueView {

    /** @return the queue's name */
    String name();

    /** @return the backend, e.g. {@code redis://127.0.0.1:6379} or {@code in-process} */
    String backend();

    /**
     * @return what sets this queue apart from the others of its source on the overview, where the source itself is
     *         named once, e.g. {@code 4 partitions}; empty if nothing does
     */
    default String detail() {
        return "";
    }

    /** @return the queue's counts, as {@code DelayedQueue.stats()} gives them */
    QueueStats stats();

    /** @return how long the oldest ready message has been due, or empty if none is ready or the backend cannot say */
    Optional<Duration> oldestReady();

    /**
     * @return the queue's cumulative event counters, as {@code DelayedQueue.counters()} gives them, from which the
     *         sampler derives rates; empty if the backend keeps none
     */
    Optional<QueueCounters> counters();

    /**
     * @param limit the most groups to list, in [1, {@code DelayedQueue.MAX_GROUPS_LISTED}]
     * @return the message groups with the most ready messages, largest first, as {@code DelayedQueue.largestGroups}
     *         reads them; empty if no message names a group, or the backend keeps no groups
     */
    default List<GroupBacklog> largestGroups(int limit) {
        return List.of();
    }

    /**
     * Reads a page of messages in a state.
     *
     * @param state  which messages
     * @param cursor empty for the first page, else a {@link MessagePage#next()}
     * @param size   at most this many rows
     * @return the page
     * @throws IllegalArgumentException if the cursor is not one this view handed out
     */
    MessagePage page(MessageState state, Optional<String> cursor, int size);

    /**
     * @param id a message id
     * @return the message, or empty if the queue has none with this id, or the backend cannot look one up
     */
    Optional<MessageRow> find(String id);

    /** @return whether {@link #find} and the live states of {@link #page} list anything on this backend */
    boolean browsable();

    /**
     * @param id a message id
     * @return whether a pending message was cancelled
     */
    boolean cancel(String id);

    /**
     * @param id    a message id
     * @param delay the new delay from now
     * @return whether a pending message was rescheduled
     */
    boolean reschedule(String id, Duration delay);

    /**
     * @param id a dead letter's id
     * @return whether it was requeued
     */
    boolean requeueDead(String id);

    /**
     * Requeues the dead letters there are now (not those that die while this runs).
     *
     * @return how many were requeued
     */
    long requeueAllDead();

    /** @return how many dead letters were purged */
    long purgeDead();

    /** @return whether the queue is paused ({@link io.clockwork.queue.DelayedQueue#isPaused()}) */
    boolean isPaused();

    /** Pauses delivery for every consumer ({@link io.clockwork.queue.DelayedQueue#pause()}). */
    void pause();

    /** Ends a pause ({@link io.clockwork.queue.DelayedQueue#resume()}). */
    void resume();

    /**
     * Lists the queue's recurring schedules ({@link io.clockwork.schedule.Schedules#list()}). Reading them fires
     * nothing: the dashboard never runs a scheduler's pass.
     *
     * @return every schedule of the queue, in name order; empty if it has none or none is known to this view
     */
    List<ScheduleInfo> schedules();

    /**
     * @param name a schedule's name
     * @return true if it was running and is now paused
     * @throws IllegalArgumentException if the name is not a valid schedule name
     */
    boolean pauseSchedule(String name);

    /**
     * @param name a schedule's name
     * @return true if it was paused and now runs again, from its next fire time after now
     * @throws IllegalArgumentException if the name is not a valid schedule name
     */
    boolean resumeSchedule(String name);
}

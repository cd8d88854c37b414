package io.clockwork.schedule;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Recurring schedules over a {@link io.clockwork.queue.DelayedQueue}: each occurrence is a message of that queue, and
 * exactly one occurrence is produced per fire time however many schedulers run. Implementations are thread-safe.
 *
 * <h2>Exactly one occurrence per fire time</h2>
 * An occurrence's message id is {@code <name>@<fire time>} ({@link Occurrence}), so a second producer of the same
 * occurrence would be deduplicated while the first is in the queue. That alone is not enough: once the occurrence is
 * acked, a late scheduler could offer it again. So the backend keeps, per schedule, a version and the next fire time,
 * and a scheduler fires by compare-and-set: the occurrences of a pass are stored and the next fire time advanced in
 * one atomic step (one Lua script on Redis; one lock in process) that does nothing if another scheduler moved the
 * schedule first. Fire times only move forward, so no fire time is produced twice, and a scheduler that loses the
 * race simply reads the new state on its next pass, so none is skipped.
 *
 * <h2>Passes and misfires</h2>
 * {@link #fireDue()} runs one pass: every schedule whose next fire time is at or before now fires its due fire times
 * (each once, in order) and moves to its next one. Fire times later than the misfire threshold (a builder option) are
 * handled by the schedule's {@link Misfire} policy. {@link #start()} runs passes in the background.
 *
 * <h2>Administration</h2>
 * {@link #put(Schedule)} creates or updates: putting an equal schedule changes nothing; changing only the message or
 * policy keeps the next fire time; changing the rule first fires what the old rule has due, then takes the new rule's
 * first fire time after both now and the last fire time, so a switch neither doubles nor drops an occurrence.
 * {@link #pause(String)} stops firing (fire times during the pause are skipped); {@link #resume(String)} goes on
 * with the next fire time after now. {@link #delete(String)} removes the schedule; occurrences already in the queue
 * stay there.
 *
 * @param <V> the value type of the queue's messages
 */
public interface Schedules<V> extends AutoCloseable {

    /** The default misfire threshold: a fire time found more than this late counts as missed. */
    Duration DEFAULT_MISFIRE_THRESHOLD = Duration.ofSeconds(5);

    /**
     * Creates or updates a schedule (see "Administration").
     *
     * @param schedule the schedule
     * @return what the backend holds for it now, read after the write: with schedulers running, a pass between the
     *         two may already have fired its first fire time and moved {@code nextFire} on
     * @throws IllegalArgumentException if, with a codec, the encoded value exceeds the queue's payload limit
     *                                  (nothing is stored)
     */
    ScheduleInfo put(Schedule<? extends V> schedule);

    /**
     * @param name a schedule's name
     * @return true if it was running and is now paused; false if unknown or already paused
     */
    boolean pause(String name);

    /**
     * @param name a schedule's name
     * @return true if it was paused and now runs again, from its next fire time after now
     */
    boolean resume(String name);

    /**
     * @param name a schedule's name
     * @return true if it existed and is now deleted
     */
    boolean delete(String name);

    /**
     * @param name a schedule's name
     * @return what the backend holds for it; empty if unknown
     */
    Optional<ScheduleInfo> get(String name);

    /** @return every schedule, in name order */
    List<ScheduleInfo> list();

    /**
     * Runs one pass now (see "Passes and misfires").
     *
     * @return how many occurrences this pass stored
     */
    int fireDue();

    /**
     * Runs passes in the background until {@link #close()}: in process on the engine's shared driver at each next
     * fire time; on Redis on a thread of its own. Idempotent.
     *
     * @return this
     */
    Schedules<V> start();

    /** Stops background passes. The queue and the schedules stay. Idempotent. */
    @Override
    void close();
}

package io.clockwork.dashboard;

/**
 * One sample of a queue, taken by the dashboard's {@link Sampler}. Immutable and thread-safe.
 *
 * <p>The rates are differences of the queue's cumulative event counters ({@code DelayedQueue.counters()}) between
 * this sample and the previous one, over the ticker time between them; each is NaN for a queue's first sample, and
 * for a backend that keeps no counters.
 *
 * @param atMillis                when (epoch ms)
 * @param delayed                 delayed messages
 * @param ready                   ready messages
 * @param inFlight                messages in flight
 * @param dead                    dead letters
 * @param oldestReadySeconds      how long the oldest ready message had been due: the lateness its delivery will
 *                                have; 0 if none was ready, NaN if the backend cannot say
 * @param offeredPerSecond        messages stored by offers per second since the previous sample
 * @param deliveredPerSecond      deliveries per second
 * @param ackedPerSecond          acks per second
 * @param retriedPerSecond        messages scheduled again (after a nack or a visibility timeout) per second
 * @param deadLetteredPerSecond   messages dead-lettered per second
 * @param rateLimitedPerSecond    polls a rate limit held back per second ({@code QueueCounters.rateLimited()})
 */
public record Sample(long atMillis, long delayed, long ready, long inFlight, long dead, double oldestReadySeconds,
                     double offeredPerSecond, double deliveredPerSecond, double ackedPerSecond,
                     double retriedPerSecond, double deadLetteredPerSecond, double rateLimitedPerSecond) {

    /**
     * A sample without a rate of rate-limited polls (NaN), for a source that does not count them.
     *
     * @param atMillis              when (epoch ms)
     * @param delayed               delayed messages
     * @param ready                 ready messages
     * @param inFlight              messages in flight
     * @param dead                  dead letters
     * @param oldestReadySeconds    how long the oldest ready message had been due
     * @param offeredPerSecond      messages stored by offers per second
     * @param deliveredPerSecond    deliveries per second
     * @param ackedPerSecond        acks per second
     * @param retriedPerSecond      messages scheduled again per second
     * @param deadLetteredPerSecond messages dead-lettered per second
     */
    public Sample(long atMillis, long delayed, long ready, long inFlight, long dead, double oldestReadySeconds,
                  double offeredPerSecond, double deliveredPerSecond, double ackedPerSecond,
                  double retriedPerSecond, double deadLetteredPerSecond) {
        this(atMillis, delayed, ready, inFlight, dead, oldestReadySeconds, offeredPerSecond, deliveredPerSecond,
                ackedPerSecond, retriedPerSecond, deadLetteredPerSecond, Double.NaN);
    }
}

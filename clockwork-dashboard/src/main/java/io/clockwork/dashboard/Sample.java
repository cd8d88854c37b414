package io.clockwork.dashboard;

/**
 * One sample of a queue, taken by the dashboard's {@link Sampler}. Immutable and thread-safe.
 *
 * @param atMillis           when (epoch ms)
 * @param delayed            delayed messages
 * @param ready              ready messages
 * @param inFlight           messages in flight
 * @param dead               dead letters
 * @param oldestReadySeconds how long the oldest ready message had been due: the lateness its delivery will have; 0
 *                           if none was ready, NaN if the backend cannot say
 * @param scheduledPerSecond schedulings (offers, retries, reschedules, requeues) per second since the previous
 *                           sample; NaN for the first sample or a backend without the counter
 * @param deadPerSecond      net growth of the dead letters per second since the previous sample (a lower bound of
 *                           the dead-lettering rate: requeues and purges subtract); NaN for the first sample
 */
public record Sample(long atMillis, long delayed, long ready, long inFlight, long dead, double oldestReadySeconds,
                     double scheduledPerSecond, double deadPerSecond) {
}

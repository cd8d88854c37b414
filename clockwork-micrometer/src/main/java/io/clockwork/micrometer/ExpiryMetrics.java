package io.clockwork.micrometer;

import io.clockwork.storm.RotatingMap;
import io.clockwork.storm.TimeCacheMap;
import io.clockwork.zookeeper.ExpiryQueue;
import io.clockwork.zookeeper.SessionTrackerImpl;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Binds an expiry face's counts as {@code clockwork.expiry.tracked} (a gauge) and {@code clockwork.expiry.expired}
 * (a counter), tagged {@code face} ({@code expiry-queue}, {@code session-tracker}, {@code time-cache-map} or
 * {@code rotating-map}) and {@code name}. Thread-safe. Each meter reads a count the face keeps anyway.
 */
public final class ExpiryMetrics implements MeterBinder {

    private final String face;
    private final String name;
    private final Object target;
    private final ToDoubleFunction<Object> tracked;
    private final ToDoubleFunction<Object> expired;

    @SuppressWarnings("unchecked")
    private <T> ExpiryMetrics(String face, String name, T target, ToDoubleFunction<T> tracked,
                              ToDoubleFunction<T> expired) {
        this.face = face;
        this.name = Objects.requireNonNull(name, "name");
        this.target = Objects.requireNonNull(target, face);
        this.tracked = (ToDoubleFunction<Object>) tracked;
        this.expired = (ToDoubleFunction<Object>) expired;
    }

    /**
     * @param queue the expiry queue
     * @param name  the {@code name} tag
     * @return its binder: elements tracked (an expired one until it is removed, as in ZooKeeper) and elements polled
     *         as expired
     */
    public static ExpiryMetrics of(ExpiryQueue<?> queue, String name) {
        return new ExpiryMetrics("expiry-queue", name, queue, ExpiryQueue::size, ExpiryQueue::expiredCount);
    }

    /**
     * @param tracker the session tracker
     * @param name    the {@code name} tag
     * @return its binder: tracked sessions and sessions expired
     */
    public static ExpiryMetrics of(SessionTrackerImpl tracker, String name) {
        return new ExpiryMetrics("session-tracker", name, tracker, SessionTrackerImpl::sessionCount,
                SessionTrackerImpl::expiredCount);
    }

    /**
     * @param map  the map
     * @param name the {@code name} tag
     * @return its binder: entries present and entries expired
     */
    public static ExpiryMetrics of(TimeCacheMap<?, ?> map, String name) {
        return new ExpiryMetrics("time-cache-map", name, map, TimeCacheMap::size, TimeCacheMap::expiredCount);
    }

    /**
     * @param map  the map
     * @param name the {@code name} tag
     * @return its binder: entries present and entries expired by rotations
     */
    public static ExpiryMetrics of(RotatingMap<?, ?> map, String name) {
        return new ExpiryMetrics("rotating-map", name, map, RotatingMap::size, RotatingMap::expiredCount);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Tags tags = Tags.of("face", face, "name", name);
        Gauge.builder("clockwork.expiry.tracked", target, tracked).tags(tags).baseUnit("entries")
                .description("entries or sessions tracked").register(registry);
        FunctionCounter.builder("clockwork.expiry.expired", target, expired).tags(tags).baseUnit("entries")
                .description("entries or sessions expired").register(registry);
    }
}

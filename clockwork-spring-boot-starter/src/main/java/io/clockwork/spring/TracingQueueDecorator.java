package io.clockwork.spring;

import io.clockwork.opentelemetry.QueueTracing;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.worker.JobHandler;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Traces every queue and listener through clockwork-opentelemetry: producer and receive spans on the queues, a
 * {@code process} span around each listener call, the trace context in the message headers. Thread-safe. Does
 * nothing when the application has no {@link OpenTelemetry} bean.
 */
public final class TracingQueueDecorator implements ClockworkQueueDecorator {

    private final ObjectProvider<OpenTelemetry> openTelemetry;
    private volatile QueueTracing tracing;

    /** @param openTelemetry the application's OpenTelemetry, looked up when the first queue opens */
    public TracingQueueDecorator(ObjectProvider<OpenTelemetry> openTelemetry) {
        this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
    }

    private QueueTracing tracing() {
        QueueTracing t = tracing;
        if (t == null) {
            OpenTelemetry otel = openTelemetry.getIfAvailable();
            if (otel == null) {
                return null;
            }
            t = QueueTracing.create(otel);
            tracing = t;
        }
        return t;
    }

    @Override
    public <V> DelayedQueue<V> decorate(DelayedQueue<V> queue) {
        QueueTracing t = tracing();
        return t == null ? queue : t.trace(queue);
    }

    @Override
    public <V> JobHandler<V> decorate(DelayedQueue<V> queue, JobHandler<V> handler) {
        QueueTracing t = tracing();
        return t == null ? handler : t.traced(queue, handler);
    }
}

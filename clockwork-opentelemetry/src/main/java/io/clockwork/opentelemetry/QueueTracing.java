package io.clockwork.opentelemetry;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.worker.Job;
import io.clockwork.worker.JobHandler;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import static io.clockwork.opentelemetry.MessagingAttributes.ATTEMPT;
import static io.clockwork.opentelemetry.MessagingAttributes.DESTINATION;
import static io.clockwork.opentelemetry.MessagingAttributes.MESSAGE_ID;
import static io.clockwork.opentelemetry.MessagingAttributes.OPERATION_NAME;
import static io.clockwork.opentelemetry.MessagingAttributes.OPERATION_TYPE;
import static io.clockwork.opentelemetry.MessagingAttributes.SYSTEM;
import static io.clockwork.opentelemetry.MessagingAttributes.SYSTEM_KEY;

/**
 * OpenTelemetry tracing for Clockwork queues: the entry point that decorates queues and handlers. Thread-safe.
 *
 * <pre>{@code
 * QueueTracing tracing = QueueTracing.create(openTelemetry);
 * DelayedQueue<Order> orders = tracing.trace(queue);          // producer spans; context into the headers
 * Worker.builder(orders, tracing.traced(orders, handler)).build();   // a "process" span per job
 * }</pre>
 *
 * <p>The trace context travels in each message's headers ({@code traceparent}, {@code tracestate}, and whatever else
 * the OpenTelemetry instance's propagators write), so a consumer in another process continues the producer's trace
 * through Redis. Spans follow the OpenTelemetry messaging semantic conventions: {@code messaging.system} is
 * {@value MessagingAttributes#SYSTEM}, {@code messaging.destination.name} the queue's name.
 */
public final class QueueTracing {

    /** The instrumentation scope name of every span. */
    public static final String INSTRUMENTATION_NAME = "io.clockwork.opentelemetry";

    private final Tracer tracer;
    private final TextMapPropagator propagator;

    private QueueTracing(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer(INSTRUMENTATION_NAME);
        this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
    }

    /**
     * @param openTelemetry where spans go and whose propagators write the headers
     * @return tracing through it
     */
    public static QueueTracing create(OpenTelemetry openTelemetry) {
        return new QueueTracing(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    /**
     * @param queue the queue to trace
     * @param <V>   the value type
     * @return a queue whose offers make producer spans and carry their context, and whose polls make receive spans
     */
    public <V> TracingDelayedQueue<V> trace(DelayedQueue<V> queue) {
        return new TracingDelayedQueue<>(Objects.requireNonNull(queue, "queue"), this);
    }

    /**
     * Wraps a handler so that each job runs in a {@code process} span (kind {@code CONSUMER}) whose parent is the
     * context its producer put in the message's headers; a job without one starts a new trace. A handler that throws
     * marks the span as an error and records the exception.
     *
     * @param queue   the queue the jobs come from (its name is the destination)
     * @param handler the handler
     * @param <V>     the value type
     * @return the traced handler
     */
    public <V> JobHandler<V> traced(DelayedQueue<V> queue, JobHandler<V> handler) {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(handler, "handler");
        String destination = queue.name();
        return job -> process(destination, job, handler);
    }

    private <V> void process(String destination, Job<V> job, JobHandler<V> handler) throws Exception {
        SpanBuilder b = spanBuilder("process", destination, SpanKind.CONSUMER)
                .setAttribute(OPERATION_NAME, "process")
                .setAttribute(MESSAGE_ID, job.id())
                .setAttribute(ATTEMPT, (long) job.attempt());
        Context producer = extract(job.headers());
        if (producer != null) {
            b.setParent(producer);
        }
        Span span = b.startSpan();
        try (Scope ignored = span.makeCurrent()) {
            handler.handle(job);
        } catch (Exception | Error e) {
            span.recordException(e);
            span.setStatus(StatusCode.ERROR, e.getClass().getName());
            throw e;
        } finally {
            span.end();
        }
    }

    SpanBuilder spanBuilder(String operationType, String destination, SpanKind kind) {
        return tracer.spanBuilder(operationType + " " + destination)
                .setSpanKind(kind)
                .setAttribute(SYSTEM_KEY, SYSTEM)
                .setAttribute(DESTINATION, destination)
                .setAttribute(OPERATION_TYPE, operationType);
    }

    /** @return the headers that carry {@code context} (empty if the propagators write nothing) */
    Map<String, String> inject(Context context) {
        Map<String, String> headers = new LinkedHashMap<>();
        propagator.inject(context, headers, HeadersCarrier.INSTANCE);
        return headers;
    }

    /** @return the producer's context from a message's headers, or null if they carry none */
    Context extract(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        Context c = propagator.extract(Context.root(), headers, HeadersCarrier.INSTANCE);
        return Span.fromContext(c).getSpanContext().isValid() ? c : null;
    }

    /** @return the span context a message's headers carry, or null */
    SpanContext linkOf(Map<String, String> headers) {
        Context c = extract(headers);
        return c == null ? null : Span.fromContext(c).getSpanContext();
    }
}

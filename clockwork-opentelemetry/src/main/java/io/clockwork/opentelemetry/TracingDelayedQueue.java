package io.clockwork.opentelemetry;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.ForwardingDelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import static io.clockwork.opentelemetry.MessagingAttributes.BATCH_COUNT;
import static io.clockwork.opentelemetry.MessagingAttributes.MESSAGE_ID;
import static io.clockwork.opentelemetry.MessagingAttributes.OPERATION_NAME;

/**
 * A {@link DelayedQueue} that traces its offers and polls with OpenTelemetry and carries the trace context in each
 * message's headers. Thread-safe if the queue is. Made by {@link QueueTracing#trace(DelayedQueue)}.
 *
 * <p>Spans, after the messaging semantic conventions (as the Kafka and RabbitMQ instrumentations shape theirs):
 * <ul>
 *   <li>a single offer is one {@code send <queue>} span (kind {@code PRODUCER}) whose context the message carries;
 *       it has {@code messaging.message.id} once the queue has given the id;</li>
 *   <li>a batch offer ({@code offerAll}) makes one {@code create <queue>} span (kind {@code PRODUCER}) per message,
 *       whose context that message carries, and one {@code send <queue>} span (kind {@code CLIENT}) for the call,
 *       with {@code messaging.batch.message_count} and a link to each {@code create} span;</li>
 *   <li>a poll that returns messages is one {@code receive <queue>} span (kind {@code CLIENT}) from the call's start,
 *       linked to the context each message carries; an empty poll makes no span.</li>
 * </ul>
 * Handlers get their {@code process} spans from {@link QueueTracing#traced}. Offers by value become offers of
 * {@link Message}s, which is how the headers travel; ids, order and outcomes are those of the queue.
 *
 * @param <V> the value type
 */
public final class TracingDelayedQueue<V> extends ForwardingDelayedQueue<V> {

    private final QueueTracing tracing;
    private final String destination;

    TracingDelayedQueue(DelayedQueue<V> queue, QueueTracing tracing) {
        super(queue);
        this.tracing = tracing;
        this.destination = queue.name();
    }

    // ---- single offers

    private <R> R sendOne(String operation, Message<? extends V> message, Function<Message<V>, R> offer,
                          Function<R, String> idOf) {
        Span span = tracing.spanBuilder("send", destination, SpanKind.PRODUCER)
                .setAttribute(OPERATION_NAME, operation).startSpan();
        try (Scope ignored = span.makeCurrent()) {
            message.id().ifPresent(id -> span.setAttribute(MESSAGE_ID, id));
            R result = offer.apply(carrying(message, Context.current()));
            String id = idOf.apply(result);
            if (id != null) {
                span.setAttribute(MESSAGE_ID, id);
            }
            return result;
        } catch (RuntimeException | Error e) {
            fail(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    private <R> CompletionStage<R> sendOneAsync(String operation, Message<? extends V> message,
                                                Function<Message<V>, CompletionStage<R>> offer,
                                                Function<R, String> idOf) {
        Span span = tracing.spanBuilder("send", destination, SpanKind.PRODUCER)
                .setAttribute(OPERATION_NAME, operation).startSpan();
        CompletionStage<R> stage;
        try (Scope ignored = span.makeCurrent()) {
            message.id().ifPresent(id -> span.setAttribute(MESSAGE_ID, id));
            stage = offer.apply(carrying(message, Context.current()));
        } catch (RuntimeException | Error e) {
            fail(span, e);
            span.end();
            throw e;
        }
        return stage.whenComplete((result, error) -> {
            if (error != null) {
                fail(span, error);
            } else {
                String id = idOf.apply(result);
                if (id != null) {
                    span.setAttribute(MESSAGE_ID, id);
                }
            }
            span.end();
        });
    }

    private Message<V> carrying(Message<? extends V> message, Context context) {
        @SuppressWarnings("unchecked")
        Message<V> m = (Message<V>) message;
        Map<String, String> headers = tracing.inject(context);
        return headers.isEmpty() ? m : m.headers(headers);
    }

    private static void fail(Span span, Throwable e) {
        span.recordException(e);
        span.setStatus(StatusCode.ERROR, e.getClass().getName());
    }

    @Override
    public String offer(V value, Duration delay) {
        Message<V> m = Message.of(Objects.requireNonNull(value, "value")).delay(Objects.requireNonNull(delay, "delay"));
        return sendOne("offer", m, super::offer, Offered::id).id();
    }

    @Override
    public boolean offer(String id, V value, Duration delay) {
        Objects.requireNonNull(id, "id");
        Message<V> m = Message.of(Objects.requireNonNull(value, "value")).id(id)
                .delay(Objects.requireNonNull(delay, "delay"));
        return sendOne("offer", m, super::offer, Offered::id).stored();
    }

    @Override
    public Offered offer(Message<? extends V> message) {
        return sendOne("offer", Objects.requireNonNull(message, "message"), super::offer, Offered::id);
    }

    @Override
    public CompletionStage<String> offerAsync(V value, Duration delay) {
        Message<V> m = Message.of(Objects.requireNonNull(value, "value")).delay(Objects.requireNonNull(delay, "delay"));
        return sendOneAsync("offer", m, super::offerAsync, Offered::id).thenApply(Offered::id);
    }

    @Override
    public CompletionStage<Boolean> offerAsync(String id, V value, Duration delay) {
        Objects.requireNonNull(id, "id");
        Message<V> m = Message.of(Objects.requireNonNull(value, "value")).id(id)
                .delay(Objects.requireNonNull(delay, "delay"));
        return sendOneAsync("offer", m, super::offerAsync, Offered::id).thenApply(Offered::stored);
    }

    @Override
    public CompletionStage<Offered> offerAsync(Message<? extends V> message) {
        return sendOneAsync("offer", Objects.requireNonNull(message, "message"), super::offerAsync, Offered::id);
    }

    // ---- batches

    /** Per message a create span whose context it carries; the send span links them all. */
    private List<Message<V>> created(List<? extends Message<? extends V>> messages, SpanBuilder send) {
        List<Message<V>> out = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            Message<? extends V> m = Objects.requireNonNull(messages.get(i), "messages[" + i + "]");
            SpanBuilder b = tracing.spanBuilder("create", destination, SpanKind.PRODUCER)
                    .setAttribute(OPERATION_NAME, "create");
            m.id().ifPresent(id -> b.setAttribute(MESSAGE_ID, id));
            Span create = b.startSpan();
            out.add(carrying(m, Context.current().with(create)));
            create.end();
            send.addLink(create.getSpanContext());
        }
        return out;
    }

    private List<Offered> sendBatch(List<? extends Message<? extends V>> messages) {
        SpanBuilder b = tracing.spanBuilder("send", destination, SpanKind.CLIENT)
                .setAttribute(OPERATION_NAME, "offerAll")
                .setAttribute(BATCH_COUNT, (long) messages.size());
        List<Message<V>> carried = created(messages, b);
        Span span = b.startSpan();
        try (Scope ignored = span.makeCurrent()) {
            return super.offerAll(carried);
        } catch (RuntimeException | Error e) {
            fail(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    private CompletionStage<List<Offered>> sendBatchAsync(List<? extends Message<? extends V>> messages) {
        SpanBuilder b = tracing.spanBuilder("send", destination, SpanKind.CLIENT)
                .setAttribute(OPERATION_NAME, "offerAll")
                .setAttribute(BATCH_COUNT, (long) messages.size());
        List<Message<V>> carried = created(messages, b);
        Span span = b.startSpan();
        CompletionStage<List<Offered>> stage;
        try (Scope ignored = span.makeCurrent()) {
            stage = super.offerAllAsync(carried);
        } catch (RuntimeException | Error e) {
            fail(span, e);
            span.end();
            throw e;
        }
        return stage.whenComplete((r, error) -> {
            if (error != null) {
                fail(span, error);
            }
            span.end();
        });
    }

    private static <V> List<Message<V>> messagesOf(List<? extends V> values, Duration delay) {
        Objects.requireNonNull(values, "values");
        Objects.requireNonNull(delay, "delay");
        checkBatch(values.size(), "values");
        List<Message<V>> out = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            out.add(Message.<V>of(Objects.requireNonNull(values.get(i), "values[" + i + "]")).delay(delay));
        }
        return out;
    }

    private static <V> List<Message<V>> messagesOf(Map<String, ? extends V> messages, Duration delay) {
        Objects.requireNonNull(messages, "messages");
        Objects.requireNonNull(delay, "delay");
        checkBatch(messages.size(), "messages");
        List<Message<V>> out = new ArrayList<>(messages.size());
        for (Map.Entry<String, ? extends V> e : messages.entrySet()) {
            String id = Objects.requireNonNull(e.getKey(), "messages key");
            out.add(Message.<V>of(Objects.requireNonNull(e.getValue(), "messages[" + id + "]")).id(id).delay(delay));
        }
        return out;
    }

    private static void checkBatch(int size, String name) {
        if (size > MAX_BATCH) {
            throw new IllegalArgumentException(name + " must hold at most " + MAX_BATCH
                    + " elements (DelayedQueue.MAX_BATCH), had " + size);
        }
    }

    private static List<String> ids(List<Offered> all) {
        List<String> ids = new ArrayList<>(all.size());
        all.forEach(o -> ids.add(o.id()));
        return ids;
    }

    @Override
    public List<String> offerAll(List<? extends V> values, Duration delay) {
        List<Message<V>> messages = messagesOf(values, delay);
        return messages.isEmpty() ? super.offerAll(values, delay) : ids(sendBatch(messages));
    }

    @Override
    public List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        List<Message<V>> all = messagesOf(messages, delay);
        if (all.isEmpty()) {
            return super.offerAll(messages, delay);
        }
        List<String> stored = new ArrayList<>();
        sendBatch(all).stream().filter(Offered::stored).forEach(o -> stored.add(o.id()));
        return stored;
    }

    @Override
    public List<Offered> offerAll(List<? extends Message<? extends V>> messages) {
        Objects.requireNonNull(messages, "messages");
        return messages.isEmpty() ? super.offerAll(messages) : sendBatch(messages);
    }

    @Override
    public CompletionStage<List<String>> offerAllAsync(List<? extends V> values, Duration delay) {
        List<Message<V>> messages = messagesOf(values, delay);
        return messages.isEmpty() ? super.offerAllAsync(values, delay)
                : sendBatchAsync(messages).thenApply(TracingDelayedQueue::ids);
    }

    @Override
    public CompletionStage<List<Offered>> offerAllAsync(List<? extends Message<? extends V>> messages) {
        Objects.requireNonNull(messages, "messages");
        return messages.isEmpty() ? super.offerAllAsync(messages) : sendBatchAsync(messages);
    }

    // ---- polls

    @Override
    public Delivery<V> poll(Duration wait) throws InterruptedException {
        Instant start = Instant.now();
        Delivery<V> d = super.poll(wait);
        if (d != null) {
            received(start, List.of(d));
        }
        return d;
    }

    @Override
    public List<Delivery<V>> poll(int maxMessages, Duration wait) throws InterruptedException {
        Instant start = Instant.now();
        List<Delivery<V>> got = super.poll(maxMessages, wait);
        if (!got.isEmpty()) {
            received(start, got);
        }
        return got;
    }

    private void received(Instant start, List<Delivery<V>> got) {
        SpanBuilder b = tracing.spanBuilder("receive", destination, SpanKind.CLIENT)
                .setAttribute(OPERATION_NAME, "poll")
                .setStartTimestamp(start);
        if (got.size() == 1) {
            b.setAttribute(MESSAGE_ID, got.get(0).id());
        } else {
            b.setAttribute(BATCH_COUNT, (long) got.size());
        }
        for (Delivery<V> d : got) {
            SpanContext producer = tracing.linkOf(d.headers());
            if (producer != null) {
                b.addLink(producer);
            }
        }
        b.startSpan().end();
    }
}

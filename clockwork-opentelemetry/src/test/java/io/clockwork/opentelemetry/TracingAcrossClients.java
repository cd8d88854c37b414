package io.clockwork.opentelemetry;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.worker.Worker;
import io.clockwork.testing.Await;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Trace context through a queue shared by clients of a real backend: a producer and a consumer, each with its own
 * OpenTelemetry SDK and its own client of the queue {@code orders}, export into one {@link InMemorySpanExporter}; the
 * only thing they share is the queue, so the consumer's spans can find the producer's only through the message
 * headers. A subclass per backend makes the clients.
 */
abstract class TracingAcrossClients {

    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    private static final AttributeKey<Long> BATCH = AttributeKey.longKey("messaging.batch.message_count");

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final List<OpenTelemetrySdk> sdks = new ArrayList<>();
    private final List<DelayedQueue<?>> queues = new ArrayList<>();

    private OpenTelemetrySdk sdk() {
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        sdks.add(sdk);
        return sdk;
    }

    /** @return a new client of the queue {@code orders}, which every client of one test shares */
    protected abstract DelayedQueue<String> newClient();

    private DelayedQueue<String> client() {
        DelayedQueue<String> q = newClient();
        queues.add(q);
        return q;
    }

    @AfterEach
    void close() {
        queues.forEach(DelayedQueue::close);
        sdks.forEach(OpenTelemetrySdk::close);
    }

    private SpanData only(String name) {
        List<SpanData> found = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(found).as(name).hasSize(1);
        return found.get(0);
    }

    private List<SpanData> all(String name) {
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
    }

    @Test
    void consumersProcessSpanContinuesTheProducersTraceThroughTheQueue() throws Exception {
        QueueTracing producerTracing = QueueTracing.create(sdk());
        QueueTracing consumerTracing = QueueTracing.create(sdk());
        DelayedQueue<String> producer = producerTracing.trace(client());
        DelayedQueue<String> consumer = consumerTracing.trace(client());

        Span checkout = sdks.get(0).getTracer("shop").spanBuilder("checkout").startSpan();
        String id;
        try (Scope ignored = checkout.makeCurrent()) {
            id = producer.offer("order-1", Duration.ZERO);
        } finally {
            checkout.end();
        }
        Worker<String> worker = Worker.builder(consumer, consumerTracing.traced(consumer, job -> { })).build();
        Await.until("processed", () -> all("process orders").size() == 1);
        worker.shutdown(Duration.ofSeconds(10));

        SpanData send = only("send orders");
        SpanData process = only("process orders");
        SpanData receive = only("receive orders");
        assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(send.getParentSpanId()).isEqualTo(checkout.getSpanContext().getSpanId());
        assertThat(send.getAttributes().get(MESSAGE_ID)).isEqualTo(id);
        assertThat(send.getAttributes().get(OPERATION)).isEqualTo("send");
        assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(process.getTraceId()).isEqualTo(send.getTraceId()).isEqualTo(checkout.getSpanContext().getTraceId());
        assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
        assertThat(process.getAttributes().get(SYSTEM)).isEqualTo("clockwork");
        assertThat(process.getAttributes().get(DESTINATION)).isEqualTo("orders");
        assertThat(process.getAttributes().get(OPERATION)).isEqualTo("process");
        assertThat(process.getAttributes().get(MESSAGE_ID)).isEqualTo(id);
        assertThat(receive.getLinks()).extracting(l -> l.getSpanContext().getSpanId())
                .containsExactly(send.getSpanId());
        System.out.println(getClass().getSimpleName() + " span tree (single offer):\n"
                + SpanTree.render(exporter.getFinishedSpanItems()));
    }

    @Test
    void aBatchLinksItsCreateSpansAndEachMessageIsProcessedUnderItsOwn() throws Exception {
        QueueTracing producerTracing = QueueTracing.create(sdk());
        QueueTracing consumerTracing = QueueTracing.create(sdk());
        DelayedQueue<String> producer = producerTracing.trace(client());
        DelayedQueue<String> consumer = consumerTracing.trace(client());

        List<String> ids = producer.offerAll(List.of("a", "b", "c"), Duration.ZERO);
        List<Delivery<String>> got = consumer.poll(3, Duration.ofSeconds(5));
        assertThat(got).hasSize(3);
        var handler = consumerTracing.traced(consumer, job -> {
            if (job.value().equals("c")) {
                throw new IllegalStateException("card declined");
            }
        });
        for (Delivery<String> d : got) {
            try {
                handler.handle(new DeliveryJob(d));
            } catch (IllegalStateException expected) {
                assertThat(d.value()).isEqualTo("c");
            }
            d.ack();
        }

        SpanData send = only("send orders");
        List<SpanData> creates = all("create orders");
        SpanData receive = only("receive orders");
        List<SpanData> processes = all("process orders");
        assertThat(send.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(send.getAttributes().get(BATCH)).isEqualTo(3L);
        assertThat(creates).hasSize(3).allMatch(c -> c.getKind() == SpanKind.PRODUCER);
        assertThat(send.getLinks()).extracting(l -> l.getSpanContext().getSpanId())
                .containsExactlyInAnyOrderElementsOf(creates.stream().map(SpanData::getSpanId).toList());
        assertThat(receive.getAttributes().get(BATCH)).isEqualTo(3L);
        assertThat(receive.getLinks()).extracting(LinkData::getSpanContext).extracting(c -> c.getSpanId())
                .containsExactlyInAnyOrderElementsOf(creates.stream().map(SpanData::getSpanId).toList());
        Map<String, SpanData> createById = creates.stream().collect(Collectors.toMap(SpanData::getSpanId, c -> c));
        assertThat(processes).hasSize(3).allSatisfy(p -> {
            SpanData parent = createById.get(p.getParentSpanId());
            assertThat(parent).as("a process span's parent is its message's create span").isNotNull();
            assertThat(p.getTraceId()).isEqualTo(parent.getTraceId());
        });
        assertThat(processes.stream().map(p -> p.getAttributes().get(MESSAGE_ID)).toList())
                .containsExactlyInAnyOrderElementsOf(ids);
        SpanData failed = processes.stream().filter(p -> p.getStatus().getStatusCode() == StatusCode.ERROR)
                .findFirst().orElseThrow();
        assertThat(failed.getEvents()).anyMatch(e -> e.getName().equals("exception"));
        assertThat(processes.stream().filter(p -> p.getStatus().getStatusCode() == StatusCode.ERROR)).hasSize(1);
        System.out.println(getClass().getSimpleName() + " span tree (batch):\n"
                + SpanTree.render(exporter.getFinishedSpanItems()));
    }

    /** A delivery seen as a job, as a worker hands it to its handler. */
    private record DeliveryJob(Delivery<String> d) implements io.clockwork.worker.Job<String> {
        @Override
        public String id() {
            return d.id();
        }

        @Override
        public String value() {
            return d.value();
        }

        @Override
        public int attempt() {
            return d.attempt();
        }

        @Override
        public Map<String, String> headers() {
            return d.headers();
        }

        @Override
        public boolean isLeaseLost() {
            return false;
        }
    }
}

package io.clockwork.spring;

import io.clockwork.opentelemetry.TracingDelayedQueue;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.testing.Await;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The starter traces queues and listeners through the application's OpenTelemetry bean. */
class ClockworkTracingTest {

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();

    static class Listener {
        final Set<String> seen = ConcurrentHashMap.newKeySet();

        @ClockworkListener(queue = "traced")
        void on(String value) {
            seen.add(value);
        }
    }

    private OpenTelemetry sdk() {
        return OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter))
                        .build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ClockworkAutoConfiguration.class))
            .withBean(Listener.class);

    @Test
    void aListenersProcessSpanIsAChildOfTheProducersSendSpan() {
        runner.withBean(OpenTelemetry.class, this::sdk).run(context -> {
            DelayedQueue<String> q = context.getBean(ClockworkQueues.class).queue("traced", String.class);
            assertThat(q).isInstanceOf(TracingDelayedQueue.class);
            q.offer("hello", Duration.ZERO);
            Await.until("processed", () -> exporter.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getName().equals("process traced")));
            List<SpanData> spans = exporter.getFinishedSpanItems();
            SpanData send = spans.stream().filter(s -> s.getName().equals("send traced")).findFirst().orElseThrow();
            SpanData process = spans.stream().filter(s -> s.getName().equals("process traced")).findFirst()
                    .orElseThrow();
            assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
            assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
            assertThat(process.getTraceId()).isEqualTo(send.getTraceId());
            assertThat(context.getBean(Listener.class).seen).containsExactly("hello");
        });
    }

    @Test
    void tracedAndMeteredTogetherTheHandlerIsStillTimed() {
        runner.withBean(OpenTelemetry.class, this::sdk)
                .withBean(io.micrometer.core.instrument.MeterRegistry.class,
                        io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
                .run(context -> {
                    context.getBean(ClockworkQueues.class).queue("traced", String.class).offer("x", Duration.ZERO);
                    var registry = context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
                    Await.until("timed", () -> registry.find("clockwork.queue.handler").tag("outcome", "success")
                            .timers().stream().anyMatch(t -> t.count() == 1));
                    assertThat(exporter.getFinishedSpanItems()).anyMatch(s -> s.getName().equals("process traced"));
                });
    }

    @Test
    void withoutAnOpenTelemetryBeanOrWithTracingOffQueuesAreNotTraced() {
        runner.run(context -> assertThat(context.getBean(ClockworkQueues.class).queue("traced", String.class))
                .isNotInstanceOf(TracingDelayedQueue.class));
        runner.withBean(OpenTelemetry.class, this::sdk).withPropertyValues("clockwork.tracing.enabled=false")
                .run(context -> assertThat(context.getBean(ClockworkQueues.class).queue("traced", String.class))
                        .isNotInstanceOf(TracingDelayedQueue.class));
    }
}

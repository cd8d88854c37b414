package io.clockwork.examples.orders;

import io.clockwork.testing.Await;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example as its users start it, on a free port: while it lingers after its report it serves Actuator's health,
 * with the clockwork indicator, and the clockwork.* meters over HTTP, until its context closes (as Ctrl-C closes it).
 */
@ExtendWith(OutputCaptureExtension.class)
class OrdersHttpTest {

    private static final Pattern SERVING = Pattern.compile("serving http://localhost:(\\d+)/actuator/health");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthAndTheQueuesMetersAreServedWhileItRuns(CapturedOutput output) throws Exception {
        AtomicReference<ConfigurableApplicationContext> context = new AtomicReference<>();
        SpringApplication application = new SpringApplication(OrdersApplication.class);
        application.addListeners((ApplicationListener<ApplicationStartedEvent>) e ->
                context.set(e.getApplicationContext()));
        CompletableFuture<ConfigurableApplicationContext> run = CompletableFuture.supplyAsync(() -> application.run(
                "--server.port=0", "--orders.count=100", "--orders.deadline=1s", "--orders.linger=10m"));
        Await.until("the report and the address", Duration.ofSeconds(60),
                () -> SERVING.matcher(output.getOut()).find() || run.isDone());
        Matcher m = SERVING.matcher(output.getOut());
        assertThat(m.find()).as("the address is printed").isTrue();
        int port = Integer.parseInt(m.group(1));
        assertThat(port).isPositive();

        HttpResponse<String> health = get(port, "/actuator/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"", "\"clockwork\"");
        HttpResponse<String> metrics = get(port, "/actuator/metrics");
        assertThat(metrics.body()).contains("\"clockwork.queue.offered\"", "\"clockwork.queue.acked\"");
        HttpResponse<String> offered = get(port,
                "/actuator/metrics/clockwork.queue.offered?tag=queue:payment-deadlines");
        assertThat(offered.statusCode()).isEqualTo(200);
        assertThat(offered.body()).contains("\"statistic\":\"COUNT\",\"value\":100.0");
        assertThat(output.getOut()).contains("OK: every order's outcome is its intent");
        assertThat(run).as("still serving").isNotDone();

        assertThat(context.get().getBean(OrdersDemo.class).getExitCode()).as("the status it exits with").isZero();
        context.get().close();
        assertThat(run.get(1, TimeUnit.MINUTES).isActive()).as("the linger ends when the context closes").isFalse();
    }
}

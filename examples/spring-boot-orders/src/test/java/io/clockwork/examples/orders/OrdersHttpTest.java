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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example as its users start it, on a free port: while it lingers after its report it serves Actuator's health,
 * with the clockwork indicator, and the clockwork.* meters over HTTP; then it exits with its status.
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
        long start = System.nanoTime();
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> SpringApplication.exit(
                SpringApplication.run(OrdersApplication.class, "--server.port=0", "--orders.count=100",
                        "--orders.deadline=1s", "--orders.linger=3s")));
        Await.until("the report and the address", Duration.ofSeconds(60),
                () -> SERVING.matcher(output.getOut()).find() || exit.isDone());
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
        assertThat(exit).as("still serving").isNotDone();

        assertThat(exit.get(1, TimeUnit.MINUTES)).as("the exit status of a run where every order is right").isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
        assertThat(output.getOut()).contains("OK: every order's outcome is its intent");
    }
}

package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Codec;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisCluster;
import io.clockwork.redis.fixture.RedisClusterExtension;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/** {@code clockwork dashboard --cluster} serves the queues of a real 3-master Redis Cluster from one seed node. */
@ExtendWith(RedisClusterExtension.class)
class DashboardCommandClusterIT {

    @Test
    void servesEveryQueueOfTheClusterFromOneSeedNode(RedisCluster cluster) throws Exception {
        RedisClusterClient client = RedisClusterClient.create(RedisURI.create(cluster.seedUris().get(0)));
        try (RedisDelayedQueue<String> orders = RedisDelayedQueue.builder(client, "orders", Codec.string())
                .partitions(4).build();
             RedisDelayedQueue<String> mail = RedisDelayedQueue.builder(client, "mail", Codec.string()).build()) {
            orders.offer("o-1", "pay 10", Duration.ofHours(1));
            CommandLine cl = ClockworkCli.commandLine(Map.of());
            StringWriter out = new StringWriter();
            cl.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(new StringWriter(), true));
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cl.execute("dashboard", "--redis",
                    cluster.seedUris().get(2), "--cluster", "--port", "0"));
            Matcher m = DashboardCommandIT.awaitAddress(out, exit);
            assertThat(out.toString()).as("exit %s", exit.getNow(null)).contains("the redis cluster of");
            HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(m.group(1)))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains(">orders</a>").contains(">mail</a>");
            DashboardCommand cmd = cl.getSubcommands().get("dashboard").getCommand();
            cmd.stop();
            assertThat(exit.get()).isZero();
        } finally {
            client.shutdown();
        }
    }
}

package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisCluster;
import io.clockwork.redis.fixture.RedisClusterExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.javalin.Javalin;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The dashboard over HTTP against a real 3-master Redis Cluster, its queues found from one seed node. */
@ExtendWith(RedisClusterExtension.class)
class DashboardClusterIT {

    private final RedisCluster cluster;
    private final RedisClusterClient client;

    DashboardClusterIT(RedisCluster cluster) {
        this.cluster = cluster;
        this.client = RedisClusterClient.create(RedisURI.create(cluster.seedUris().get(0)));
    }

    @AfterEach
    void shutDown() {
        client.shutdown();
    }

    @Test
    void everyQueueOnTheClusterIsShownWithItsStatsAndARequeueMovesTheDeadLetter() throws Exception {
        Set<RedisServerProcess> masters = new HashSet<>();
        for (int p = 0; p < 4; p++) {
            masters.add(cluster.masterForSlot(SlotHash.getSlot(
                    ("cw:{orders:" + p + "}:pending").getBytes(StandardCharsets.UTF_8))));
        }
        assertThat(masters).as("masters holding a partition of orders").hasSizeGreaterThanOrEqualTo(2);

        try (RedisDelayedQueue<String> orders = RedisDelayedQueue.builder(client, "orders", Codec.string())
                .partitions(4).maxAttempts(1).build();
             RedisDelayedQueue<String> mail = RedisDelayedQueue.builder(client, "mail", Codec.string())
                     .maxAttempts(1).build();
             RedisQueueSource source = RedisQueueSource.connectCluster(cluster.seedUris().get(1), 1);
             Dashboard dashboard = Dashboard.builder(source).build()) {
            for (int i = 0; i < 8; i++) {
                orders.offer("now-" + i, "v", Duration.ZERO);
            }
            orders.offer("later", "v", Duration.ofHours(1));
            mail.offer("doomed", "payload of doomed", Duration.ZERO);
            Delivery<String> d = mail.poll(Duration.ofSeconds(2));
            assertThat(d.id()).isEqualTo("doomed");
            d.nack(Duration.ZERO);

            assertThat(source.names()).containsExactly("mail", "orders");
            assertThat(source.describe()).startsWith("redis cluster, seed redis://127.0.0.1:");
            QueueStats s = orders.stats();
            QueueStats shown = source.queue("orders").orElseThrow().stats();
            assertThat(shown).usingRecursiveComparison().ignoringFields("nextDueIn").isEqualTo(s);
            assertThat(shown.nextDueIn()).isPresent();
            assertThat(source.queue("orders").orElseThrow().backend()).endsWith(", 4 partitions");
            assertThat(source.queue("orders").orElseThrow().page(MessageState.DELAYED, java.util.Optional.empty(), 10)
                    .rows()).extracting(MessageRow::id).containsExactly("later");

            Javalin app = dashboard.start("127.0.0.1", 0);
            Browser b = new Browser("http://127.0.0.1:" + app.port());
            HttpResponse<String> page = b.get("/");
            assertThat(page.statusCode()).isEqualTo(200);
            String html = page.body();
            assertThat(html).contains(">orders</a>").contains(">mail</a>").contains("redis cluster");
            assertThat(row(html, "orders")).contains("data-field=\"ready\">" + s.ready() + "<")
                    .contains("data-field=\"delayed\">" + s.delayed() + "<");
            assertThat(row(html, "mail")).contains("data-field=\"dead\">1<");
            assertThat(b.get("/queue?name=mail&state=dead").body()).contains("doomed").contains("payload of doomed");

            String csrf = b.csrf("/confirm?queue=mail&action=requeue&id=doomed");
            HttpResponse<String> r = b.post("/action", Map.of("_csrf", csrf, "queue", "mail", "action", "requeue",
                    "id", "doomed", "confirm", "yes"));
            assertThat(r.statusCode()).isEqualTo(302);
            assertThat(mail.stats().dead()).isZero();
            assertThat(mail.stats().ready()).isEqualTo(1);
        }
    }

    private static String row(String html, String queue) {
        int start = html.indexOf("<tr data-queue=\"" + queue + "\"");
        assertThat(start).as("row of " + queue).isNotNegative();
        return html.substring(start, html.indexOf("</tr>", start));
    }
}

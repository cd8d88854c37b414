package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.redis.fixture.RedisCluster;
import io.clockwork.redis.fixture.RedisClusterExtension;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The registry of queues on a real 3-master Redis Cluster, read through a caller's cluster client. */
@ExtendWith(RedisClusterExtension.class)
class RedisQueueRegistryClusterIT {

    private final RedisClusterClient client;

    RedisQueueRegistryClusterIT(RedisCluster cluster) {
        this.client = RedisClusterClient.create(RedisURI.create(cluster.seedUris().get(0)));
    }

    @AfterEach
    void shutDown() {
        client.shutdown();
    }

    @Test
    void listsEveryQueueBuiltOnTheClusterAndForgetsOne() {
        try (RedisDelayedQueue<String> orders = RedisDelayedQueue.builder(client, "orders", Codec.string())
                .partitions(4).build();
             RedisDelayedQueue<String> mail = RedisDelayedQueue.builder(client, "mail", Codec.string()).build();
             RedisQueueRegistry registry = RedisQueueRegistry.of(client)) {
            assertThat(registry.names()).containsExactly("mail", "orders");
            assertThat(registry.where()).contains("cluster");

            assertThat(registry.forget("mail")).isTrue();
            assertThat(registry.forget("mail")).isFalse();

            assertThat(registry.names()).containsExactly("orders");
        }
    }

    @Test
    void closingTheRegistryLeavesTheCallersClientOpen() {
        try (RedisQueueRegistry registry = RedisQueueRegistry.of(client)) {
            assertThat(registry.names()).isEmpty();
        }
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(client, "after", Codec.string()).build()) {
            q.offer("a", "x", Duration.ZERO);
            assertThat(q.stats().ready()).isEqualTo(1);
        }
    }
}

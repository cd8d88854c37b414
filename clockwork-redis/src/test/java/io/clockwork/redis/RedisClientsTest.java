package io.clockwork.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisClientsTest {

    @Test
    void optionsReconnectRejectCommandsWhileDisconnectedAndBoundConnects() {
        ClientOptions options = RedisClients.options(Duration.ofMillis(750));
        assertThat(options.isAutoReconnect()).isTrue();
        assertThat(options.getDisconnectedBehavior()).isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
        assertThat(options.getSocketOptions().getConnectTimeout()).isEqualTo(Duration.ofMillis(750));
        assertThat(options.getSslOptions().getHandshakeTimeout()).isEqualTo(Duration.ofMillis(750));
    }

    @Test
    void reconnectWaitsGrowFromTheMinimumUpToTheBound() {
        ClientResources resources = RedisClients.resources(Duration.ofMillis(100)).build();
        try {
            Delay delay = resources.reconnectDelay();
            assertThat(delay.createDelay(1)).isEqualTo(RedisClients.RECONNECT_MIN_DELAY);
            assertThat(delay.createDelay(6)).isGreaterThan(RedisClients.RECONNECT_MIN_DELAY);
            assertThat(delay.createDelay(30)).isEqualTo(Duration.ofMillis(100));
        } finally {
            resources.shutdown();
        }
    }

    @Test
    void aBoundBelowTheFirstWaitIsRefusedNamingIt() {
        assertThatThrownBy(() -> RedisClients.resources(Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reconnectMaxDelay").hasMessageContaining("PT0.01S");
        assertThatThrownBy(() -> RedisClients.options(null)).hasMessageContaining("connectTimeout");
    }
}

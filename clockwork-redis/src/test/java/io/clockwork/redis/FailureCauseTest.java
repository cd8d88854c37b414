package io.clockwork.redis;

import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * FailureCause's words for connect failures whose Lettuce form depends on a race, so that the ITs that provoke them
 * (RedisQueueConnectErrorsIT) cannot show every form on every run.
 */
class FailureCauseTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    /** What Lettuce throws when the server closed the channel before Lettuce's handshake handler ran. */
    private static RedisConnectionException closedBeforeTheHandshakeHandler() {
        return new RedisConnectionException("Unable to connect to 127.0.0.1/<unresolved>:15174",
                new IllegalStateException("RedisHandshakeHandler not registered"));
    }

    @Test
    void aPlainTextClientWhoseConnectionTheServerDroppedAtOnceIsToldToTryRediss() {
        String words = FailureCause.explainConnect(closedBeforeTheHandshakeHandler(),
                new FailureCause.Attempt("127.0.0.1:15174", false, TIMEOUT, FailureCause.Reached.HANDSHAKE));

        assertThat(words).contains("the server at 127.0.0.1:15174 closed the connection during the handshake")
                .contains("RedisHandshakeHandler not registered")
                .endsWith("if the port is a TLS port, use rediss://");
    }

    @Test
    void aTlsClientWhoseConnectionTheServerDroppedBeforeTlsCompletedIsAskedAboutThePort() {
        String words = FailureCause.explainConnect(closedBeforeTheHandshakeHandler(),
                new FailureCause.Attempt("127.0.0.1:15174", true, TIMEOUT, FailureCause.Reached.TCP));

        assertThat(words).startsWith("TLS handshake failed: the server at 127.0.0.1:15174 closed the connection")
                .endsWith("is the port a TLS port?");
    }

    @Test
    void anotherIllegalStateIsNotTakenForAClosedConnection() {
        String words = FailureCause.explainConnect(new RedisConnectionException("Unable to connect to h:1",
                new IllegalStateException("something else")),
                new FailureCause.Attempt("h:1", false, TIMEOUT, FailureCause.Reached.HANDSHAKE));

        assertThat(words).doesNotContain("closed the connection").contains("something else");
    }

    @Test
    void onlyTheHandshakeHandlerRaceCountsAsALostReason() {
        assertThat(FailureCause.reasonLost(closedBeforeTheHandshakeHandler())).isTrue();
        assertThat(FailureCause.reasonLost(new RedisConnectionException("Unable to connect to h:1",
                new IllegalStateException("something else")))).isFalse();
        assertThat(FailureCause.reasonLost(new RedisConnectionException("WRONGPASS invalid username-password pair")))
                .isFalse();
    }
}

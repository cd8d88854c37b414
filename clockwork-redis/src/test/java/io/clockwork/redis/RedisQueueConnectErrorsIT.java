package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.redis.fixture.TestCertificate;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A queue that cannot connect, or may not run its commands, says why in its {@link RedisQueueException} message:
 * the root cause in plain words with the server's own code (WRONGPASS, NOAUTH, NOPERM naming the command, PKIX), what
 * did not answer when the connect timed out, and "not a Redis server" for an HTTP server. Lettuce's error stays the
 * cause. Every server here is a real process or a real socket: redis-server started by the fixture (with TLS where
 * needed, on a certificate made at runtime with keytool), and {@link ServerSocket}s that stay silent, answer HTTP, or
 * never complete the TCP handshake.
 */
class RedisQueueConnectErrorsIT {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** Far above the 2 s timeout, far below Lettuce's 60 s default that governed the handshake before. */
    private static final Duration BOUND = Duration.ofSeconds(10);

    @TempDir
    static Path certDir;
    private static TestCertificate cert;

    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void makeCertificate() {
        cert = TestCertificate.generate(certDir);
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private RedisServerProcess server() {
        RedisServerProcess s = RedisServerProcess.start();
        open.add(s);
        return s;
    }

    private RedisServerProcess tlsServer() {
        RedisServerProcess s = RedisServerProcess.builder().tls(cert.certificatePem(), cert.privateKeyPem()).start();
        open.add(s);
        return s;
    }

    /** A loopback server socket whose accepted connections are handed to {@code onAccept} on a thread of its own. */
    private ServerSocket socketServer(int backlog, Consumer<Socket> onAccept) throws IOException {
        ServerSocket server = new ServerSocket(0, backlog, InetAddress.getLoopbackAddress());
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        open.add(() -> {
            server.close();
            for (Socket s : accepted) {
                s.close();
            }
        });
        if (onAccept != null) {
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        accepted.add(s);
                        onAccept.accept(s);
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "test-socket-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }
        return server;
    }

    /** The failure of {@code build()}, with how long it took. */
    private record Failure(RedisQueueException error, Duration took) {
    }

    private static Failure buildFails(RedisQueueBuilder<String> builder) {
        long start = System.nanoTime();
        RedisQueueException e = catchThrowableOfType(builder::build, RedisQueueException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(e).as("build() must fail with RedisQueueException").isNotNull();
        return new Failure(e, took);
    }

    private static RedisQueueBuilder<String> queue(String uri) {
        return RedisDelayedQueue.builder(uri, "q", Codec.string());
    }

    @Test
    void aServerThatAcceptsAndNeverAnswersFailsWithinTheConnectTimeoutNamingTheHandshake() throws IOException {
        ServerSocket silent = socketServer(50, s -> { });
        int port = silent.getLocalPort();

        Failure f = buildFails(queue("redis://127.0.0.1:" + port).connectTimeout(CONNECT_TIMEOUT));

        assertThat(f.took()).isGreaterThanOrEqualTo(CONNECT_TIMEOUT.minusMillis(100)).isLessThan(BOUND);
        assertThat(f.error()).hasMessageContaining("redis://127.0.0.1:" + port)
                .hasMessageContaining("connected, but no reply to the handshake within 2 s: is this a Redis server?")
                .hasCauseInstanceOf(RedisConnectionException.class);
    }

    @Test
    void theDefaultConnectTimeoutBoundsTheHandshakeAtTenSeconds() throws IOException {
        ServerSocket silent = socketServer(50, s -> { });

        Failure f = buildFails(queue("redis://127.0.0.1:" + silent.getLocalPort()));

        assertThat(RedisQueueBuilder.DEFAULT_CONNECT_TIMEOUT).isEqualTo(Duration.ofSeconds(10));
        assertThat(f.took()).isGreaterThanOrEqualTo(Duration.ofMillis(9900)).isLessThan(Duration.ofSeconds(20));
        assertThat(f.error()).hasMessageContaining("no reply to the handshake within 10 s");
    }

    @Test
    void aServerThatNeverCompletesTheTcpHandshakeFailsWithinTheConnectTimeout() throws IOException {
        // Backlog 1 and nobody accepting: once the accept queue is full, the kernel drops further SYNs, so a connect
        // neither succeeds nor is refused, as behind a firewall that drops packets.
        ServerSocket full = socketServer(1, null);
        List<Socket> fillers = new ArrayList<>();
        boolean queueFull = false;
        for (int i = 0; i < 16 && !queueFull; i++) {
            Socket s = new Socket();
            open.add(s);
            try {
                s.connect(full.getLocalSocketAddress(), 300);
                fillers.add(s);
            } catch (SocketTimeoutException e) {
                queueFull = true;
            }
        }
        assumeTrue(queueFull, "this OS completes TCP connects past a full accept queue (" + fillers.size() + ")");
        int port = full.getLocalPort();

        Failure f = buildFails(queue("redis://127.0.0.1:" + port).connectTimeout(CONNECT_TIMEOUT));

        assertThat(f.took()).isLessThan(BOUND);
        assertThat(f.error()).hasMessageContaining("no TCP connection to 127.0.0.1:" + port + " within 2 s");
    }

    @Test
    void anHttpServerIsNotARedisServerNorATlsPort() throws IOException {
        ServerSocket http = socketServer(50, s -> {
            try {
                InputStream in = s.getInputStream();
                in.read(new byte[256]);
                s.getOutputStream().write(("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                s.close();
            } catch (IOException e) {
                // The client gave up first: nothing to answer.
            }
        });
        int port = http.getLocalPort();

        Failure f = buildFails(queue("redis://127.0.0.1:" + port).connectTimeout(CONNECT_TIMEOUT));

        assertThat(f.took()).isLessThan(BOUND);
        assertThat(f.error()).hasMessageContaining("not a Redis server at 127.0.0.1:" + port)
                .hasMessageContaining("as an HTTP reply does");

        Failure tls = buildFails(queue("rediss://127.0.0.1:" + port).connectTimeout(CONNECT_TIMEOUT));

        assertThat(tls.took()).isLessThan(BOUND);
        assertThat(tls.error()).hasMessageContaining("TLS handshake failed: the server answered in plain text "
                + "('HTTP/1.1 400 Bad Request'): is the port a TLS port?");
    }

    @Test
    void aClosedPortIsRefused() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }

        Failure f = buildFails(queue("redis://127.0.0.1:" + port));

        assertThat(f.error()).hasMessageContaining("connection refused: nothing listens on 127.0.0.1:" + port);
    }

    @Test
    void aWrongPasswordSaysWrongpass() {
        RedisServerProcess redis = server();
        redis.call("ACL", "SETUSER", "alice", "on", ">right", "~*", "&*", "+@all");

        Failure f = buildFails(queue("redis://alice:wrong@127.0.0.1:" + redis.port()));

        assertThat(f.error()).hasMessageContaining("wrong user or password").hasMessageContaining("WRONGPASS")
                .hasCauseInstanceOf(RedisConnectionException.class);
    }

    @Test
    void aWrongPasswordOnACallersClientSaysWrongpassToo() {
        RedisServerProcess redis = server();
        redis.call("ACL", "SETUSER", "alice", "on", ">right", "~*", "&*", "+@all");
        RedisClient client = RedisClient.create("redis://alice:wrong@127.0.0.1:" + redis.port());
        open.add(client::shutdown);

        Failure f = buildFails(RedisDelayedQueue.builder(client, "q", Codec.string()));

        assertThat(f.error()).hasMessageContaining("wrong user or password").hasMessageContaining("WRONGPASS");
    }

    @Test
    void noPasswordForAServerThatRequiresOneSaysNoauth() {
        RedisServerProcess redis = server();
        // Set last: the fixture's own connections carry no password.
        redis.call("CONFIG", "SET", "requirepass", "s3cret");

        Failure f = buildFails(queue("redis://127.0.0.1:" + redis.port()));

        assertThat(f.error()).hasMessageContaining("the server requires a password and none was given")
                .hasMessageContaining("NOAUTH");
    }

    @Test
    void aUserWithoutScriptPermissionsFailsAtBuildNamingTheCommand() {
        RedisServerProcess redis = server();
        redis.call("ACL", "SETUSER", "noeval", "on", ">pw", "~*", "&*", "+@all", "-evalsha");
        redis.call("ACL", "SETUSER", "noload", "on", ">pw", "~*", "&*", "+@all", "-script");
        if (redis.hasFunctions()) {
            redis.call("ACL", "SETUSER", "noeval", "-fcall");
            redis.call("ACL", "SETUSER", "noload", "-function");
        }

        // FCALL refused: the client falls back to scripts, and EVALSHA is refused too.
        Failure noEval = buildFails(queue("redis://noeval:pw@127.0.0.1:" + redis.port()));
        assertThat(noEval.error()).hasMessageContaining("the ACL user may not run 'evalsha'")
                .hasMessageContaining("ACL SETUSER <user> +evalsha")
                .hasMessageContaining("NOPERM this user has no permissions to run the 'evalsha' command");

        // Neither the library nor the scripts are on the server yet, and the user may load neither.
        if (redis.hasFunctions()) {
            redis.call("FUNCTION", "FLUSH");
        }
        redis.call("SCRIPT", "FLUSH");
        Failure noLoad = buildFails(queue("redis://noload:pw@127.0.0.1:" + redis.port()));
        // Redis 7 names the subcommand, 6.2 the command.
        assertThat(noLoad.error()).hasMessageMatching("(?s).*the ACL user may not run 'script(\\|load)?'.*")
                .hasMessageContaining("NOPERM");
    }

    @Test
    void aUserWhoMayNotUseFunctionsRunsTheOperationsAsScripts() throws Exception {
        RedisServerProcess redis = server();
        assumeTrue(redis.hasFunctions(), "on Redis 6.2 every user runs scripts");
        redis.call("ACL", "SETUSER", "nofcall", "on", ">pw", "~*", "&*", "+@all", "-fcall");
        RedisDelayedQueue<String> q = queue("redis://nofcall:pw@127.0.0.1:" + redis.port()).build();
        open.add(q);

        String id = q.offer("as a script", Duration.ZERO);
        Delivery<String> d = q.poll(Duration.ofSeconds(5));
        assertThat(d.id()).isEqualTo(id);
        assertThat(d.ack()).isTrue();
        assertThat(q.runsFunctions()).isFalse();
    }

    @Test
    void aPermissionRevokedWhileRunningFailsTheOperationNamingTheCommand() {
        RedisServerProcess redis = server();
        redis.call("ACL", "SETUSER", "app", "on", ">pw", "~*", "&*", "+@all");
        RedisDelayedQueue<String> q = queue("redis://app:pw@127.0.0.1:" + redis.port()).build();
        open.add(q);
        q.offer("before", Duration.ZERO);
        assertThat(q.runsFunctions()).isEqualTo(redis.hasFunctions());

        redis.call("ACL", "SETUSER", "app", "-evalsha");
        if (redis.hasFunctions()) {
            redis.call("ACL", "SETUSER", "app", "-fcall");
        }

        RedisQueueException e = catchThrowableOfType(() -> q.offer("after", Duration.ZERO),
                RedisQueueException.class);
        assertThat(e).isNotNull();
        assertThat(e).hasMessageContaining("offer failed")
                .hasMessageContaining("the ACL user may not run 'evalsha'")
                .hasMessageContaining("NOPERM");
    }

    @Test
    void anUntrustedCertificateSaysSoAndHowToTrustIt() {
        RedisServerProcess redis = tlsServer();

        Failure f = buildFails(queue(redis.tlsUri()).connectTimeout(CONNECT_TIMEOUT));

        assertThat(f.took()).isLessThan(BOUND);
        assertThat(f.error()).hasMessageContaining("the server's TLS certificate is not trusted")
                .hasMessageContaining("PKIX path building failed")
                .hasMessageContaining("truststore")
                .hasMessageContaining("verifyPeer")
                .hasCauseInstanceOf(RedisConnectionException.class);
    }

    @Test
    void tlsToAPlainTextPortSaysTheTlsHandshakeFailed() {
        RedisServerProcess redis = server();

        Failure f = buildFails(queue("rediss://127.0.0.1:" + redis.port()).connectTimeout(CONNECT_TIMEOUT));

        assertThat(f.took()).isLessThan(BOUND);
        assertThat(f.error()).hasMessageContaining("rediss://127.0.0.1:" + redis.port())
                .hasMessageContaining("TLS handshake failed")
                .hasMessageContaining("is the port a TLS port?");
    }

    @Test
    void plainTextToATlsPortSaysToUseRediss() {
        RedisServerProcess redis = tlsServer();

        Failure f = buildFails(queue("redis://127.0.0.1:" + redis.tlsPort()).connectTimeout(CONNECT_TIMEOUT));

        assertThat(f.took()).isLessThan(BOUND);
        assertThat(f.error()).hasMessageContaining("closed the connection during the handshake")
                .hasMessageContaining("if the port is a TLS port, use rediss://");
    }

    @Test
    void aTrustedOrUnverifiedTlsServerRunsTheQueue() throws InterruptedException {
        RedisServerProcess redis = tlsServer();

        try (RedisDelayedQueue<String> q = queue(redis.tlsUri() + "?verifyPeer=NONE").build()) {
            q.offer("unverified", "a", Duration.ZERO);
            Delivery<String> d = q.poll(Duration.ofSeconds(5));
            assertThat(d).isNotNull();
            assertThat(d.id()).isEqualTo("unverified");
            assertThat(d.ack()).isTrue();
        }

        RedisClient client = RedisClient.create(RedisURI.create(redis.tlsUri()));
        open.add(client::shutdown);
        client.setOptions(ClientOptions.builder()
                .sslOptions(SslOptions.builder().trustManager(cert.certificatePem().toFile()).build())
                .build());
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(client, "q", Codec.string()).build()) {
            q.offer("trusted", "b", Duration.ZERO);
            Delivery<String> d = q.poll(Duration.ofSeconds(5));
            assertThat(d).isNotNull();
            assertThat(d.id()).isEqualTo("trusted");
            assertThat(d.ack()).isTrue();
        }
    }

    @Test
    void connectTimeoutIsCheckedAndSetOnce() {
        RedisQueueBuilder<String> b = queue("redis://127.0.0.1:6379");
        assertThat(catchThrowableOfType(() -> b.connectTimeout(Duration.ZERO), IllegalArgumentException.class))
                .hasMessageContaining("connectTimeout must be in [PT0.001S, PT1H]");
        assertThat(catchThrowableOfType(() -> b.connectTimeout(Duration.ofHours(2)), IllegalArgumentException.class))
                .hasMessageContaining("connectTimeout");
        b.connectTimeout(Duration.ofSeconds(1));
        assertThat(catchThrowableOfType(() -> b.connectTimeout(Duration.ofSeconds(1)), IllegalStateException.class))
                .hasMessageContaining("connectTimeout");
        assertThat(catchThrowableOfType(() -> b.connectTimeout(null), NullPointerException.class))
                .hasMessageContaining("connectTimeout");
    }
}

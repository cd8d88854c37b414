package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The choice between {@code --redis} and {@code --postgres}: exactly one, checked before anything connects, and a
 * database that cannot be reached named without its password.
 */
class ServerOptionsTest {

    private static final String PG = "jdbc:postgresql://127.0.0.1:" + Cli.closedPort() + "/app";

    @Test
    void neitherServerIsBadUsage() {
        Cli.Result r = Cli.run("queue", "stats", "--queue", "orders");

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("no server").contains("--redis").contains("--postgres");
    }

    @Test
    void bothServersAreBadUsage() {
        for (String[] args : new String[][] {
            {"queue", "stats", "--queue", "orders", "--redis", "redis://127.0.0.1:1", "--postgres", PG},
            {"queue", "delete", "orders", "--yes", "--redis", "redis://127.0.0.1:1", "--postgres", PG},
            {"dashboard", "--redis", "redis://127.0.0.1:1", "--postgres", PG}}) {
            Cli.Result r = Cli.run(args);
            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).contains("give one server").contains("not both");
        }
    }

    @Test
    void postgresWinsOverTheRedisVariable() {
        Cli.Result r = Cli.run(Map.of(RedisOptions.ENV, "redis://127.0.0.1:1"), "queue", "stats", "--queue",
                "orders", "--postgres", PG);

        assertThat(r.exit()).as("it tried the database, not Redis: " + r.err()).isEqualTo(1);
        assertThat(r.err()).contains("cannot reach PostgreSQL at postgresql 127.0.0.1:");
    }

    @Test
    void aMalformedUrlOrSchemaIsBadUsage() {
        Cli.Result url = Cli.run("queue", "stats", "--queue", "orders", "--postgres",
                "postgres://ops:hunter2secret@127.0.0.1/app");
        assertThat(url.exit()).isEqualTo(2);
        assertThat(url.err()).contains("--postgres").contains("not a PostgreSQL JDBC URL")
                .contains("jdbc:postgresql://host:port/database").doesNotContain("hunter2secret");

        Cli.Result schema = Cli.run("queue", "stats", "--queue", "orders", "--postgres", PG, "--schema", "Bad-Name");
        assertThat(schema.exit()).isEqualTo(2);
        assertThat(schema.err()).contains("--schema must be a lowercase SQL identifier");
    }

    @Test
    void postgresOptionsWithoutPostgresAreBadUsage() {
        Cli.Result r = Cli.run("queue", "stats", "--queue", "orders", "--redis", "redis://127.0.0.1:1",
                "--postgres-user", "ops");

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--postgres-user needs --postgres");
    }

    @Test
    void redisOnlyOptionsAreRefusedForPostgres() {
        Cli.Result partitions = Cli.run("queue", "stats", "--queue", "orders", "--postgres", PG, "--partitions",
                "2");
        assertThat(partitions.exit()).isEqualTo(2);
        assertThat(partitions.err()).contains("--partitions applies to Redis only");

        Cli.Result cluster = Cli.run("dashboard", "--postgres", PG, "--cluster");
        assertThat(cluster.exit()).isEqualTo(2);
        assertThat(cluster.err()).contains("--cluster applies to Redis only");
    }

    @Test
    void anUnreachableDatabaseFailsWithItsCauseAndNoPassword() {
        Cli.Result inUrl = Cli.run("queue", "pause", "--queue", "orders", "--postgres",
                PG + "?user=ops&password=hunter2secret");
        assertThat(inUrl.exit()).isEqualTo(1);
        assertThat(inUrl.err()).contains("cannot reach PostgreSQL at postgresql 127.0.0.1:").contains("refused")
                .doesNotContain("hunter2secret");

        Cli.Result fromEnv = Cli.run(Map.of(PostgresOptions.PASSWORD_ENV, "hunter2secret"), "dashboard",
                "--postgres", PG, "--postgres-user", "ops");
        assertThat(fromEnv.exit()).isEqualTo(1);
        assertThat(fromEnv.err()).contains("127.0.0.1:").contains("refused").doesNotContain("hunter2secret");
    }
}

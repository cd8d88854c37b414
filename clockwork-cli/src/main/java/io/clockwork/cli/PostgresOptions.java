package io.clockwork.cli;

import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options that name a PostgreSQL database, shared by every command that takes {@code --redis} as the other
 * choice: {@code --postgres URL}, {@code --postgres-user}, the password from {@code --postgres-password-file} or the
 * {@value #PASSWORD_ENV} environment variable, and {@code --schema}. Not thread-safe: one per command line.
 *
 * <p>The password is never an option of its own: on the command line it would show in {@code ps} and the shell's
 * history. A {@code password} parameter in the URL works, with that exposure; errors show it as {@code ***}.
 */
public final class PostgresOptions {

    /** The environment variable read for the password when no {@code --postgres-password-file} is given. */
    public static final String PASSWORD_ENV = "CLOCKWORK_POSTGRES_PASSWORD";

    /** The key of the help section {@link ClockworkCli} adds to every command with these options. */
    static final String HELP_SECTION = "postgresServer";

    /** That section: the URL form and where the password comes from, each line at most 80 columns. */
    static final String HELP = String.join(System.lineSeparator(),
            "",
            "PostgreSQL database (instead of Redis):",
            "  --postgres jdbc:postgresql://host:port/database    port 5432 if left out",
            "  The role is --postgres-user (or user=... in the URL); its password comes from",
            "  a file (--postgres-password-file PATH, its first line) or the environment",
            "  variable " + PASSWORD_ENV + ", never from an option. The queues'",
            "  tables are in --schema (default " + PostgresTarget.DEFAULT_SCHEMA + ").",
            "");

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--postgres", paramLabel = "JDBC-URL",
            description = "The PostgreSQL database holding the queues, instead of --redis: "
                    + "jdbc:postgresql://host:port/database.")
    String url;

    @Option(names = "--postgres-user", paramLabel = "ROLE",
            description = "The role to connect as (default: the URL's user parameter, else the driver's default).")
    String user;

    @Option(names = "--postgres-password-file", paramLabel = "PATH",
            description = "Read the role's password from the first line of PATH (chmod 600). Default: the "
                    + "variable " + PASSWORD_ENV + ", if set.")
    Path passwordFile;

    @Option(names = "--schema", paramLabel = "NAME",
            description = "The schema of the queues' tables, as their clients build them (default: "
                    + PostgresTarget.DEFAULT_SCHEMA + ").")
    String schema;

    /** @return whether {@code --postgres} was given */
    boolean given() {
        return url != null;
    }

    /**
     * @return the database, or null if {@code --postgres} is not given
     * @throws ParameterException if the URL or schema is malformed, the password file unusable, or a PostgreSQL
     *                            option is given without {@code --postgres}
     */
    PostgresTarget target() {
        if (url == null) {
            String stray = user != null ? "--postgres-user" : passwordFile != null ? "--postgres-password-file"
                    : schema != null ? "--schema" : null;
            if (stray != null) {
                throw usage(stray + " needs --postgres JDBC-URL");
            }
            return null;
        }
        String password = passwordFile != null
                ? SecretFile.firstLine(passwordFile, "--postgres-password-file", "a password", this::usage)
                : root().env(PASSWORD_ENV);
        if (password != null && password.isBlank()) {
            password = null;
        }
        PostgresTarget t;
        try {
            t = PostgresTarget.parse(url, user, password, schema);
        } catch (IllegalArgumentException e) {
            throw usage("--postgres: " + e.getMessage());
        }
        root().secret(t::redact);
        return t;
    }

    private ClockworkCli root() {
        Object root = mixee.commandLine().getCommandSpec().root().userObject();
        return root instanceof ClockworkCli cli ? cli : ClockworkCli.systemEnvironment();
    }

    private ParameterException usage(String message) {
        return new ParameterException(mixee.commandLine(), message);
    }
}

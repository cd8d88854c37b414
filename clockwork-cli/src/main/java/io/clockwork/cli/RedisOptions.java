package io.clockwork.cli;

import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options that name a Redis server, shared by every command that uses one: {@code --redis URI},
 * {@code --redis-file PATH} and the {@value #ENV} environment variable. Not thread-safe: one per command line.
 *
 * <p>A URI on the command line shows its password to anyone who lists processes ({@code ps}) or reads the shell's
 * history; a file or the environment keeps it out of both. When several are given the most explicit one counts:
 * {@code --redis}, then {@code --redis-file}, then {@value #ENV}, so a URI typed for one command overrides a
 * default exported for the session. A malformed URI from any source is bad usage (exit 2), and its message shows
 * the URI with the password replaced by {@code ***}.
 */
public final class RedisOptions {

    /** The environment variable read when neither {@code --redis} nor {@code --redis-file} is given. */
    public static final String ENV = "CLOCKWORK_REDIS_URI";

    /** The key of the help section {@link ClockworkCli} adds to every command with these options. */
    static final String HELP_SECTION = "redisServer";

    /** That section: the sources, their precedence and the URI forms, each line at most 80 columns. */
    static final String HELP = String.join(System.lineSeparator(),
            "",
            "Redis server:",
            "  Give it with --redis URI or, to keep a password out of ps and shell history,",
            "  in a file (--redis-file PATH, its first line) or in the environment variable",
            "  " + ENV + ". --redis wins over --redis-file, which wins over the",
            "  variable.",
            "    redis://host:port                  port 6379 if left out",
            "    redis://:password@host:port        the default user's password",
            "    redis://user:password@host:port    an ACL user and its password",
            "    redis://host:port/2                database 2 (default 0)",
            "    rediss://host:port                 TLS",
            "    rediss://host:port?verifyPeer=CA   TLS, certificate check NONE, CA or FULL",
            "                                       (default FULL: CA and host name)",
            "  Percent-encode reserved characters in a password (@ as %40, / as %2F). Unix",
            "  sockets (redis-socket://) and Sentinel URIs are not supported.",
            "");

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--redis", paramLabel = "URI", converter = RedisTarget.Converter.class,
            description = "The Redis server (see \"Redis server\" below for the forms, and for ways to keep a "
                    + "password off the command line).")
    RedisTarget uri;

    @Option(names = "--redis-file", paramLabel = "PATH",
            description = "Read the Redis URI from the first line of PATH (trimmed), a file that only its owner "
                    + "can read (chmod 600 PATH): a URI can hold a password.")
    Path file;

    /**
     * The server named by the first source given: {@code --redis}, {@code --redis-file}, then {@value #ENV}.
     *
     * @return the server, or null if no source names one
     * @throws ParameterException if the file cannot be read or holds no valid URI, or the variable is malformed
     */
    public RedisTarget target() {
        RedisTarget t;
        if (uri != null) {
            t = uri;
        } else if (file != null) {
            t = fromFile(file);
        } else {
            String env = root().env(ENV);
            t = env == null || env.isBlank() ? null : parse(env, ENV);
        }
        if (t != null) {
            root().secret(t::redact);
        }
        return t;
    }

    /**
     * @return the server
     * @throws ParameterException if no source names one, or the one that does is unusable
     */
    public RedisTarget required() {
        RedisTarget t = target();
        if (t == null) {
            throw usage("no Redis server: give --redis URI or --redis-file PATH, or set " + ENV);
        }
        return t;
    }

    private RedisTarget fromFile(Path path) {
        return parse(SecretFile.firstLine(path, "--redis-file", "a Redis URI", this::usage), "--redis-file " + path);
    }

    private RedisTarget parse(String text, String source) {
        try {
            return RedisTarget.parse(text);
        } catch (IllegalArgumentException e) {
            throw usage(source + ": " + e.getMessage());
        }
    }

    private ClockworkCli root() {
        // Through the command line: when these options sit in another mixin, the mixee is that mixin's own spec.
        Object root = mixee.commandLine().getCommandSpec().root().userObject();
        return root instanceof ClockworkCli cli ? cli : ClockworkCli.systemEnvironment();
    }

    private ParameterException usage(String message) {
        return new ParameterException(mixee.commandLine(), message);
    }
}

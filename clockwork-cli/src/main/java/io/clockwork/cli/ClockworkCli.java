package io.clockwork.cli;

import io.clockwork.cli.bench.BenchCommand;
import io.clockwork.cli.demo.DemoCommand;
import io.clockwork.cli.queue.QueueCommand;
import io.clockwork.cli.schedule.ScheduleCommand;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code clockwork} command: the end-to-end demo, administration of queues on Redis or PostgreSQL, the dashboard
 * and benchmark reports. Not thread-safe: one instance parses and runs one command line.
 *
 * <p>Exit codes: 0 success, 1 failure (including a demo that lost messages), 2 bad usage. Every error is one line on
 * standard error, so scripts can show it as is; {@code --help} on any command explains its options. An unknown
 * command or argument is bad usage even beside {@code --help}, so a typo in a script never passes as success. So is
 * a value the library refuses (an id too long, a name empty): {@link Arguments} checks the values it knows while
 * parsing, naming the option, and an {@link IllegalArgumentException} that a command meets later is bad usage too.
 */
@Command(name = "clockwork",
        mixinStandardHelpOptions = true,
        versionProvider = ClockworkCli.Version.class,
        description = "Timers, session expiry, expiring maps and delayed queues on one timing-wheel engine.",
        subcommands = {DemoCommand.class, QueueCommand.class, ScheduleCommand.class, DashboardCommand.class,
            BenchCommand.class},
        footer = {"", "Exit codes: 0 success, 1 failure, 2 bad usage."})
public final class ClockworkCli implements Runnable {

    @Spec
    CommandSpec spec;

    /** A URI's scheme and credentials, up to the last '@' before a space, a quote or the path. */
    private static final Pattern URI_WITH_CREDENTIALS = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s/?#']*@");

    /** A password parameter of a URL (a JDBC URL's {@code ?password=}), up to the next parameter or space. */
    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)([?&;]password=)[^&;\\s']*");

    private final Map<String, String> env;
    private final List<UnaryOperator<String>> secrets = new ArrayList<>();

    private ClockworkCli(Map<String, String> env) {
        this.env = env;
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: demo, queue, dashboard or bench");
    }

    /**
     * Runs the command line and exits the JVM with its exit code.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * Builds the configured command line; tests call {@code execute} on it with their own writers.
     *
     * @return a new command line for {@code clockwork}
     */
    public static CommandLine commandLine() {
        return commandLine(System.getenv());
    }

    /**
     * Builds the configured command line with the given environment instead of the process's, so that tests can
     * set variables such as {@value RedisOptions#ENV}.
     *
     * @param env the environment variables the commands see
     * @return a new command line for {@code clockwork}
     */
    public static CommandLine commandLine(Map<String, String> env) {
        CommandLine cl = new CommandLine(new ClockworkCli(Map.copyOf(Objects.requireNonNull(env, "env"))));
        cl.setExecutionStrategy(ClockworkCli::execute);
        cl.setParameterExceptionHandler(ClockworkCli::usageError);
        cl.setExecutionExceptionHandler(ClockworkCli::failure);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.registerConverter(String.class, new Arguments.Text());
        cl.registerConverter(Path.class, new Arguments.FilePath());
        addServerHelp(cl);
        return cl;
    }

    /**
     * Adds the "Redis server" help section, before the footer, to every command that takes a Redis server, and the
     * "PostgreSQL database" section after it to every command that takes one.
     */
    private static void addServerHelp(CommandLine cl) {
        addHelp(cl, "--redis-file", RedisOptions.HELP_SECTION, RedisOptions.HELP);
        addHelp(cl, "--postgres", PostgresOptions.HELP_SECTION, PostgresOptions.HELP);
        cl.getSubcommands().values().forEach(ClockworkCli::addServerHelp);
    }

    private static void addHelp(CommandLine cl, String option, String key, String text) {
        if (cl.getCommandSpec().findOption(option) != null) {
            cl.getHelpSectionMap().put(key, help -> text);
            List<String> keys = new ArrayList<>(cl.getHelpSectionKeys());
            keys.add(keys.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER_HEADING), key);
            cl.setHelpSectionKeys(keys);
        }
    }

    /** @return a root command on the process's environment, for commands used without {@link #commandLine()} */
    static ClockworkCli systemEnvironment() {
        return new ClockworkCli(System.getenv());
    }

    /**
     * @param name an environment variable
     * @return its value, or null
     */
    String env(String name) {
        return env.get(name);
    }

    /** @param redactor hides the password of a server that every error line of this command line must hide */
    void secret(UnaryOperator<String> redactor) {
        secrets.add(redactor);
    }

    /**
     * Hides passwords in a line about to be printed: those of the servers the command line named, and the
     * credentials of any URI in it (picocli quotes arguments it could not use, a URI among them).
     */
    private static String redact(CommandLine cl, String line) {
        String s = line;
        if (cl.getCommandSpec().root().userObject() instanceof ClockworkCli root) {
            for (UnaryOperator<String> r : root.secrets) {
                s = r.apply(s);
            }
        }
        s = URL_PASSWORD.matcher(s).replaceAll("$1***");
        return URI_WITH_CREDENTIALS.matcher(s).replaceAll(m -> Matcher.quoteReplacement(RedisTarget.redactUri(
                m.group())));
    }

    /**
     * Runs the last command of the line, as picocli does, after refusing arguments that picocli ignores when
     * {@code --help} or {@code --version} is given: {@code clockwork queue no-such --help} is bad usage, not the queue
     * command's help.
     */
    private static int execute(CommandLine.ParseResult parseResult) {
        for (CommandLine.ParseResult pr = parseResult; pr != null; pr = pr.subcommand()) {
            if (!pr.unmatched().isEmpty()) {
                throw new UnmatchedArgumentException(pr.commandSpec().commandLine(), pr.unmatched());
            }
        }
        return new CommandLine.RunLast().execute(parseResult);
    }

    /** Bad usage: one line naming the command and the problem, then exit code 2 (not picocli's full usage text). */
    private static int usageError(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        String message = redact(cl, oneLine(ex.getMessage()));
        if (ex instanceof UnmatchedArgumentException unmatched) {
            String unknown = unknownSubcommand(cl, unmatched);
            if (unknown != null) {
                message = unknown;
            }
            if (!unmatched.getSuggestions().isEmpty()) {
                message += "; did you mean " + String.join(" or ", unmatched.getSuggestions()) + "?";
            }
        }
        PrintWriter err = cl.getErr();
        err.println(cl.getCommandSpec().qualifiedName() + ": " + message + " (see '"
                + cl.getCommandSpec().qualifiedName() + " --help')");
        err.flush();
        return CommandLine.ExitCode.USAGE;
    }

    /**
     * @return e.g. {@code unknown subcommand 'no-such' (valid: stats, peek, ...)} when the first unmatched argument
     *         stands where a command that has subcommands expects one, else null
     */
    private static String unknownSubcommand(CommandLine cl, UnmatchedArgumentException ex) {
        List<String> unmatched = ex.getUnmatched();
        if (cl.getSubcommands().isEmpty() || unmatched.isEmpty() || unmatched.get(0).startsWith("-")) {
            return null;
        }
        return "unknown " + (cl.getParent() == null ? "command" : "subcommand") + " '" + unmatched.get(0)
                + "' (valid: " + String.join(", ", cl.getSubcommands().keySet()) + ")";
    }

    /**
     * A failure: one line, exit code 1; a stack trace only for unexpected errors and only with -Dclockwork.debug. An
     * argument the library refuses ({@link IllegalArgumentException}) is bad usage instead: exit code 2.
     */
    private static int failure(Exception ex, CommandLine cl, CommandLine.ParseResult parseResult) {
        if (ex instanceof IllegalArgumentException) {
            return usageError(new ParameterException(cl, "bad argument: " + ex.getMessage(), ex, null, null), null);
        }
        PrintWriter err = cl.getErr();
        String what = ex instanceof CliException ? ex.getMessage()
                : ex.getClass().getSimpleName() + ": " + ex.getMessage();
        err.println(cl.getCommandSpec().qualifiedName() + ": error: " + redact(cl, oneLine(what)));
        if (Boolean.getBoolean("clockwork.debug")) {
            ex.printStackTrace(err);
        }
        err.flush();
        return CommandLine.ExitCode.SOFTWARE;
    }

    /**
     * @param s a message, possibly with line breaks (Lettuce's often have them)
     * @return it on one line, for a one-line error on stderr
     */
    public static String oneLine(String s) {
        return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /** The version from the jar's manifest, or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = ClockworkCli.class.getPackage().getImplementationVersion();
            return new String[] {"clockwork " + (v != null ? v : "(development build)") + " on Java "
                    + Runtime.version()};
        }
    }
}

package io.clockwork.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

/** Runs {@code clockwork} in-process with captured output, as the tests' single entry point. */
public final class Cli {

    /** What a run printed and returned. */
    public record Result(int exit, String out, String err) {
        /** @return the error output's non-empty lines */
        public long errLines() {
            return err.lines().filter(l -> !l.isBlank()).count();
        }
    }

    private Cli() {
    }

    /**
     * Runs a command line in an empty environment, so that a variable such as {@code CLOCKWORK_REDIS_URI} set where
     * the tests run cannot change what they test.
     *
     * @param args the command line
     * @return exit code and output
     */
    public static Result run(String... args) {
        return run(Map.of(), args);
    }

    /**
     * @param env  the environment variables the command sees
     * @param args the command line
     * @return exit code and output
     */
    public static Result run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = ClockworkCli.commandLine(env)
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .execute(args);
        return new Result(exit, out.toString(), err.toString());
    }

    /** @return a loopback port nothing listens on (bound, then released) */
    public static int closedPort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

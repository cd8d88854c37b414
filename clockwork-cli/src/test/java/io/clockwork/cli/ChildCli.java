package io.clockwork.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code clockwork} in a child JVM; not thread-safe: one per test. The child runs as {@code java -jar
 * clockwork.jar} does: its own {@code main}, its own standard streams and the SLF4J provider its class path picks.
 *
 * <p>Tests run before {@code package} writes clockwork.jar, so the child runs the CLI's main class on this test
 * run's class path, which holds the same runtime dependencies as the jar.
 */
final class ChildCli implements AutoCloseable {

    private final Process process;
    private final Path out;
    private final Path err;

    private ChildCli(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /**
     * Starts {@code clockwork args} with standard output and error in files of {@code dir}.
     *
     * @param dir  where the output goes
     * @param args the command line
     * @return the running command
     */
    static ChildCli start(Path dir, String... args) throws IOException {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx256m", "-cp", classPath, ClockworkCli.class.getName()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out-", ".txt");
        Path err = Files.createTempFile(dir, "err-", ".txt");
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove(RedisOptions.ENV);
        return new ChildCli(pb.start(), out, err);
    }

    /**
     * Runs {@code clockwork args} to its end.
     *
     * @param dir  where the output goes
     * @param args the command line
     * @return exit code and output
     */
    static Cli.Result run(Path dir, String... args) throws IOException, InterruptedException {
        try (ChildCli child = start(dir, args)) {
            if (!child.process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("clockwork " + String.join(" ", args) + " did not end within 60 s");
            }
            return new Cli.Result(child.process.exitValue(), child.out(), child.err());
        }
    }

    /** @return what the command printed on standard output so far */
    String out() {
        return read(out);
    }

    /** @return what the command printed on standard error so far */
    String err() {
        return read(err);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Ends the command (SIGTERM, as Ctrl-C would) and waits for it. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}

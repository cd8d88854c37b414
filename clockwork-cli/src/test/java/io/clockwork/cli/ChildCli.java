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
 * Runs the packaged {@code clockwork.jar} in a child JVM, as {@code java -jar clockwork.jar}; not thread-safe: one per
 * test. Only the {@code *JarIT} tests use it: they run after {@code package} writes the jar, which the build names in
 * the system property {@value #JAR_PROPERTY}.
 */
final class ChildCli implements AutoCloseable {

    /** The system property that names the packaged jar. */
    static final String JAR_PROPERTY = "clockwork.jar";

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
        String jar = System.getProperty(JAR_PROPERTY);
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("no packaged jar in -D" + JAR_PROPERTY + " (was " + jar
                    + "): *JarIT tests run in the integration-test phase, after package");
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx256m", "-jar", jar));
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

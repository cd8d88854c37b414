package io.clockwork.dashboard;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures standard error, where SLF4J's simple logger writes the audit lines in the tests. Not thread-safe: one
 * test at a time.
 */
final class AuditCapture implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    AuditCapture() {
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    }

    String lines() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        System.setErr(original);
        System.err.print(lines());
    }
}

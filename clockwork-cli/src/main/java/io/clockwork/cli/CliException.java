package io.clockwork.cli;

/**
 * An expected failure of a command (unreachable server, unknown queue, missing benchmarks jar), reported as one line
 * and exit code 1 without a stack trace. Immutable.
 */
public final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param message what failed and, where it helps, what to do about it */
    public CliException(String message) {
        super(message);
    }

    /**
     * @param message what failed
     * @param cause   the underlying error
     */
    public CliException(String message, Throwable cause) {
        super(message, cause);
    }
}

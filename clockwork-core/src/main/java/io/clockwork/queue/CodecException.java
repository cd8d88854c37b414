package io.clockwork.queue;

/** Thrown when a {@link Codec} cannot encode or decode a value; the message names the codec and the reason. */
public class CodecException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed and why
     * @param cause   the underlying error, or null
     */
    public CodecException(String message, Throwable cause) {
        super(message, cause);
    }
}

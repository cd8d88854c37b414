package io.clockwork.zookeeper;

import java.util.Objects;

/**
 * The session errors of {@link SessionTracker}, shaped as ZooKeeper's {@code org.apache.zookeeper.KeeperException}:
 * the same nested exception names, {@link #code()} values and message text, so that code catching
 * {@code KeeperException.SessionExpiredException} compiles unchanged after its import moves to this package.
 * Immutable, so thread-safe. Only the codes a session tracker raises are declared.
 */
public abstract class KeeperException extends Exception {

    private static final long serialVersionUID = 1L;

    private final Code code;

    /**
     * Creates an exception with the given code.
     *
     * @param code the error code
     */
    protected KeeperException(Code code) {
        this.code = Objects.requireNonNull(code, "code");
    }

    /**
     * Returns the error code.
     *
     * @return the error code of this exception
     */
    public Code code() {
        return code;
    }

    /** @return {@code "KeeperErrorCode = "} and the code's text, as ZooKeeper words it */
    @Override
    public String getMessage() {
        return "KeeperErrorCode = " + code.text;
    }

    /** The error codes, with ZooKeeper's integer values. Immutable. */
    public enum Code {
        /** The tracker does not know the session (internal server use in ZooKeeper). */
        UNKNOWNSESSION(-12, "Unknown error UNKNOWNSESSION"),
        /** The session has expired or is closing. */
        SESSIONEXPIRED(-112, "Session expired"),
        /** The session is owned by another connection or server. */
        SESSIONMOVED(-118, "Session moved");

        private final int value;
        private final String text;

        Code(int value, String text) {
            this.value = value;
            this.text = text;
        }

        /**
         * Returns ZooKeeper's integer value of this code.
         *
         * @return the integer value
         */
        public int intValue() {
            return value;
        }

        /**
         * Returns the code with the given integer value.
         *
         * @param code ZooKeeper's integer value
         * @return the code
         * @throws IllegalArgumentException if no code declared here has that value
         */
        public static Code get(int code) {
            for (Code c : values()) {
                if (c.value == code) {
                    return c;
                }
            }
            throw new IllegalArgumentException("no KeeperException.Code with value " + code);
        }
    }

    /** The session has expired or is closing ({@link Code#SESSIONEXPIRED}). Immutable. */
    public static class SessionExpiredException extends KeeperException {

        private static final long serialVersionUID = 1L;

        /** Creates the exception. */
        public SessionExpiredException() {
            super(Code.SESSIONEXPIRED);
        }
    }

    /** The session belongs to another owner ({@link Code#SESSIONMOVED}). Immutable. */
    public static class SessionMovedException extends KeeperException {

        private static final long serialVersionUID = 1L;

        /** Creates the exception. */
        public SessionMovedException() {
            super(Code.SESSIONMOVED);
        }
    }

    /** The tracker does not know the session ({@link Code#UNKNOWNSESSION}). Immutable. */
    public static class UnknownSessionException extends KeeperException {

        private static final long serialVersionUID = 1L;

        /** Creates the exception. */
        public UnknownSessionException() {
            super(Code.UNKNOWNSESSION);
        }
    }
}

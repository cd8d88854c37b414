package io.clockwork.cli;

import io.clockwork.queue.Message;
import io.clockwork.queue.QueueOptions;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The checks of the command line's text arguments, as picocli converters; stateless and thread-safe. A value they
 * refuse is bad usage (exit 2) in one line that names its option, before the command connects anywhere.
 *
 * <p>The JVM decodes each argument from the bytes the shell passed, in the platform's charset
 * ({@code sun.jnu.encoding}), and puts U+FFFD in place of bytes it cannot decode; a queue name or an id with U+FFFD
 * would name another queue or message than the one typed, so no argument may hold one. Queue names and message ids
 * are then checked by the library's own rules ({@link QueueOptions.Builder#name}, {@link Message#id}).
 */
public final class Arguments {

    private Arguments() {
    }

    /**
     * @param value an argument
     * @return it, if every character of it was decoded and it is well-formed Unicode
     * @throws TypeConversionException if not
     */
    static String text(String value) {
        if (value.indexOf('\uFFFD') >= 0) {
            throw new TypeConversionException("'" + value + "' is not valid text: it holds bytes that the charset "
                    + "of arguments (" + System.getProperty("sun.jnu.encoding", "unknown") + ") cannot decode; "
                    + "give it in UTF-8, in a UTF-8 locale (e.g. LANG=C.UTF-8)");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new TypeConversionException("it holds an unpaired surrogate at index " + i
                        + ", which is not valid Unicode");
            }
        }
        return value;
    }

    /** Any text argument. */
    public static final class Text implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return text(value);
        }
    }

    /** A path argument: its text is checked as any other. */
    public static final class FilePath implements ITypeConverter<Path> {
        @Override
        public Path convert(String value) {
            try {
                return Path.of(text(value));
            } catch (InvalidPathException e) {
                throw new TypeConversionException("'" + value + "' is not a path: " + e.getReason());
            }
        }
    }

    /** A Clockwork queue's name: not blank, at most {@value QueueOptions#MAX_NAME_LENGTH} characters. */
    public static final class QueueName implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            try {
                QueueOptions.builder().name(text(value));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
            return value;
        }
    }

    /** A message id: not empty, at most {@value io.clockwork.queue.DelayedQueue#MAX_ID_BYTES} UTF-8 bytes. */
    public static final class MessageId implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            try {
                Message.of(value).id(text(value));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
            return value;
        }
    }

    /** A name that must not be empty, such as a schedule's or a Redisson queue's. */
    public static final class NonEmpty implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (text(value).isEmpty()) {
                throw new TypeConversionException("must not be empty");
            }
            return value;
        }
    }
}

package io.clockwork.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations as people type them: {@code 250ms}, {@code 3s}, {@code 2m}, {@code 1h}, or ISO-8601
 * ({@code PT3S}). Thread-safe (stateless).
 */
public final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /**
     * @param value the text
     * @return the duration
     * @throws TypeConversionException if it is neither form
     */
    public static Duration parse(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(v);
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                };
            }
            return Duration.parse(value.strip());
        } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
            throw new TypeConversionException("'" + value + "' is not a duration (e.g. 500ms, 3s, 2m, PT1H)");
        }
    }

    /**
     * @param d a duration
     * @return it in the shortest readable form, e.g. {@code 1.25 s}, {@code 340 ms}, {@code 87 us}
     */
    public static String format(Duration d) {
        long nanos = d.toNanos();
        if (nanos >= 10_000_000_000L) {
            return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
        } else if (nanos >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
        } else if (nanos >= 1_000_000L) {
            return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
        }
        return String.format(Locale.ROOT, "%d us", nanos / 1000);
    }
}

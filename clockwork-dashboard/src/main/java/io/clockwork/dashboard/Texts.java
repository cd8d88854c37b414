package io.clockwork.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** How the pages write numbers, durations and instants. Stateless. */
final class Texts {

    private static final DateTimeFormatter INSTANT =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private Texts() {
    }

    /** @return {@code s}, or the empty string for null (an absent request parameter) */
    static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** @return e.g. {@code 350 ms}, {@code 12.5 s}, {@code 3 m 20 s}, {@code 2 h 5 m}, {@code 3 d 4 h} */
    static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms < 1_000) {
            return ms + " ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return s / 60 + " m " + s % 60 + " s";
        }
        if (s < 86_400) {
            return s / 3600 + " h " + s % 3600 / 60 + " m";
        }
        return s / 86_400 + " d " + s % 86_400 / 3600 + " h";
    }

    static String instant(Instant t) {
        return INSTANT.format(t);
    }

    /**
     * Reads a delay typed by an operator.
     *
     * @param text e.g. {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}, {@code 250ms} or ISO-8601 {@code PT30S}
     * @return the delay
     * @throws IllegalArgumentException naming the forms accepted
     */
    static Duration delay(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt") || t.startsWith("p")) {
                return check(Duration.parse(t.toUpperCase(Locale.ROOT)), text);
            }
            int i = 0;
            while (i < t.length() && Character.isDigit(t.charAt(i))) {
                i++;
            }
            if (i > 0 && i <= 12) {
                long n = Long.parseLong(t.substring(0, i));
                Duration d = switch (t.substring(i).trim()) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s", "" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    case "d" -> Duration.ofDays(n);
                    default -> null;
                };
                if (d != null) {
                    return check(d, text);
                }
            }
        } catch (RuntimeException e) {
            // the message below
        }
        throw new IllegalArgumentException("delay must be a whole number with ms, s, m, h or d (e.g. 30s, 5m), or "
                + "ISO-8601 (PT30S), was '" + Audit.quote(text == null ? "" : text) + "'");
    }

    private static Duration check(Duration d, String text) {
        if (d.isNegative() || d.compareTo(Duration.ofDays(365 * 100)) > 0) {
            throw new IllegalArgumentException("delay must be 0 to 100 years, was '" + text + "'");
        }
        return d;
    }
}

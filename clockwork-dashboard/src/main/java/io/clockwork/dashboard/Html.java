package io.clockwork.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Builds an HTML document with every dynamic text escaped. Not thread-safe: one per response.
 *
 * <p>Pages carry no inline script or style (the Content-Security-Policy forbids them): behaviour lives in
 * {@code dashboard.js} and looks in {@code dashboard.css}, both served from the jar.
 */
final class Html {

    private final StringBuilder out = new StringBuilder(8192);

    /** Appends markup written in this code base, never user data. */
    Html raw(String markup) {
        out.append(markup);
        return this;
    }

    /** Appends text, escaped. */
    Html text(Object text) {
        out.append(esc(String.valueOf(text)));
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }

    /**
     * @param s any text
     * @return it escaped for an HTML text node or a double-quoted attribute
     */
    static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /**
     * @param s a query parameter's value
     * @return it percent-encoded
     */
    static String url(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}

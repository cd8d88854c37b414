package io.clockwork.cli.demo;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Shows the demo's progress: a bar redrawn in place on a terminal, a plain line per second otherwise (logs, CI,
 * pipes), or nothing. Not thread-safe: owned by the demo's main thread; events from other threads go through
 * {@link #event(String)}, which is synchronized.
 */
final class Progress {

    /** How progress is shown. */
    enum Style {
        /** a bar when standard output is a terminal, lines otherwise */
        AUTO,
        /** a bar redrawn in place */
        BAR,
        /** one line per second */
        LINES,
        /** nothing until the report */
        NONE
    }

    private static final int BAR_WIDTH = 30;
    private static final long LINE_EVERY_NANOS = 1_000_000_000L;

    private final PrintWriter out;
    private final Style style;
    private final long start = System.nanoTime();
    private long lastLine = start - LINE_EVERY_NANOS;
    private boolean barShown;

    /**
     * @param out   where to draw
     * @param style the requested style; {@link Style#AUTO} picks a bar only if {@code System.console()} exists
     */
    Progress(PrintWriter out, Style style) {
        this.out = out;
        this.style = style == Style.AUTO ? (System.console() != null ? Style.BAR : Style.LINES) : style;
    }

    /** @return seconds since the demo started */
    double elapsedSeconds() {
        return (System.nanoTime() - start) / 1e9;
    }

    /**
     * Shows the current state.
     *
     * @param done   units of work done
     * @param total  units of work in all
     * @param detail counts to show beside the bar
     */
    synchronized void update(long done, long total, String detail) {
        switch (style) {
            case BAR -> {
                double share = total == 0 ? 0 : Math.min(1.0, (double) done / total);
                int filled = (int) Math.round(share * BAR_WIDTH);
                out.print(String.format(Locale.ROOT, "\r[%s%s] %3.0f%% %s  %5.1fs\u001b[K", "#".repeat(filled),
                        ".".repeat(BAR_WIDTH - filled), share * 100, detail, elapsedSeconds()));
                out.flush();
                barShown = true;
            }
            case LINES -> {
                long now = System.nanoTime();
                if (now - lastLine >= LINE_EVERY_NANOS) {
                    lastLine = now;
                    out.println(String.format(Locale.ROOT, "[%5.1fs] %s", elapsedSeconds(), detail));
                    out.flush();
                }
            }
            default -> {
            }
        }
    }

    /** @param line a notable event (a crash, an expiry), shown on its own line */
    synchronized void event(String line) {
        if (style == Style.NONE) {
            return;
        }
        if (barShown) {
            out.print("\r\u001b[K");
        }
        out.println(String.format(Locale.ROOT, "[%5.1fs] %s", elapsedSeconds(), line));
        out.flush();
    }

    /** Ends the bar's line so the report starts on a fresh one. */
    synchronized void finish() {
        if (barShown) {
            out.println();
            out.flush();
            barShown = false;
        }
    }
}

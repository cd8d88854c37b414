package io.clockwork.dashboard;

import java.util.List;
import java.util.Locale;

/**
 * Draws a queue's backlog (delayed, ready and in-flight messages) over its samples as a small inline SVG line, for
 * the overview's table: one line per queue instead of charts, drawn on the server, so it needs no script. Immutable
 * and thread-safe.
 *
 * <p>The line spans the samples it is given, oldest on the left, and its height their smallest to largest backlog,
 * so that a change shows however large the backlog; a backlog that does not change is a flat line across the
 * middle, and one sample is drawn as such a line.
 */
final class Sparkline {

    static final int WIDTH = 120;
    static final int HEIGHT = 24;
    private static final double PAD = 1.5;

    private Sparkline() {
    }

    /**
     * @param h       the page
     * @param samples a queue's samples, oldest first
     */
    static void draw(Html h, List<Sample> samples) {
        long max = 0;
        long min = Long.MAX_VALUE;
        for (Sample s : samples) {
            max = Math.max(max, backlog(s));
            min = Math.min(min, backlog(s));
        }
        Sample last = samples.isEmpty() ? null : samples.get(samples.size() - 1);
        String label = last == null ? "no sample yet"
                : "backlog over the last " + samples.size() + (samples.size() == 1 ? " sample" : " samples") + ": now "
                + Texts.count(backlog(last)) + ", from " + Texts.count(min) + " to " + Texts.count(max);
        h.raw("<svg class=\"spark\" viewBox=\"0 0 " + WIDTH + " " + HEIGHT + "\" width=\"" + WIDTH + "\" height=\""
                + HEIGHT + "\" role=\"img\" data-points=\"" + samples.size() + "\" aria-label=\"").text(label)
                .raw("\"><title>").text(label).raw("</title>");
        if (!samples.isEmpty()) {
            StringBuilder points = new StringBuilder(samples.size() * 12);
            int n = samples.size();
            for (int i = 0; i < Math.max(n, 2); i++) {
                Sample s = samples.get(Math.min(i, n - 1));
                double x = PAD + (WIDTH - 2 * PAD) * i / Math.max(n - 1, 1);
                double y = max == min ? HEIGHT / 2.0
                        : HEIGHT - PAD - (HEIGHT - 2 * PAD) * (backlog(s) - min) / (double) (max - min);
                points.append(String.format(Locale.ROOT, "%s%.1f,%.1f", i == 0 ? "" : " ", x, y));
            }
            h.raw("<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"").raw(points.toString())
                    .raw("\"/>");
        }
        h.raw("</svg>");
    }

    private static long backlog(Sample s) {
        return s.delayed() + s.ready() + s.inFlight();
    }
}

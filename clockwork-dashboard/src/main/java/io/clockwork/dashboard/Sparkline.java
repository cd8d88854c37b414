package io.clockwork.dashboard;

import java.util.List;
import java.util.Locale;

/**
 * Draws a queue's backlog (delayed, ready and in-flight messages) over its samples as a small inline SVG line, for
 * the overview's table: one line per queue instead of charts, drawn on the server, so it needs no script. Immutable
 * and thread-safe.
 *
 * <p>The line spans the samples it is given, oldest on the left; its height is scaled to their largest backlog (a
 * flat line at the bottom when all are 0). One sample is drawn as a flat line at its level.
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
        for (Sample s : samples) {
            max = Math.max(max, backlog(s));
        }
        Sample last = samples.isEmpty() ? null : samples.get(samples.size() - 1);
        String label = last == null ? "no sample yet"
                : "backlog over the last " + samples.size() + (samples.size() == 1 ? " sample" : " samples") + ": now "
                + Texts.count(backlog(last)) + ", at most " + Texts.count(max);
        h.raw("<svg class=\"spark\" viewBox=\"0 0 " + WIDTH + " " + HEIGHT + "\" width=\"" + WIDTH + "\" height=\""
                + HEIGHT + "\" role=\"img\" data-points=\"" + samples.size() + "\" aria-label=\"").text(label)
                .raw("\"><title>").text(label).raw("</title>");
        if (!samples.isEmpty()) {
            StringBuilder points = new StringBuilder(samples.size() * 12);
            int n = samples.size();
            for (int i = 0; i < Math.max(n, 2); i++) {
                Sample s = samples.get(Math.min(i, n - 1));
                double x = PAD + (WIDTH - 2 * PAD) * i / Math.max(n - 1, 1);
                double y = HEIGHT - PAD - (max == 0 ? 0 : (HEIGHT - 2 * PAD) * backlog(s) / (double) max);
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

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
        long[] values = values(samples);
        long max = 0;
        long min = Long.MAX_VALUE;
        for (long v : values) {
            max = Math.max(max, v);
            min = Math.min(min, v);
        }
        String label = samples.isEmpty() ? "no sample yet"
                : "backlog over the last " + samples.size() + (samples.size() == 1 ? " sample" : " samples") + ": now "
                + Texts.count(backlog(samples.get(samples.size() - 1))) + ", from " + Texts.count(min) + " to "
                + Texts.count(max);
        h.raw("<svg class=\"spark\" viewBox=\"0 0 " + WIDTH + " " + HEIGHT + "\" width=\"" + WIDTH + "\" height=\""
                + HEIGHT + "\" role=\"img\" data-points=\"" + samples.size() + "\" aria-label=\"").text(label)
                .raw("\"><title>").text(label).raw("</title>");
        if (values.length > 0) {
            int n = values.length;
            StringBuilder points = new StringBuilder(n * 12);
            for (int i = 0; i < Math.max(n, 2); i++) {
                long v = values[Math.min(i, n - 1)];
                double x = PAD + (WIDTH - 2 * PAD) * i / Math.max(n - 1, 1);
                double y = max == min ? HEIGHT / 2.0
                        : HEIGHT - PAD - (HEIGHT - 2 * PAD) * (v - min) / (double) (max - min);
                points.append(String.format(Locale.ROOT, "%s%.1f,%.1f", i == 0 ? "" : " ", x, y));
            }
            h.raw("<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"").raw(points.toString())
                    .raw("\"/>");
        }
        h.raw("</svg>");
    }

    /**
     * @return the backlog of each sample, or, when there are more samples than the line has pixels, the largest
     *         backlog of each run of samples one pixel holds (so a page with many queues stays small, and a spike
     *         still shows)
     */
    private static long[] values(List<Sample> samples) {
        int n = samples.size();
        int points = Math.min(n, WIDTH);
        long[] v = new long[points];
        for (int p = 0; p < points; p++) {
            int from = (int) ((long) p * n / points);
            int to = (int) ((long) (p + 1) * n / points);
            long max = 0;
            for (int i = from; i < to; i++) {
                max = Math.max(max, backlog(samples.get(i)));
            }
            v[p] = max;
        }
        return v;
    }

    private static long backlog(Sample s) {
        return s.delayed() + s.ready() + s.inFlight();
    }
}

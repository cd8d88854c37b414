package io.clockwork.cli.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a suite's ratios as a grouped bar chart (one group per benchmark, one bar per rival, a line at 1×) and
 * saves it as PNG with XChart. Thread-safe (stateless); runs headless.
 */
final class BenchChart {

    private BenchChart() {
    }

    /**
     * @param suite      the suite's name
     * @param comparison the results; must have rivals
     * @param file       the PNG to write
     * @throws IOException if it cannot be written
     */
    static void write(String suite, Comparison comparison, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        CategoryChart chart = new CategoryChartBuilder().width(1100).height(600)
                .title("Clockwork vs rivals: " + suite + " suite (how many times better; above 1 = Clockwork wins)")
                .yAxisTitle("ours / theirs (throughput)  or  theirs / ours (time per op)")
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setAxisTickLabelsFont(chart.getStyler().getAxisTickLabelsFont().deriveFont(11f));
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotGridVerticalLinesVisible(false);
        chart.getStyler().setOverlapped(false);
        chart.getStyler().setYAxisDecimalPattern("0.0'×'");

        List<String> labels = new ArrayList<>();
        for (Comparison.Row row : comparison.rows()) {
            // "ScheduleCancelBenchmark.oneProducer (pending=1000000)" -> "ScheduleCancel.oneProducer": the legend and
            // the Markdown table carry the details; long labels would overlap.
            String label = row.label().replace("Benchmark.", ".");
            int paren = label.indexOf(" (");
            String shortLabel = paren > 0 ? label.substring(0, paren) : label;
            labels.add(labels.contains(shortLabel) ? label : shortLabel);
        }
        for (String rival : comparison.rivals()) {
            List<Double> ratios = new ArrayList<>();
            for (Comparison.Row row : comparison.rows()) {
                double r = Comparison.ratio(row, rival);
                ratios.add(Double.isNaN(r) ? 0.0 : r); // a missing result draws no bar
            }
            chart.addSeries("vs " + rival, labels, ratios);
        }
        CategorySeries parity = chart.addSeries("parity (1×)", labels,
                new ArrayList<>(Collections.nCopies(labels.size(), 1.0)));
        parity.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        parity.setMarker(SeriesMarkers.NONE);
        parity.setLineColor(Color.DARK_GRAY);
        parity.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                new float[] {6f, 4f}, 0f));

        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }
}

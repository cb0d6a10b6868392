package io.ttlstreams.bench;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.CategoryDataset;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The PNG plots of a run, drawn headless with JFreeChart. */
final class Plots {

    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;

    private Plots() {}

    static void punctuationCost(List<PunctuationBench.Row> rows, String subtitle, Path file) {
        Map<String, XYSeries> series = new LinkedHashMap<>();
        for (PunctuationBench.Row row : rows) {
            String name = row.approach() + " D=" + row.due();
            series.computeIfAbsent(name, XYSeries::new).add(row.n(), Math.max(row.medianMs(), 1e-3));
        }
        XYSeriesCollection dataset = new XYSeriesCollection();
        series.values().forEach(dataset::addSeries);
        JFreeChart chart = lineChart(
                "Cost of one punctuation vs schedule size (median)",
                "scheduled entries N",
                "ms per punctuation",
                dataset,
                subtitle);
        XYPlot plot = chart.getXYPlot();
        plot.setDomainAxis(new LogAxis("scheduled entries N (log)"));
        plot.setRangeAxis(new LogAxis("ms per punctuation (log)"));
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        plot.setRenderer(renderer);
        save(chart, file);
    }

    static void lag(List<LagBench.Row> rows, String subtitle, Path file) {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (LagBench.Row row : rows) {
            String interval = row.intervalMs() + " ms";
            dataset.addValue(row.p50Ms(), "p50", interval);
            dataset.addValue(row.p99Ms(), "p99", interval);
            dataset.addValue(row.maxMs(), "max", interval);
        }
        JFreeChart chart = barChart(
                "Expiry lag (emitted - deadline), simulated wall clock",
                "punctuation interval",
                "lag ms",
                dataset,
                subtitle);
        save(chart, file);
    }

    /** Median stream-thread CPU per event, by workload and variant. */
    static void cpuPerEvent(List<BrokerMedians.Summary> medians, int rounds, String subtitle, Path file) {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (BrokerMedians.Summary median : medians) {
            dataset.addValue(median.streamCpuMicros(), median.variant().label, median.workload().label);
        }
        JFreeChart chart = barChart(
                "Stream-thread CPU per change event, embedded broker (EOS), median of " + rounds + " rounds",
                "workload",
                "CPU microseconds per event",
                dataset,
                subtitle);
        save(chart, file);
    }

    /** Commands committed over time after the first deadline, one line per mass-expiry case. */
    static void massExpiry(List<MassExpiryBench.Result> results, String subtitle, Path file) {
        XYSeriesCollection dataset = new XYSeriesCollection();
        for (MassExpiryBench.Result result : results) {
            XYSeries series =
                    new XYSeries(result.drain().name() + " (N=" + result.drain().documents() + ")");
            long[] arrivals = result.arrivalsAfterFirstDeadlineMs().clone();
            java.util.Arrays.sort(arrivals);
            int step = Math.max(1, arrivals.length / 500);
            for (int i = 0; i < arrivals.length; i += step) {
                series.add(arrivals[i] / 1e3, i + 1);
            }
            if (arrivals.length > 0) {
                series.add(arrivals[arrivals.length - 1] / 1e3, arrivals.length);
            }
            dataset.addSeries(series);
        }
        JFreeChart chart = lineChart(
                "Mass expiry: delete commands committed (read_committed) after the first deadline",
                "seconds after the first deadline (all due within 1 s)",
                "commands committed",
                dataset,
                subtitle);
        save(chart, file);
    }

    /**
     * The worst lateness of each second's deadlines over a chaos run, one series per variant, each disturbance a
     * shaded band from its start to its end (the first variant's; the variants run the same scenarios in order).
     */
    static void chaos(
            Map<String, double[][]> worstPerSecond,
            List<ChaosBench.Window> windows,
            long runStart,
            String subtitle,
            Path file) {
        XYSeriesCollection dataset = new XYSeriesCollection();
        worstPerSecond.forEach((variant, series) -> {
            XYSeries line = new XYSeries(variant);
            for (int i = 0; i < series[0].length; i++) {
                line.add(series[0][i], series[1][i] / 1000.0);
            }
            dataset.addSeries(line);
        });
        JFreeChart chart = lineChart(
                "Chaos: worst lateness of the deadlines of each second (deleted - deadline)",
                "deadline, seconds after the workload started",
                "lateness s",
                dataset,
                subtitle);
        XYPlot plot = chart.getXYPlot();
        int n = 1;
        for (ChaosBench.Window window : windows) {
            IntervalMarker band = new IntervalMarker(
                    (window.start() - runStart) / 1000.0,
                    Math.max(window.end(), window.start() + 500) / 1000.0 - runStart / 1000.0);
            band.setPaint(new Color(255, 200, 0, 70));
            band.setLabel(Integer.toString(n++));
            band.setLabelAnchor(RectangleAnchor.TOP_LEFT);
            band.setLabelTextAnchor(TextAnchor.TOP_LEFT);
            plot.addDomainMarker(band, Layer.BACKGROUND);
        }
        save(chart, file);
    }

    /** A vertical line chart of {@code dataset} with a legend, under {@code subtitle}. */
    private static JFreeChart lineChart(String title, String xAxis, String yAxis, XYDataset dataset, String subtitle) {
        JFreeChart chart = ChartFactory.createXYLineChart(
                title, xAxis, yAxis, dataset, PlotOrientation.VERTICAL, true, false, false);
        chart.addSubtitle(new TextTitle(subtitle));
        return chart;
    }

    /** A vertical bar chart of {@code dataset} with a legend, under {@code subtitle}. */
    private static JFreeChart barChart(
            String title, String categoryAxis, String valueAxis, CategoryDataset dataset, String subtitle) {
        JFreeChart chart = ChartFactory.createBarChart(
                title, categoryAxis, valueAxis, dataset, PlotOrientation.VERTICAL, true, false, false);
        chart.addSubtitle(new TextTitle(subtitle));
        return chart;
    }

    private static void save(JFreeChart chart, Path file) {
        try {
            ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

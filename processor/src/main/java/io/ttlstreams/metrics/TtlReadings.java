package io.ttlstreams.metrics;

import io.ttlstreams.processor.LagHistogram;
import io.ttlstreams.processor.TtlMetrics;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * ttl-streams' metrics as this instance's tasks recorded them, read from Kafka Streams' registry through their stats
 * ({@link TtlMetrics.Total}, {@link LagHistogram.Figure}), never through their names: each counter's totals and each
 * lag histogram by its tags (without {@code thread-id}), summed over threads. Tasks that moved away no longer count.
 *
 * @param counters per counter name: its help and its totals by tags
 * @param lags per lag distribution (e.g. {@value TtlMetrics#EXPIRY_LAG}): what it records and its histograms by tags
 */
record TtlReadings(Map<String, Family<Double>> counters, Map<String, Family<Lag>> lags) {

    /** The points of one counter or distribution, by tags, and what it measures. */
    record Family<T>(String help, Map<Map<String, String>, T> points) {}

    /** One histogram, with the largest lag of the last samples (0 without any), in ms. */
    record Lag(LagHistogram.Snapshot snapshot, double maxMs) {}

    static TtlReadings of(Map<MetricName, ? extends Metric> metrics) {
        Map<String, Family<Double>> counters = new TreeMap<>();
        Map<String, Family<Lag>> lags = new TreeMap<>();
        metrics.forEach((name, metric) -> {
            if (!name.group().equals(TtlMetrics.GROUP) || !(metric instanceof KafkaMetric kafka)) {
                return;
            }
            double value = ((Number) kafka.metricValue()).doubleValue();
            if (kafka.measurable() instanceof TtlMetrics.Total total) {
                counters.computeIfAbsent(total.name(), counter -> new Family<>(total.help(), new HashMap<>()))
                        .points()
                        .merge(tags(name), value, Double::sum);
            } else if (kafka.measurable() instanceof LagHistogram.Figure figure && figure.isMax()) {
                // The maximum stands for its histogram: it is the one figure only the metric can measure.
                LagHistogram histogram = figure.histogram();
                lags.computeIfAbsent(histogram.base(), base -> new Family<>(histogram.what(), new HashMap<>()))
                        .points()
                        .put(
                                tags(name),
                                new Lag(histogram.snapshot(), Double.isFinite(value) ? Math.max(0, value) : 0));
            }
        });
        return new TtlReadings(counters, lags);
    }

    /** The sum of counter {@code name}'s totals. */
    double total(String name) {
        Family<Double> family = counters.get(name);
        return family == null
                ? 0
                : family.points().values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum();
    }

    /** The sums of counter {@code name}'s totals by the value of its tag {@code tag}. */
    Map<String, Double> totalsBy(String name, String tag) {
        Map<String, Double> sums = new TreeMap<>();
        Family<Double> family = counters.get(name);
        if (family != null) {
            family.points().forEach((tags, total) -> {
                if (tags.containsKey(tag)) {
                    sums.merge(tags.get(tag), total, Double::sum);
                }
            });
        }
        return sums;
    }

    private static Map<String, String> tags(MetricName name) {
        Map<String, String> tags = new TreeMap<>(name.tags());
        tags.remove("thread-id");
        return tags;
    }
}

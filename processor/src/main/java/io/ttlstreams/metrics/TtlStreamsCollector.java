package io.ttlstreams.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.ttlstreams.processor.LagHistogram;
import io.ttlstreams.processor.TtlMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Exports ttl-streams' Kafka metrics ({@link TtlMetrics}, group {@code stream-ttl-metrics}) to Prometheus, read at
 * scrape time ({@link ExpiryFigures}), so that Prometheus and JMX show the same figures from the same sensors and
 * nothing is counted twice. Every counter becomes {@code ttl_<name>_total} and every lag distribution the histogram
 * {@code ttl_<name>_seconds} with its windowed maximum as {@code ttl_<name>_seconds_max}; labels are the tags, {@code
 * ttl-id} as {@code task}, without {@code thread-id}. Rates and windowed percentiles stay in JMX: Prometheus computes
 * its own from the totals and buckets. A new sensor needs no change here.
 *
 * <p>Beside them, {@code ttl_send_failures_total}: the records Kafka Streams dropped after the producer failed to
 * send them and {@code SendFailureHandler} had them dead-lettered (its task metric {@code dropped-records-total}, which
 * nothing else in this topology records), summed over the tasks.
 */
public final class TtlStreamsCollector implements MultiCollector {

    private static final String PREFIX = "ttl_";

    private final Supplier<Map<MetricName, ? extends Metric>> metrics;

    /** @param metrics the Kafka Streams metrics to read ({@code KafkaStreams::metrics}) */
    public TtlStreamsCollector(Supplier<Map<MetricName, ? extends Metric>> metrics) {
        this.metrics = metrics;
    }

    @Override
    public MetricSnapshots collect() {
        Map<MetricName, ? extends Metric> all = metrics.get();
        ExpiryFigures readings = ExpiryFigures.of(all);
        List<MetricSnapshot> snapshots = new ArrayList<>();
        // Present from the start, as Prometheus wants, though the first thread to count them may not have run yet.
        counter(snapshots, TtlMetrics.PUNCTUATION_FAILURES, readings.counters().get(TtlMetrics.PUNCTUATION_FAILURES));
        counter(
                snapshots,
                "send-failures",
                new ExpiryFigures.Family<>(
                        "Records the producer failed to send", Map.of(Map.of(), droppedRecords(all))));
        readings.counters().forEach((name, family) -> {
            if (!name.equals(TtlMetrics.PUNCTUATION_FAILURES)) {
                counter(snapshots, name, family);
            }
        });
        readings.lags().forEach((base, family) -> {
            String seconds = PREFIX + underscored(base) + "_seconds";
            HistogramSnapshot.Builder histogram =
                    HistogramSnapshot.builder().name(seconds).help("Recordings of " + family.help());
            GaugeSnapshot.Builder max = GaugeSnapshot.builder()
                    .name(seconds + "_max")
                    .help("The largest of the last minute or so: Recordings of " + family.help());
            sorted(family).forEach((labels, lag) -> {
                LagHistogram.Snapshot snapshot = lag.snapshot();
                histogram.dataPoint(HistogramDataPointSnapshot.builder()
                        .labels(labels)
                        .classicHistogramBuckets(buckets(snapshot))
                        .sum(snapshot.sumMs() / 1000.0)
                        .build());
                max.dataPoint(GaugeDataPointSnapshot.builder()
                        .labels(labels)
                        .value(lag.maxMs() / 1000.0)
                        .build());
            });
            snapshots.add(histogram.build());
            snapshots.add(max.build());
        });
        return new MetricSnapshots(snapshots);
    }

    private static void counter(List<MetricSnapshot> snapshots, String name, ExpiryFigures.Family<Double> family) {
        if (family == null) {
            family = new ExpiryFigures.Family<>(TtlMetrics.help(name), Map.of(Map.of(), 0.0));
        }
        CounterSnapshot.Builder counter =
                CounterSnapshot.builder().name(PREFIX + underscored(name)).help(family.help());
        sorted(family)
                .forEach((labels, value) -> counter.dataPoint(CounterDataPointSnapshot.builder()
                        .labels(labels)
                        .value(value)
                        .build()));
        snapshots.add(counter.build());
    }

    /** Kafka Streams' count of records dropped after an exception handler said to go on, over this instance's tasks. */
    private static double droppedRecords(Map<MetricName, ? extends Metric> metrics) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().group().equals("stream-task-metrics")
                        && e.getKey().name().equals("dropped-records-total"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    /** Prometheus' buckets count each range on its own; the histogram counts up to each bound. */
    private static ClassicHistogramBuckets buckets(LagHistogram.Snapshot snapshot) {
        int size = snapshot.boundsMs().length + 1;
        double[] bounds = new double[size];
        long[] counts = new long[size];
        long below = 0;
        for (int i = 0; i < snapshot.boundsMs().length; i++) {
            bounds[i] = snapshot.boundsMs()[i] / 1000.0;
            counts[i] = snapshot.cumulative()[i] - below;
            below = snapshot.cumulative()[i];
        }
        bounds[size - 1] = Double.POSITIVE_INFINITY;
        counts[size - 1] = snapshot.count() - below;
        return ClassicHistogramBuckets.of(bounds, counts);
    }

    private static <T> Map<Labels, T> sorted(ExpiryFigures.Family<T> family) {
        Map<Labels, T> sorted = new TreeMap<>();
        family.points().forEach((tags, value) -> sorted.put(labels(tags), value));
        return sorted;
    }

    private static Labels labels(Map<String, String> tags) {
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        new TreeMap<>(tags).forEach((tag, value) -> {
            names.add(tag.equals(TtlMetrics.TASK_TAG) ? "task" : underscored(tag));
            values.add(value);
        });
        return Labels.of(names, values);
    }

    private static String underscored(String name) {
        return name.replace('-', '_');
    }
}

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
import io.ttlstreams.processor.ProcessingFailures;
import io.ttlstreams.processor.TtlMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Exports ttl-streams' task-level Kafka metrics ({@link TtlMetrics}, group {@code stream-ttl-metrics}) to Prometheus,
 * read at scrape time, so that Prometheus and JMX show the same figures from the same sensors and nothing is counted
 * twice. Every counter {@code <name>-total} becomes {@code ttl_<name>_total} and every {@link LagHistogram} {@code
 * <name>-ms} the histogram {@code ttl_<name>_seconds} with its {@code -max} as {@code ttl_<name>_seconds_max}; labels
 * are the tags, {@code ttl-id} as {@code task}, without {@code thread-id}. Rates and windowed percentiles stay in JMX:
 * Prometheus computes its own from the totals and buckets. A new sensor needs no change here.
 *
 * <p>Beside them, the failures Kafka Streams hands to ttl-streams' exception handlers, which belong to no task and
 * are counted in {@link ProcessingFailures}, read at scrape time as well.
 */
public final class TtlStreamsCollector implements MultiCollector {

    /** The task label of the records Kafka Streams' exception handler dead-lettered, which belong to no sensor. */
    static final String HANDLER_TASK = "handler";
    /** Records the producer failed to send, as {@code ttl_send_failures_total}. */
    private static final String SEND_FAILURES = "send-failures";
    /** Punctuations that threw, as {@code ttl_punctuation_failures_total}. */
    private static final String PUNCTUATION_FAILURES = "punctuation-failures";

    private static final String PREFIX = "ttl_";
    private static final String MAX = "-max";
    private static final String MS = "-ms";

    private final Supplier<Map<MetricName, ? extends Metric>> metrics;
    private final DoubleSupplier handlerDeadLettered;
    private final DoubleSupplier sendFailures;
    private final DoubleSupplier punctuationFailures;

    /**
     * @param metrics the Kafka Streams metrics to read ({@code KafkaStreams::metrics})
     * @param failures what the exception handlers counted: records dead-lettered, exported as {@code
     *     ttl_events_dead_lettered_total{task="handler"}}, failed sends and failed punctuations
     */
    public TtlStreamsCollector(Supplier<Map<MetricName, ? extends Metric>> metrics, ProcessingFailures failures) {
        this(metrics, failures::recordFailures, failures::sendFailures, failures::punctuationFailures);
    }

    /** The same with each count given on its own, which a test can set. */
    TtlStreamsCollector(
            Supplier<Map<MetricName, ? extends Metric>> metrics,
            DoubleSupplier handlerDeadLettered,
            DoubleSupplier sendFailures,
            DoubleSupplier punctuationFailures) {
        this.metrics = metrics;
        this.handlerDeadLettered = handlerDeadLettered;
        this.sendFailures = sendFailures;
        this.punctuationFailures = punctuationFailures;
    }

    /** One lag distribution of one task and rule, as read. */
    private static final class Lag {
        final TreeMap<Long, Double> cumulative = new TreeMap<>();
        double count;
        double sum;
        double max = Double.NaN;
    }

    /** One family being gathered: its data points by labels, and its help, from its first total or count. */
    private static final class Family<T> {
        final Map<Labels, T> points = new TreeMap<>();
        String help;

        Family(String help) {
            this.help = help;
        }
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, Family<Double>> counters = new TreeMap<>();
        Map<String, Family<Lag>> lags = new TreeMap<>();
        family(counters, TtlMetrics.DEAD_LETTERED, "Records sent to the dead-letter topic")
                .points
                .put(Labels.of("task", HANDLER_TASK), handlerDeadLettered.getAsDouble());
        family(counters, SEND_FAILURES, "Records the producer failed to send")
                .points
                .put(Labels.EMPTY, sendFailures.getAsDouble());
        family(counters, PUNCTUATION_FAILURES, "Punctuations that threw, each failing its stream thread")
                .points
                .put(Labels.EMPTY, punctuationFailures.getAsDouble());
        for (Map.Entry<MetricName, ? extends Metric> entry : metrics.get().entrySet()) {
            MetricName name = entry.getKey();
            if (!name.group().equals(TtlMetrics.GROUP) || !(entry.getValue().metricValue() instanceof Number number)) {
                continue;
            }
            double value = number.doubleValue();
            String metric = name.name();
            Labels labels = labels(name.tags());
            if (metric.endsWith(TtlMetrics.TOTAL)) {
                family(counters, strip(metric, TtlMetrics.TOTAL), name.description())
                        .points
                        .merge(labels, value, Double::sum);
            } else if (metric.contains(LagHistogram.BUCKET)) {
                int at = metric.lastIndexOf(LagHistogram.BUCKET);
                long bound = Long.parseLong(metric.substring(at + LagHistogram.BUCKET.length()));
                lag(lags, metric.substring(0, at), labels).cumulative.merge(bound, value, Double::sum);
            } else if (metric.endsWith(LagHistogram.COUNT)) {
                String base = strip(metric, LagHistogram.COUNT);
                lag(lags, base, labels).count += value;
                lags.get(base).help = name.description();
            } else if (metric.endsWith(LagHistogram.SUM)) {
                lag(lags, strip(metric, LagHistogram.SUM), labels).sum += value;
            } else if (metric.endsWith(MAX) && Double.isFinite(value)) {
                Lag lag = lag(lags, strip(metric, MAX), labels);
                lag.max = Double.isNaN(lag.max) ? value : Math.max(lag.max, value);
            }
        }
        List<MetricSnapshot> snapshots = new ArrayList<>();
        counters.forEach((base, family) -> snapshots.add(counter(base, family)));
        lags.forEach((base, family) -> {
            snapshots.add(histogram(base, family));
            snapshots.add(max(base, family));
        });
        return new MetricSnapshots(snapshots);
    }

    private static CounterSnapshot counter(String base, Family<Double> family) {
        CounterSnapshot.Builder counter =
                CounterSnapshot.builder().name(PREFIX + underscored(base)).help(family.help);
        family.points.forEach((labels, value) -> counter.dataPoint(
                CounterDataPointSnapshot.builder().labels(labels).value(value).build()));
        return counter.build();
    }

    private static HistogramSnapshot histogram(String base, Family<Lag> family) {
        HistogramSnapshot.Builder histogram =
                HistogramSnapshot.builder().name(seconds(base)).help(family.help);
        family.points.forEach((labels, lag) -> histogram.dataPoint(HistogramDataPointSnapshot.builder()
                .labels(labels)
                .classicHistogramBuckets(buckets(lag))
                .sum(lag.sum / 1000.0)
                .build()));
        return histogram.build();
    }

    private static GaugeSnapshot max(String base, Family<Lag> family) {
        GaugeSnapshot.Builder gauge = GaugeSnapshot.builder()
                .name(seconds(base) + "_max")
                .help("The largest of the last minute or so: " + family.help);
        family.points.forEach((labels, lag) -> gauge.dataPoint(GaugeDataPointSnapshot.builder()
                .labels(labels)
                .value(Double.isNaN(lag.max) ? 0 : Math.max(0, lag.max) / 1000.0)
                .build()));
        return gauge.build();
    }

    /** Prometheus' buckets count each range on its own; the Kafka metrics count up to each bound. */
    private static ClassicHistogramBuckets buckets(Lag lag) {
        int size = lag.cumulative.size() + 1;
        double[] bounds = new double[size];
        long[] counts = new long[size];
        int i = 0;
        double below = 0;
        for (Map.Entry<Long, Double> bucket : lag.cumulative.entrySet()) {
            bounds[i] = bucket.getKey() / 1000.0;
            // Each metric is read on its own: a recording between two reads must not make a count negative.
            counts[i++] = (long) Math.max(0, bucket.getValue() - below);
            below = Math.max(below, bucket.getValue());
        }
        bounds[i] = Double.POSITIVE_INFINITY;
        counts[i] = (long) Math.max(0, lag.count - below);
        return ClassicHistogramBuckets.of(bounds, counts);
    }

    private static <T> Family<T> family(Map<String, Family<T>> families, String base, String help) {
        return families.computeIfAbsent(base, name -> new Family<>(help));
    }

    private static Lag lag(Map<String, Family<Lag>> lags, String base, Labels labels) {
        return family(lags, base, base).points.computeIfAbsent(labels, key -> new Lag());
    }

    private static Labels labels(Map<String, String> tags) {
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        new TreeMap<>(tags).forEach((tag, value) -> {
            if (!tag.equals("thread-id")) {
                names.add(tag.equals(TtlMetrics.TASK_TAG) ? "task" : underscored(tag));
                values.add(value);
            }
        });
        return Labels.of(names, values);
    }

    private static String seconds(String base) {
        return PREFIX + underscored(base.endsWith(MS) ? strip(base, MS) : base) + "_seconds";
    }

    private static String strip(String name, String suffix) {
        return name.substring(0, name.length() - suffix.length());
    }

    private static String underscored(String name) {
        return name.replace('-', '_');
    }
}

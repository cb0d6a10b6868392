package io.ttlstreams.metrics;

import io.ttlstreams.processor.LagHistogram;
import io.ttlstreams.processor.TtlMetrics;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * ttl-streams' metrics as this instance's tasks recorded them, read at one moment from Kafka Streams' registry through
 * their stats ({@link TtlMetrics.Total}, {@link LagHistogram.Figure}), never through their names: each counter's
 * totals and each lag histogram by its tags (without {@code thread-id}, summed over threads), and what {@code GET
 * /v1/status}, the status page and the status line make of them. Tasks that moved away no longer count.
 *
 * @param counters per counter name: its help and its totals by tags
 * @param lags per lag distribution (e.g. {@value TtlMetrics#EXPIRY_LAG}): what it records and its histograms by tags
 * @param lagP99Seconds per rule, the largest 99th percentile of its expiry lag over the last minute or so among the
 *     tasks
 * @param percentiles per windowed percentile (e.g. {@code expiry-lag-ms-p50}), its largest value among the tasks and
 *     rules
 */
public record ExpiryFigures(
        Map<String, Family<Double>> counters,
        Map<String, Family<Lag>> lags,
        Map<String, Double> lagP99Seconds,
        Map<String, Double> percentiles) {

    /** The points of one counter or distribution, by tags, and what it measures. */
    public record Family<T>(String help, Map<Map<String, String>, T> points) {}

    /** One histogram, with the largest lag of the last samples (0 without any), in ms. */
    public record Lag(LagHistogram.Snapshot snapshot, double maxMs) {}

    /** The figures of {@code metrics} ({@code KafkaStreams#metrics()}) now. */
    public static ExpiryFigures of(Map<MetricName, ? extends Metric> metrics) {
        Map<String, Family<Double>> counters = new TreeMap<>();
        Map<String, Family<Lag>> lags = new TreeMap<>();
        Map<String, Double> lagP99 = new TreeMap<>();
        Map<String, Double> percentiles = new TreeMap<>();
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
            } else if ((name.name().endsWith("-p50") || name.name().endsWith("-p99")) && Double.isFinite(value)) {
                percentiles.merge(name.name(), value, Math::max);
                if (name.name().equals(TtlMetrics.EXPIRY_LAG_MS + "-p99")) {
                    lagP99.merge(name.tags().get(TtlMetrics.RULE_TAG), value / 1000.0, Math::max);
                }
            }
        });
        return new ExpiryFigures(counters, lags, lagP99, percentiles);
    }

    /** The largest value of windowed percentile {@code name} among the tasks and rules; 0 without any. */
    public double percentile(String name) {
        return percentiles.getOrDefault(name, 0.0);
    }

    /** The sum of counter {@code name}'s totals, e.g. the delete commands emitted ({@value TtlMetrics#EMITTED}). */
    public double total(String name) {
        Family<Double> family = counters.get(name);
        return family == null
                ? 0
                : family.points().values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum();
    }

    /** The sums of counter {@code name}'s totals by the value of its tag {@code tag}. */
    private SortedMap<String, Double> totalsBy(String name, String tag) {
        SortedMap<String, Double> sums = new TreeMap<>();
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

    /**
     * Delete commands the sink connector dead-lettered to {@code ttl.sink.dlq}, as the task that reads it counted them
     * on this instance: in total and by reason ({@code signature}, {@code namespace}, ...; reasons without any left
     * out).
     */
    public record SinkDeadLetters(double total, SortedMap<String, Double> byReason) {}

    /** The sink's dead letters ({@link SinkDeadLetters}). */
    public SinkDeadLetters sinkDeadLetters() {
        SortedMap<String, Double> byReason = totalsBy(TtlMetrics.SINK_DEAD_LETTERS, TtlMetrics.REASON_TAG);
        byReason.values().removeIf(count -> count == 0);
        return new SinkDeadLetters(
                byReason.values().stream().mapToDouble(Double::doubleValue).sum(), byReason);
    }

    /** Per rule: commands emitted, deletes confirmed and given up on by the tasks this instance runs. */
    public List<RuleFigures> perRule() {
        Map<String, Double> emitted = totalsBy(TtlMetrics.EMITTED, TtlMetrics.RULE_TAG);
        Map<String, Double> confirmed = totalsBy(TtlMetrics.CONFIRMED, TtlMetrics.RULE_TAG);
        Map<String, Double> unconfirmed = totalsBy(TtlMetrics.UNCONFIRMED, TtlMetrics.RULE_TAG);
        Set<String> rules = new TreeSet<>(emitted.keySet());
        rules.addAll(confirmed.keySet());
        rules.addAll(unconfirmed.keySet());
        return rules.stream()
                .map(rule -> new RuleFigures(
                        rule,
                        emitted.getOrDefault(rule, 0.0),
                        confirmed.getOrDefault(rule, 0.0),
                        unconfirmed.getOrDefault(rule, 0.0),
                        lagP99Seconds.containsKey(rule)
                                ? OptionalDouble.of(lagP99Seconds.get(rule))
                                : OptionalDouble.empty()))
                .toList();
    }

    /** The expiry lag over all tasks and rules, from the histograms' buckets. */
    public LagSummary lagSummary() {
        Family<Lag> expiryLags = lags.get(TtlMetrics.EXPIRY_LAG);
        long count = 0;
        double max = 0;
        TreeMap<Long, Long> cumulative = new TreeMap<>();
        for (Lag lag : expiryLags == null ? List.<Lag>of() : expiryLags.points().values()) {
            LagHistogram.Snapshot snapshot = lag.snapshot();
            count += snapshot.count();
            max = Math.max(max, lag.maxMs() / 1000.0);
            for (int i = 0; i < snapshot.boundsMs().length; i++) {
                cumulative.merge(snapshot.boundsMs()[i], snapshot.cumulative()[i], Long::sum);
            }
        }
        return new LagSummary(count, quantile(cumulative, count, 0.5), quantile(cumulative, count, 0.99), max);
    }

    /**
     * The upper bound in seconds of the bucket holding quantile {@code q}, as Prometheus' {@code histogram_quantile}
     * would bound it; empty without recordings or when it lies beyond the last bucket.
     */
    private static OptionalDouble quantile(TreeMap<Long, Long> cumulativeCounts, long count, double q) {
        if (count == 0) {
            return OptionalDouble.empty();
        }
        for (Map.Entry<Long, Long> bucket : cumulativeCounts.entrySet()) {
            if (bucket.getValue() >= q * count) {
                return OptionalDouble.of(bucket.getKey() / 1000.0);
            }
        }
        return OptionalDouble.empty();
    }

    private static Map<String, String> tags(MetricName name) {
        Map<String, String> tags = new TreeMap<>(name.tags());
        tags.remove("thread-id");
        return tags;
    }

    /**
     * One rule's figures on this instance.
     *
     * @param lagP99Seconds the largest 99th percentile of the rule's expiry lag over the last minute or so among the
     *     tasks; empty before any command
     */
    public record RuleFigures(
            String rule,
            double deletesEmitted,
            double deletesConfirmed,
            double deletesUnconfirmed,
            OptionalDouble lagP99Seconds) {}

    /**
     * The expiry lag of this instance.
     *
     * @param count commands recorded
     * @param p50Seconds upper bound of the median's bucket
     * @param p99Seconds upper bound of the 99th percentile's bucket
     * @param maxSeconds the largest lag of the last minute or so (Kafka's windowed maximum); 0 without any
     */
    public record LagSummary(long count, OptionalDouble p50Seconds, OptionalDouble p99Seconds, double maxSeconds) {}
}

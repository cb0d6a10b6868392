package io.ttlstreams.metrics;

import io.ttlstreams.processor.LagHistogram;
import io.ttlstreams.processor.TtlMetrics;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * What this instance's tasks emitted and MongoDB confirmed, summed over tasks and rules from the {@link TtlMetrics}
 * sensors (the figures {@code GET /v1/status} and the status page show). Tasks that moved away no longer count.
 */
public final class ExpiryFigures {

    private final Supplier<Map<MetricName, ? extends Metric>> metrics;

    /** @param metrics the Kafka Streams metrics to read ({@code KafkaStreams::metrics}) */
    public ExpiryFigures(Supplier<Map<MetricName, ? extends Metric>> metrics) {
        this.metrics = metrics;
    }

    /** Delete commands emitted (first attempts) by the tasks this instance runs. */
    public double deletesEmitted() {
        return TtlReadings.of(metrics.get()).total(TtlMetrics.EMITTED);
    }

    /** Deletes confirmed by the change stream in the tasks this instance runs. */
    public double deletesConfirmed() {
        return TtlReadings.of(metrics.get()).total(TtlMetrics.CONFIRMED);
    }

    /** Documents the tasks this instance runs gave up on. */
    public double deletesUnconfirmed() {
        return TtlReadings.of(metrics.get()).total(TtlMetrics.UNCONFIRMED);
    }

    /** Records dead-lettered by the tasks this instance runs. */
    public double deadLettered() {
        return TtlReadings.of(metrics.get()).total(TtlMetrics.DEAD_LETTERED);
    }

    /**
     * Delete commands the sink connector dead-lettered, by reason ({@code signature}, {@code namespace}, ...), as the
     * task that reads {@code ttl.sink.dlq} counted them on this instance; reasons without any are left out.
     */
    public SortedMap<String, Double> sinkDeadLetters() {
        SortedMap<String, Double> byReason = new TreeMap<>(
                TtlReadings.of(metrics.get()).totalsBy(TtlMetrics.SINK_DEAD_LETTERS, TtlMetrics.REASON_TAG));
        byReason.values().removeIf(count -> count == 0);
        return byReason;
    }

    /** Per rule: commands emitted, deletes confirmed and given up on by the tasks this instance runs. */
    public List<RuleFigures> perRule() {
        Map<MetricName, ? extends Metric> all = metrics.get();
        TtlReadings readings = TtlReadings.of(all);
        Map<String, Double> emitted = readings.totalsBy(TtlMetrics.EMITTED, TtlMetrics.RULE_TAG);
        Map<String, Double> confirmed = readings.totalsBy(TtlMetrics.CONFIRMED, TtlMetrics.RULE_TAG);
        Map<String, Double> unconfirmed = readings.totalsBy(TtlMetrics.UNCONFIRMED, TtlMetrics.RULE_TAG);
        Map<String, Double> lagP99 = new TreeMap<>();
        all.forEach((name, metric) -> {
            if (name.group().equals(TtlMetrics.GROUP)
                    && name.name().equals(TtlMetrics.EXPIRY_LAG_MS + "-p99")
                    && name.tags().containsKey(TtlMetrics.RULE_TAG)
                    && metric.metricValue() instanceof Number value
                    && Double.isFinite(value.doubleValue())) {
                lagP99.merge(name.tags().get(TtlMetrics.RULE_TAG), value.doubleValue() / 1000.0, Math::max);
            }
        });
        Set<String> rules = new TreeSet<>(emitted.keySet());
        rules.addAll(confirmed.keySet());
        rules.addAll(unconfirmed.keySet());
        return rules.stream()
                .map(rule -> new RuleFigures(
                        rule,
                        emitted.getOrDefault(rule, 0.0),
                        confirmed.getOrDefault(rule, 0.0),
                        unconfirmed.getOrDefault(rule, 0.0),
                        lagP99.containsKey(rule) ? OptionalDouble.of(lagP99.get(rule)) : OptionalDouble.empty()))
                .toList();
    }

    /** The expiry lag over all tasks and rules, from the histograms' buckets. */
    public LagSummary lagSummary() {
        TtlReadings.Family<TtlReadings.Lag> lags =
                TtlReadings.of(metrics.get()).lags().get(TtlMetrics.EXPIRY_LAG);
        long count = 0;
        double max = 0;
        TreeMap<Long, Long> cumulative = new TreeMap<>();
        for (TtlReadings.Lag lag :
                lags == null ? List.<TtlReadings.Lag>of() : lags.points().values()) {
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
        double rank = q * count;
        for (Map.Entry<Long, Long> bucket : cumulativeCounts.entrySet()) {
            if (bucket.getValue() >= rank) {
                return OptionalDouble.of(bucket.getKey() / 1000.0);
            }
        }
        return OptionalDouble.empty();
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

package io.ttlstreams.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.ttlstreams.processor.TtlMetrics;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.OptionalDouble;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * What {@code GET /v1/status}, the status page and the status line make of ttl-streams' meters ({@link TtlMetrics}):
 * counters summed over this instance's tasks (and by rule or reason), and the expiry lag's quantiles. Read from the
 * registry when asked; tasks that moved away no longer count.
 */
public final class ExpiryFigures {

    private final MeterRegistry registry;

    private ExpiryFigures(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The figures of the meters in {@code registry}. */
    public static ExpiryFigures of(MeterRegistry registry) {
        return new ExpiryFigures(registry);
    }

    private Collection<Counter> counters(String name) {
        return registry.find(TtlMetrics.meterName(name)).counters();
    }

    private Collection<Timer> lags(String name) {
        return registry.find(TtlMetrics.meterName(name)).timers();
    }

    /** The sum of counter {@code name}'s totals, e.g. the delete commands emitted ({@value TtlMetrics#EMITTED}). */
    public double total(String name) {
        return counters(name).stream().mapToDouble(Counter::count).sum();
    }

    /**
     * The largest value of lag {@code name}'s (e.g. {@value TtlMetrics#EXPIRY_LAG}) percentile {@code percentile}
     * over the last 30 to 60 s among the tasks and rules, in ms; 0 without any.
     */
    public double percentile(String name, double percentile) {
        return lags(name).stream()
                .mapToDouble(timer -> percentile(timer.takeSnapshot(), percentile))
                .max()
                .orElse(0);
    }

    private static double percentile(HistogramSnapshot snapshot, double percentile) {
        return Arrays.stream(snapshot.percentileValues())
                .filter(value -> value.percentile() == percentile)
                .mapToDouble(value -> value.value(TimeUnit.MILLISECONDS))
                .findFirst()
                .orElse(0);
    }

    /** The sums of counter {@code name}'s totals by the value of its tag {@code tag}. */
    private SortedMap<String, Double> totalsBy(String name, String tag) {
        return counters(name).stream()
                .filter(counter -> counter.getId().getTag(tag) != null)
                .collect(Collectors.groupingBy(
                        counter -> counter.getId().getTag(tag),
                        TreeMap::new,
                        Collectors.summingDouble(Counter::count)));
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
        SortedMap<String, Double> emitted = totalsBy(TtlMetrics.EMITTED, TtlMetrics.RULE_TAG);
        SortedMap<String, Double> confirmed = totalsBy(TtlMetrics.CONFIRMED, TtlMetrics.RULE_TAG);
        SortedMap<String, Double> unconfirmed = totalsBy(TtlMetrics.UNCONFIRMED, TtlMetrics.RULE_TAG);
        SortedMap<String, Double> lagP99 = new TreeMap<>();
        for (Timer lag : lags(TtlMetrics.EXPIRY_LAG)) {
            HistogramSnapshot snapshot = lag.takeSnapshot();
            // A window without commands has a maximum of 0: the rule has no recent lag to show.
            if (snapshot.max() > 0) {
                lagP99.merge(lag.getId().getTag(TtlMetrics.RULE_TAG), percentile(snapshot, 0.99) / 1000.0, Math::max);
            }
        }
        TreeSet<String> rules = new TreeSet<>(emitted.keySet());
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
        long count = 0;
        double max = 0;
        TreeMap<Double, Double> cumulative = new TreeMap<>();
        for (Timer lag : lags(TtlMetrics.EXPIRY_LAG)) {
            HistogramSnapshot snapshot = lag.takeSnapshot();
            count += snapshot.count();
            max = Math.max(max, snapshot.max(TimeUnit.SECONDS));
            for (CountAtBucket bucket : snapshot.histogramCounts()) {
                cumulative.merge(bucket.bucket(TimeUnit.SECONDS), bucket.count(), Double::sum);
            }
        }
        return new LagSummary(count, quantile(cumulative, count, 0.5), quantile(cumulative, count, 0.99), max);
    }

    /**
     * The upper bound in seconds of the bucket holding quantile {@code q}, as Prometheus' {@code histogram_quantile}
     * would bound it; empty without recordings or when it lies beyond the last bucket.
     */
    private static OptionalDouble quantile(TreeMap<Double, Double> cumulativeCounts, long count, double q) {
        if (count == 0) {
            return OptionalDouble.empty();
        }
        return cumulativeCounts.entrySet().stream()
                .filter(bucket -> bucket.getValue() >= q * count)
                .mapToDouble(bucket -> bucket.getKey())
                .findFirst();
    }

    /**
     * One rule's figures on this instance.
     *
     * @param lagP99Seconds the largest 99th percentile of the rule's expiry lag over the last 30 to 60 s among the
     *     tasks; empty without a command (of a lag above 0) in that time
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
     * @param maxSeconds the largest lag of the last 30 to 60 s; 0 without any
     */
    public record LagSummary(long count, OptionalDouble p50Seconds, OptionalDouble p99Seconds, double maxSeconds) {}
}

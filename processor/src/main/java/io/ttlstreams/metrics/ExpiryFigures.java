package io.ttlstreams.metrics;

import io.ttlstreams.processor.LagHistogram;
import io.ttlstreams.processor.TtlMetrics;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
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
        return TtlMetrics.total(metrics.get(), TtlMetrics.EMITTED);
    }

    /** Deletes confirmed by the change stream in the tasks this instance runs. */
    public double deletesConfirmed() {
        return TtlMetrics.total(metrics.get(), TtlMetrics.CONFIRMED);
    }

    /** Documents the tasks this instance runs gave up on. */
    public double deletesUnconfirmed() {
        return TtlMetrics.total(metrics.get(), TtlMetrics.UNCONFIRMED);
    }

    /** The expiry lag over all tasks and rules, from the histogram's buckets. */
    public LagSummary lagSummary() {
        Map<MetricName, ? extends Metric> all = metrics.get();
        String lag = TtlMetrics.EXPIRY_LAG_MS;
        long count = (long) TtlMetrics.values(all, lag + LagHistogram.COUNT).sum();
        Map<Long, Double> cumulative = new TreeMap<>();
        all.keySet().stream()
                .filter(name ->
                        name.group().equals(TtlMetrics.GROUP) && name.name().startsWith(lag + LagHistogram.BUCKET))
                .map(name -> name.name().substring((lag + LagHistogram.BUCKET).length()))
                .distinct()
                .forEach(bound -> cumulative.put(
                        Long.parseLong(bound),
                        TtlMetrics.values(all, lag + LagHistogram.BUCKET + bound)
                                .sum()));
        double max = TtlMetrics.values(all, lag + "-max").max().orElse(0) / 1000.0;
        return new LagSummary(
                count, quantile(cumulative, count, 0.5), quantile(cumulative, count, 0.99), Math.max(0, max));
    }

    /**
     * The upper bound in seconds of the bucket holding quantile {@code q}, as Prometheus' {@code histogram_quantile}
     * would bound it; empty without recordings or when it lies beyond the last bucket.
     */
    private static OptionalDouble quantile(Map<Long, Double> cumulativeCounts, long count, double q) {
        if (count == 0) {
            return OptionalDouble.empty();
        }
        double rank = q * count;
        for (Map.Entry<Long, Double> bucket : cumulativeCounts.entrySet()) {
            if (bucket.getValue() >= rank) {
                return OptionalDouble.of(bucket.getKey() / 1000.0);
            }
        }
        return OptionalDouble.empty();
    }

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

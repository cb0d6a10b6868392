package io.ttlstreams.http;

import io.ttlstreams.processor.TtlMetrics;
import org.apache.kafka.streams.KafkaStreams;

/** Sums of ttl-streams' task-level counters ({@link TtlMetrics}) over the tasks this instance runs. */
final class TaskMetricTotals {

    private static final String GROUP = "stream-" + TtlMetrics.SCOPE + "-metrics";

    private TaskMetricTotals() {}

    /** The sum of {@code <counter>-total} over the tasks; tasks that moved away no longer count. */
    static double total(KafkaStreams streams, String counter) {
        String name = counter + "-total";
        return streams.metrics().entrySet().stream()
                .filter(e ->
                        e.getKey().name().equals(name) && e.getKey().group().equals(GROUP))
                .map(e -> e.getValue().metricValue())
                .filter(Number.class::isInstance)
                .mapToDouble(value -> ((Number) value).doubleValue())
                .filter(Double::isFinite)
                .sum();
    }
}

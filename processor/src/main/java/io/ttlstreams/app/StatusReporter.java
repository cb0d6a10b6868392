package io.ttlstreams.app;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

import io.ttlstreams.processor.TtlMetrics;

/**
 * Prints one status line every few seconds from the processor's own metrics: documents scheduled
 * (net of cancellations and deletes since start), delete commands emitted, and the expiry lag.
 */
final class StatusReporter implements AutoCloseable {

    private final KafkaStreams streams;
    private final PrintStream out;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "ttl-streams-status");
        thread.setDaemon(true);
        return thread;
    });

    StatusReporter(KafkaStreams streams, PrintStream out) {
        this.streams = streams;
        this.out = out;
    }

    StatusReporter start(long periodSeconds) {
        timer.scheduleAtFixedRate(() -> out.println(statusLine()), periodSeconds, periodSeconds, TimeUnit.SECONDS);
        return this;
    }

    String statusLine() {
        Map<MetricName, ? extends Metric> metrics = streams.metrics();
        double scheduled = sum(metrics, TtlMetrics.SCHEDULED + "-total");
        double cancelled = sum(metrics, TtlMetrics.CANCELLED + "-total");
        double emitted = sum(metrics, TtlMetrics.EMITTED + "-total");
        return String.format("status: state=%s scheduled=%.0f cancelled=%.0f deletes-emitted=%.0f "
                + "dead-lettered=%.0f expiry-lag-ms p50=%.0f p99=%.0f",
                streams.state(), scheduled, cancelled, emitted, sum(metrics, TtlMetrics.DEAD_LETTERED + "-total"),
                max(metrics, TtlMetrics.EXPIRY_LAG_MS + "-p50"), max(metrics, TtlMetrics.EXPIRY_LAG_MS + "-p99"));
    }

    private static double sum(Map<MetricName, ? extends Metric> metrics, String name) {
        return values(metrics, name).sum();
    }

    /** Across tasks the worst percentile is the honest one to show. */
    private static double max(Map<MetricName, ? extends Metric> metrics, String name) {
        return values(metrics, name).max().orElse(0);
    }

    private static java.util.stream.DoubleStream values(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("stream-ttl-metrics"))
                .map(e -> e.getValue().metricValue())
                .filter(Number.class::isInstance)
                .mapToDouble(v -> ((Number) v).doubleValue())
                .filter(v -> !Double.isNaN(v));
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}

package io.ttlstreams.app;

import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.ScheduleQueries;
import io.ttlstreams.state.ScheduleStores;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.DoubleStream;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Prints one status line every few seconds: documents scheduled (the schedule store's size), due
 * (deadline passed, command not yet emitted), delete commands emitted, documents deleted (when the
 * caller can count them, as the embedded run can), and the expiry lag percentiles.
 */
final class StatusReporter implements AutoCloseable {

    /** Counting stops here: a status line must stay cheap even during a huge backlog. */
    private static final long COUNT_CAP = 1_000_000;

    private final KafkaStreams streams;
    private final PrintStream out;
    private final Clock clock;
    private final Supplier<OptionalLong> deleted;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "ttl-streams-status");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * @param deleted counts documents deleted from MongoDB; empty when that cannot be observed
     */
    StatusReporter(KafkaStreams streams, PrintStream out, Clock clock, Supplier<OptionalLong> deleted) {
        this.streams = streams;
        this.out = out;
        this.clock = clock;
        this.deleted = deleted;
    }

    StatusReporter start(long periodSeconds) {
        timer.scheduleAtFixedRate(() -> out.println(statusLine()), periodSeconds, periodSeconds, TimeUnit.SECONDS);
        return this;
    }

    String statusLine() {
        Map<MetricName, ? extends Metric> metrics = streams.metrics();
        StringBuilder line = new StringBuilder("status: state=").append(streams.state());
        scheduleStore()
                .ifPresent(store -> line.append(" scheduled=")
                        .append(store.approximateNumEntries())
                        .append(" due=")
                        .append(ScheduleQueries.due(store, clock.millis(), COUNT_CAP))
                        .append(" awaiting=")
                        .append(ScheduleQueries.awaitingConfirmation(store, COUNT_CAP)));
        line.append(String.format(" deletes-emitted=%.0f", sum(metrics, TtlMetrics.EMITTED + "-total")));
        deleted.get().ifPresent(count -> line.append(" deleted=").append(count));
        line.append(String.format(
                " confirmed=%.0f unconfirmed=%.0f dead-lettered=%.0f expiry-lag-ms p50=%.0f p99=%.0f"
                        + " confirmed-lag-ms p99=%.0f",
                sum(metrics, TtlMetrics.CONFIRMED + "-total"),
                sum(metrics, TtlMetrics.UNCONFIRMED + "-total"),
                sum(metrics, TtlMetrics.DEAD_LETTERED + "-total"),
                max(metrics, TtlMetrics.EXPIRY_LAG_MS + "-p50"),
                max(metrics, TtlMetrics.EXPIRY_LAG_MS + "-p99"),
                max(metrics, TtlMetrics.CONFIRMED_LAG_MS + "-p99")));
        return line.toString();
    }

    private Optional<ReadOnlyKeyValueStore<Bytes, ScheduleEntry>> scheduleStore() {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return Optional.empty();
        }
        try {
            return Optional.of(streams.store(StoreQueryParameters.fromNameAndType(
                    ScheduleStores.SCHEDULE, QueryableStoreTypes.<Bytes, ScheduleEntry>keyValueStore())));
        } catch (RuntimeException e) {
            return Optional.empty(); // rebalancing: the next line will tell
        }
    }

    private static double sum(Map<MetricName, ? extends Metric> metrics, String name) {
        return values(metrics, name).sum();
    }

    /** Across tasks the worst percentile is the honest one to show. */
    private static double max(Map<MetricName, ? extends Metric> metrics, String name) {
        return values(metrics, name).max().orElse(0);
    }

    private static DoubleStream values(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e ->
                        e.getKey().name().equals(name) && e.getKey().group().equals("stream-ttl-metrics"))
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

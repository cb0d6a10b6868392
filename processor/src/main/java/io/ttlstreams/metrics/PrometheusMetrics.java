package io.ttlstreams.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Response;
import io.ttlstreams.processor.TtlMetrics;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The Micrometer registry that {@code GET /metrics} exposes in Prometheus text format: Kafka Streams' metrics
 * ({@link KafkaStreamsMetrics}), the JVM's, ttl-streams' task-level sensors ({@link TtlStreamsCollector}, read from
 * the same Kafka metrics that JMX shows), and the gauges the other capabilities register on {@link #registry()}
 * ({@link ScheduleMetrics}, the connector and freshness gauges).
 */
public final class PrometheusMetrics implements AutoCloseable {

    /** The binder's view of ttl-streams' own group: the {@link TtlStreamsCollector} exports it, under ttl_ names. */
    private static final String TTL_GROUP_METERS =
            "kafka." + TtlMetrics.GROUP.replace("-metrics", "").replace('-', '.') + ".";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    private KafkaStreamsMetrics streamsMetrics;
    private JvmGcMetrics gc;

    public PrometheusMetrics() {
        registry.config().meterFilter(MeterFilter.denyNameStartsWith(TTL_GROUP_METERS));
    }

    /** Where the capabilities register their meters. */
    public MeterRegistry registry() {
        return registry;
    }

    /** Binds the metrics of {@code streams}, ttl-streams' among them, and those of the JVM. */
    public void bind(KafkaStreams streams) {
        streamsMetrics = new KafkaStreamsMetrics(streams);
        streamsMetrics.bindTo(registry);
        gc = new JvmGcMetrics();
        gc.bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        registry.getPrometheusRegistry().register(new TtlStreamsCollector(streams::metrics));
    }

    /** Serves {@code GET /metrics} on {@code server}. */
    public void register(OperationsServer server) {
        server.serve(
                OperationsServer.METRICS_PATH,
                request -> new Response(
                        200,
                        OperationsServer.PROMETHEUS_TEXT,
                        registry.scrape(OperationsServer.PROMETHEUS_TEXT).getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public void close() {
        if (gc != null) {
            gc.close();
        }
        if (streamsMetrics != null) {
            streamsMetrics.close();
        }
        registry.close();
    }
}

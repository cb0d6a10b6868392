package io.ttlstreams.metrics;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jmx.JmxReporter;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Response;
import io.ttlstreams.processor.TtlMetrics;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.streams.KafkaStreams;

/**
 * This instance's Micrometer registries. {@code GET /metrics} exposes {@link #registry()} in Prometheus text format:
 * Kafka Streams' metrics ({@link KafkaStreamsMetrics}), the JVM's, the gauges the other capabilities register on it
 * ({@link ScheduleMetrics}, the connector and freshness gauges), and ttl-streams' own counters and lag timers, which
 * the processors record into {@link #events()} ({@link TtlMetrics}). That registry sends each of them to Prometheus
 * and to JMX, where Kafka's reporter showed the Kafka sensors they replace: MBeans {@code
 * kafka.streams:type=stream-ttl-metrics,ttl-id=<task>[,rule=<rule>|,reason=<reason>],name=<name>}, a counter with
 * {@code Count} and rates, a lag ({@code <name>} {@code expiry-lag-ms}, {@code confirmed-lag-ms}) with {@code Count},
 * {@code Max}, {@code Mean} and percentiles in ms.
 */
public final class PrometheusMetrics implements AutoCloseable {

    /** The JMX domain and type of ttl-streams' meters. */
    static final String JMX_DOMAIN = "kafka.streams";

    static final String JMX_TYPE = "stream-ttl-metrics";

    /** The JMX key of the task tag, as the Kafka sensors had it. */
    static final String JMX_TASK_KEY = "ttl-id";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JmxMeterRegistry jmx;
    private final CompositeMeterRegistry events;

    private KafkaStreamsMetrics streamsMetrics;
    private JvmGcMetrics gc;

    /** Registries whose JMX meters go to the platform MBean server. */
    public PrometheusMetrics() {
        this(ManagementFactory.getPlatformMBeanServer());
    }

    /** Registries whose JMX meters go to {@code mbeans}. */
    public PrometheusMetrics(MBeanServer mbeans) {
        MetricRegistry dropwizard = new MetricRegistry();
        JmxReporter reporter = JmxReporter.forRegistry(dropwizard)
                .registerWith(mbeans)
                .createsObjectNamesWith((type, domain, name) -> objectName(name))
                .build();
        jmx = new JmxMeterRegistry(JmxConfig.DEFAULT, Clock.SYSTEM, PrometheusMetrics::jmxName, dropwizard, reporter);
        // JMX shows a lag's percentiles from Dropwizard's own reservoir: Micrometer's buckets and percentiles, which
        // Prometheus and the status line read, need not be kept a second time.
        jmx.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                return DistributionStatisticConfig.builder()
                        .percentiles(new double[0])
                        .serviceLevelObjectives(new double[0])
                        .build()
                        .merge(config);
            }
        });
        events = new CompositeMeterRegistry(Clock.SYSTEM, List.of(registry, jmx));
        // Present from the start, as Prometheus wants, though no punctuation or send may have failed yet.
        TtlMetrics.instanceCounter(events, TtlMetrics.PUNCTUATION_FAILURES, Map.of());
        TtlMetrics.instanceCounter(events, TtlMetrics.SEND_FAILURES, Map.of());
    }

    /** The MBean name of a ttl-streams meter: its tags as keys (the task as {@value #JMX_TASK_KEY}), then its name. */
    private static String jmxName(Meter.Id id, NamingConvention ignored) {
        StringBuilder name = new StringBuilder(JMX_DOMAIN).append(":type=").append(JMX_TYPE);
        for (Tag tag : id.getTagsAsIterable()) {
            String key = tag.getKey().equals(TtlMetrics.TASK_TAG) ? JMX_TASK_KEY : tag.getKey();
            name.append(',').append(key).append('=').append(jmxValue(tag.getValue()));
        }
        String metric = id.getName().substring("ttl.".length()).replace('.', '-');
        return name.append(",name=")
                .append(id.getType() == Meter.Type.TIMER ? metric + "-ms" : metric)
                .toString();
    }

    private static ObjectName objectName(String name) {
        try {
            return ObjectName.getInstance(name);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("Not an MBean name (its values are quoted as needed): " + name, e);
        }
    }

    /** A tag's value as an MBean key's: quoted when it holds more than letters, digits, '_', '-' and '.'. */
    private static String jmxValue(String value) {
        return value.matches("[-\\w.]*") ? value : ObjectName.quote(value);
    }

    /** What {@code GET /metrics} shows, and where the capabilities register their gauges. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * Where the processors record ttl-streams' events ({@link TtlMetrics}): each meter is shown by {@code GET
     * /metrics} and in JMX. Kafka Streams' configs carry it to them ({@value TtlMetrics#REGISTRY_CONFIG}).
     */
    public MeterRegistry events() {
        return events;
    }

    /** Binds the metrics of {@code streams} and those of the JVM. */
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
        events.close();
        jmx.close();
        registry.close();
    }
}

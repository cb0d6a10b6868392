package io.ttlstreams.app;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ManagedConnectors;
import io.ttlstreams.health.ConnectorMonitor;
import io.ttlstreams.health.Dependencies;
import io.ttlstreams.health.Health;
import io.ttlstreams.health.SourceFreshness;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.metrics.PrometheusMetrics;
import io.ttlstreams.metrics.ScheduleMetrics;
import io.ttlstreams.query.LocalSchedule;
import io.ttlstreams.query.PeerClient;
import io.ttlstreams.query.ScheduleEndpoints;
import io.ttlstreams.status.StatusEndpoint;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processor's HTTP surface, wired: the transport ({@link OperationsServer}) with every capability registered on
 * it, as {@code run} starts it beside Kafka Streams.
 *
 * <ul>
 *   <li>{@code GET /health/live}, {@code GET /health/ready}, {@code GET /health/dependencies}: 200 or 503, with the
 *       reasons ({@link Health}, {@link Dependencies});</li>
 *   <li>{@code GET /metrics}: Prometheus text format from Micrometer ({@link PrometheusMetrics}, with {@link
 *       ScheduleMetrics}, {@link ConnectorMonitor}, {@link SourceFreshness});</li>
 *   <li>{@code GET /v1/documents/{namespace}/{documentKey}} and {@code GET /v1/schedule}
 *       ({@link ScheduleEndpoints});</li>
 *   <li>{@code GET /v1/status} and {@code GET /}, the status page ({@link StatusEndpoint}).</li>
 * </ul>
 */
public final class OperationsSurface implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OperationsSurface.class);

    private final TtlStreamsConfig config;
    private final Optional<ManagedConnectors> connectors;
    private final OperationsServer server;
    private final PrometheusMetrics metrics = new PrometheusMetrics();
    /** Closed in reverse order of creation: the threads that use the admin client stop before it closes. */
    private final List<AutoCloseable> resources = new ArrayList<>();

    private OperationsSurface(
            TtlStreamsConfig config, Optional<ManagedConnectors> connectors, OperationsServer server) {
        this.config = config;
        this.connectors = connectors;
        this.server = server;
    }

    /**
     * Binds the HTTP port ({@code ttl.http.bind.address}, {@code ttl.http.port}) without serving yet.
     *
     * @param connectors the Kafka Connect connectors to watch; empty for none
     * @throws ConfigException when the port cannot be bound, or {@code application.server} names another port
     */
    public static OperationsSurface bind(TtlStreamsConfig config, Optional<ManagedConnectors> connectors) {
        return new OperationsSurface(config, connectors, OperationsServer.bind(config));
    }

    /** This instance's meters: what {@code /metrics} and JMX show, and where the processors record. */
    public PrometheusMetrics metrics() {
        return metrics;
    }

    /** {@code host:port} for Kafka Streams' {@code application.server}. */
    public String applicationServer() {
        return server.applicationServer();
    }

    /** Where a person on this machine opens the status page. */
    public URI url() {
        return server.url();
    }

    /**
     * Starts serving for {@code streams} (created with this surface's {@link #applicationServer()}), and starts
     * checking the connectors and the sources' freshness every {@code ttl.health.interval.ms}.
     */
    public void start(KafkaStreams streams) {
        Clock clock = Clock.systemUTC();
        metrics.bind(streams);
        LocalSchedule local = new LocalSchedule(streams, config.expiryEvents());
        ScheduleMetrics schedule = new ScheduleMetrics(local, metrics.registry(), clock);
        Optional<ConnectorMonitor> monitor =
                connectors.map(managed -> new ConnectorMonitor(managed, metrics.registry()));
        Admin admin = Admin.create(new StreamsConfig(config.streamsProperties()).getAdminConfigs("ttl-streams-ops"));
        // Closing must not wait for a freshness check stuck on an unreachable broker.
        resources.add(() -> admin.close(Duration.ofSeconds(1)));
        SourceFreshness freshness = new SourceFreshness(config, admin, metrics.registry(), clock);
        Dependencies dependencies = new Dependencies(monitor, freshness, config.sourceStaleAfter(), metrics.registry());
        Health health = new Health(streams::state, local::unqueryable, local::holdReasons, dependencies::problems);

        health.register(server);
        metrics.register(server);
        PeerClient peers = new PeerClient(server.forwardingHeader());
        resources.add(peers);
        new ScheduleEndpoints(streams, local, server.self(), peers, clock).register(server);
        new StatusEndpoint(streams, server.self(), health, schedule, metrics.registry(), dependencies).register(server);

        resources.add(dependencies.start(config.healthInterval()));
        server.start();
    }

    /** Stops serving and checking. The port is free again when this returns. */
    @Override
    public void close() {
        server.close();
        for (int i = resources.size() - 1; i >= 0; i--) {
            AutoCloseable resource = resources.get(i);
            try {
                resource.close();
            } catch (Exception e) {
                LOG.debug("Closing {} failed", resource, e);
            }
        }
        resources.clear();
        metrics.close();
    }
}

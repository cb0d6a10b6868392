package io.ttlstreams.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ttlstreams.config.HttpOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ManagedConnectors;
import io.ttlstreams.processor.ExpiryListener;
import io.ttlstreams.processor.ProcessingFailures;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.rules.TtlRule;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processor's HTTP surface, on the JDK's own {@link HttpServer} (a handful of GET endpoints at probe and scrape
 * rates need no framework, and the production image gains no dependency):
 *
 * <ul>
 *   <li>{@code GET /health/live}, {@code GET /health/ready}: 200 or 503, with the reasons ({@link Health});</li>
 *   <li>{@code GET /metrics}: Prometheus text format from Micrometer, with Kafka Streams' metrics
 *       ({@link KafkaStreamsMetrics}), the JVM's, and ttl-streams' own ({@link ExpiryMetrics},
 *       {@link ScheduleMetrics}, {@link ConnectorMonitor}, {@link SourceFreshness});</li>
 *   <li>{@code GET /v1/documents/{namespace}/{documentKey}} and {@code GET /v1/schedule}
 *       ({@link ScheduleEndpoints});</li>
 *   <li>{@code GET /v1/status} and {@code GET /}, the status page ({@link StatusEndpoint}).</li>
 * </ul>
 *
 * <p>Bound before Kafka Streams is created, since its address is Kafka Streams' {@code application.server}: the
 * address other instances forward queries to. Started with the Kafka Streams instance it reports on.
 *
 * <p>Every request is hostile input until checked: its head must arrive within {@code ttl.http.request.timeout.ms}
 * ({@link ExchangeThreads}), its target is at most {@value #MAX_TARGET_LENGTH} characters, at most {@value
 * #QUERY_PERMITS} queries run at once so that probes always find a thread, and with {@code ttl.http.auth.token} set
 * the queries and the status page ask for it ({@link HttpAuth}).
 */
public final class OperationsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OperationsServer.class);

    /** Liveness: 200 unless Kafka Streams stopped for good. */
    public static final String LIVE_PATH = "/health/live";
    /** Readiness: 200 when Kafka Streams is RUNNING and every watched connector task too. */
    public static final String READY_PATH = "/health/ready";
    /** Prometheus text format. */
    public static final String METRICS_PATH = "/metrics";
    /** The Prometheus text exposition format, version 0.0.4, which every Prometheus scrapes. */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    /**
     * Threads reading and answering requests: more than the queries may use ({@link #QUERY_PERMITS}), so that probes
     * and scrapes are answered while queries run, and while a few clients are slow to send their requests (each holds
     * a thread for at most {@code ttl.http.request.timeout.ms}).
     */
    private static final int EXCHANGE_THREADS = 16;
    /** Connections waiting for a thread; beyond, new connections are closed. */
    private static final int EXCHANGE_QUEUE = 64;
    /** Schedule queries and status reports (range scans) computed at once; more are answered 503. */
    static final int QUERY_PERMITS = 4;
    /** The longest request target (path and query) read: a document key fits many times over. */
    static final int MAX_TARGET_LENGTH = 8_192;

    private final TtlStreamsConfig config;
    private final Optional<ManagedConnectors> connectors;
    private final HttpServer server;
    private final HostInfo self;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ExpiryMetrics expiries;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final HttpAuth auth;
    private final Semaphore queries = new Semaphore(QUERY_PERMITS);
    private ExchangeThreads threads;
    private volatile Routes routes;

    private OperationsServer(
            TtlStreamsConfig config, Optional<ManagedConnectors> connectors, HttpServer server, HostInfo self) {
        this.config = config;
        this.connectors = connectors;
        this.server = server;
        this.self = self;
        this.auth = HttpAuth.of(config);
        this.expiries = new ExpiryMetrics(
                registry, config.rules().rules().stream().map(TtlRule::name).toList());
    }

    /**
     * Binds the HTTP port ({@code ttl.http.bind.address}, {@code ttl.http.port}) without serving yet.
     *
     * @param connectors the Kafka Connect connectors to watch; empty for none
     * @throws ConfigException when the port cannot be bound, or {@code application.server} names another port
     */
    public static OperationsServer bind(TtlStreamsConfig config, Optional<ManagedConnectors> connectors) {
        InetSocketAddress address = new InetSocketAddress(config.httpBindAddress(), config.httpPort());
        HttpServer server;
        try {
            server = HttpServer.create(address, 0);
        } catch (IOException e) {
            throw new ConfigException(
                    HttpOptions.HTTP_PORT_CONFIG,
                    config.httpPort(),
                    "Cannot listen on " + config.httpBindAddress() + ":" + config.httpPort() + ": " + e.getMessage());
        }
        try {
            return new OperationsServer(config, connectors, server, advertised(config, server.getAddress()));
        } catch (RuntimeException e) {
            server.stop(0);
            throw e;
        }
    }

    /**
     * The address other instances reach this one at: {@code application.server} when the configuration sets it (its
     * port must be the one bound), else the bind address, or this host's address when binding every interface.
     */
    private static HostInfo advertised(TtlStreamsConfig config, InetSocketAddress bound) {
        String configured = config.streamsProperties().getProperty(StreamsConfig.APPLICATION_SERVER_CONFIG);
        if (configured != null && !configured.isBlank()) {
            HostInfo host;
            try {
                host = HostInfo.buildFromEndpoint(configured);
            } catch (RuntimeException e) {
                throw new ConfigException(StreamsConfig.APPLICATION_SERVER_CONFIG, configured, e.getMessage());
            }
            if (host.port() != bound.getPort()) {
                throw new ConfigException(
                        StreamsConfig.APPLICATION_SERVER_CONFIG,
                        configured,
                        "Its port must be the HTTP server's, " + bound.getPort() + " (" + HttpOptions.HTTP_PORT_CONFIG
                                + "): other instances forward queries there");
            }
            return host;
        }
        InetAddress address = bound.getAddress();
        if (!address.isAnyLocalAddress()) {
            return new HostInfo(address.getHostAddress(), bound.getPort());
        }
        try {
            return new HostInfo(InetAddress.getLocalHost().getHostAddress(), bound.getPort());
        } catch (UnknownHostException e) {
            throw new ConfigException(
                    StreamsConfig.APPLICATION_SERVER_CONFIG,
                    null,
                    "This host's address is unknown (" + e.getMessage()
                            + "): set application.server to host:port where other instances reach this one");
        }
    }

    /** {@code host:port} for Kafka Streams' {@code application.server}. */
    public String applicationServer() {
        return PeerClient.hostPort(self);
    }

    /** Where a person on this machine opens the status page. */
    public URI url() {
        InetAddress address = server.getAddress().getAddress();
        String host = address.isAnyLocalAddress() ? "localhost" : address.getHostAddress();
        return URI.create("http://"
                + PeerClient.hostPort(new HostInfo(host, server.getAddress().getPort())) + "/");
    }

    /** Hears the scheduler's emissions for the expiry-lag histogram; pass it to the topology's settings. */
    public ExpiryListener expiryListener() {
        return expiries;
    }

    /**
     * Starts serving for {@code streams} (created with this server's {@link #applicationServer()}), and starts
     * checking the connectors and the sources' freshness every {@code ttl.health.interval.ms}.
     *
     * @param failures the records Kafka Streams' exception handler dead-lettered, counted with the scheduler's own
     */
    public void start(KafkaStreams streams, ProcessingFailures failures) {
        Clock clock = Clock.systemUTC();
        KafkaStreamsMetrics streamsMetrics = new KafkaStreamsMetrics(streams);
        streamsMetrics.bindTo(registry);
        resources.add(streamsMetrics);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        resources.add(gc);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        DoubleSupplier deadLettered =
                () -> TtlMetrics.total(streams.metrics(), TtlMetrics.DEAD_LETTERED) + failures.recordFailures();
        FunctionCounter.builder("ttl.events.dead.lettered", deadLettered, DoubleSupplier::getAsDouble)
                .description("Records sent to the dead-letter topic by this instance: change events the scheduler"
                        + " could not apply and records whose processing failed")
                .register(registry);

        LocalSchedule local = new LocalSchedule(streams);
        ScheduleMetrics schedule = new ScheduleMetrics(local, registry, clock);
        Optional<ConnectorMonitor> monitor = connectors.map(managed -> new ConnectorMonitor(managed, registry));
        Admin admin = Admin.create(new StreamsConfig(config.streamsProperties()).getAdminConfigs("ttl-streams-ops"));
        // Closing must not wait for a freshness check stuck on an unreachable broker.
        resources.add(() -> admin.close(Duration.ofSeconds(1)));
        SourceFreshness freshness = new SourceFreshness(config, admin, registry, clock);
        Health health = new Health(streams::state, monitor);
        routes = new Routes(
                health,
                new ScheduleEndpoints(streams, local, self, new PeerClient(auth.forwardingHeader()), clock),
                new StatusEndpoint(streams, self, health, schedule, expiries, deadLettered, monitor, freshness));

        ScheduledExecutorService checks =
                Executors.newSingleThreadScheduledExecutor(ExchangeThreads.daemon("ttl-streams-health"));
        resources.add(checks::shutdownNow);
        long interval = config.healthInterval().toMillis();
        checks.scheduleWithFixedDelay(
                () -> {
                    try {
                        if (monitor.isPresent()) {
                            monitor.get().check();
                        }
                        freshness.check();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        LOG.warn("Health check failed: {}", e.toString());
                    }
                },
                0,
                interval,
                TimeUnit.MILLISECONDS);

        threads = new ExchangeThreads(EXCHANGE_THREADS, EXCHANGE_QUEUE, config.httpRequestTimeout());
        resources.add(threads);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
        LOG.info("HTTP server listening on {} (application.server {})", server.getAddress(), applicationServer());
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!threads.headRead()) {
                return;
            }
            String method = exchange.getRequestMethod();
            boolean head = method.equals("HEAD");
            URI uri = exchange.getRequestURI();
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
            Response response;
            if (!head && !method.equals("GET")) {
                exchange.getResponseHeaders().add("Allow", "GET, HEAD");
                response = Response.error(405, "Only GET and HEAD are served");
            } else if (path.length() + query.length() > MAX_TARGET_LENGTH) {
                response = Response.error(414, "The path and query exceed " + MAX_TARGET_LENGTH + " characters");
            } else if (auth.protects(path)
                    && !auth.accepts(exchange.getRequestHeaders().getFirst("Authorization"))) {
                exchange.getResponseHeaders().add("WWW-Authenticate", HttpAuth.challenge(path));
                response = Response.error(401, "This endpoint needs ttl.http.auth.token (Authorization: Bearer)");
            } else {
                response = respond(
                        new Request(path, query, exchange.getRequestHeaders().containsKey(Request.FORWARDED_HEADER)));
            }
            if (response.status() >= 400) {
                LOG.debug("HTTP {} {} answered {}", method, shown(path), response.status());
            }
            exchange.getResponseHeaders().add("Content-Type", response.contentType());
            exchange.getResponseHeaders().add("Cache-Control", "no-store");
            if (head) {
                exchange.sendResponseHeaders(response.status(), -1);
                return;
            }
            exchange.sendResponseHeaders(response.status(), response.body().length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(response.body());
            }
        }
    }

    /** The response to one request: its endpoint's, or an error naming what went wrong. */
    Response respond(Request request) {
        Routes current = routes;
        try {
            return current.route(request, this);
        } catch (IllegalArgumentException e) {
            return Response.error(400, e.getMessage());
        } catch (InvalidStateStoreException e) {
            return Response.error(
                    503,
                    "The schedule cannot be queried now (Kafka Streams is not RUNNING or is" + " rebalancing): "
                            + e.getMessage());
        } catch (IOException e) {
            return Response.error(502, "Another instance did not answer: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Response.error(503, "Interrupted");
        } catch (RuntimeException e) {
            // One line: a request that finds a bug must not write a stack trace per request; DEBUG has it.
            LOG.warn("HTTP {} failed: {}", shown(request.rawPath()), e.toString());
            LOG.debug("HTTP {} failed", shown(request.rawPath()), e);
            return Response.error(500, "Internal error (" + e.getClass().getSimpleName() + "); see the log");
        }
    }

    /** An endpoint that scans the stores or asks other instances. */
    @FunctionalInterface
    private interface Query {
        Response answer() throws IOException, InterruptedException;
    }

    /** Answers {@code query} when fewer than {@link #QUERY_PERMITS} run, else 503: probes never wait behind them. */
    private Response query(Query query) throws IOException, InterruptedException {
        if (!queries.tryAcquire()) {
            return Response.error(503, QUERY_PERMITS + " queries are being answered; retry shortly");
        }
        try {
            return query.answer();
        } finally {
            queries.release();
        }
    }

    private Response metrics() {
        return new Response(
                200, PROMETHEUS_TEXT, registry.scrape(PROMETHEUS_TEXT).getBytes(StandardCharsets.UTF_8));
    }

    /** The endpoints, once started. */
    private record Routes(Health health, ScheduleEndpoints schedule, StatusEndpoint status) {

        Response route(Request request, OperationsServer server) throws IOException, InterruptedException {
            String path = request.rawPath();
            if (path.startsWith(ScheduleEndpoints.DOCUMENTS_PREFIX)) {
                return server.query(() -> schedule.document(request));
            }
            return switch (path) {
                case "/", "/index.html" -> status.page();
                case LIVE_PATH -> probe(health.live());
                case READY_PATH -> probe(health.ready());
                case METRICS_PATH -> server.metrics();
                case StatusEndpoint.STATUS_PATH -> server.query(status::status);
                case ScheduleEndpoints.SCHEDULE_PATH -> server.query(() -> schedule.schedule(request));
                default -> Response.error(404, "No endpoint at " + path);
            };
        }

        private static Response probe(Health.Report report) {
            return Response.json(report.up() ? 200 : 503, report.toJson());
        }
    }

    /** A path as a log line shows it: the start of a long one. */
    private static String shown(String path) {
        return path.length() <= 200 ? path : path.substring(0, 200) + "... (" + path.length() + " characters)";
    }

    /** Stops serving and checking. The port is free again when this returns. */
    @Override
    public void close() {
        server.stop(0);
        // In reverse order of creation: the threads that use the admin client stop before it closes.
        for (int i = resources.size() - 1; i >= 0; i--) {
            AutoCloseable resource = resources.get(i);
            try {
                resource.close();
            } catch (Exception e) {
                LOG.debug("Closing {} failed", resource, e);
            }
        }
        resources.clear();
        registry.close();
    }
}

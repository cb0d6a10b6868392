package io.ttlstreams.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processor's HTTP transport, on the JDK's own {@link HttpServer} (a handful of GET endpoints at probe and scrape
 * rates need no framework, and the production image gains no dependency): it reads requests, checks them, and hands
 * each to the {@link Handler} registered for its path. The capabilities register their endpoints here before
 * {@link #start()}: health ({@code io.ttlstreams.health}), metrics ({@code io.ttlstreams.metrics}), schedule queries
 * ({@code io.ttlstreams.query}) and the status page ({@code io.ttlstreams.status}); the transport knows none of them.
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
    /** Readiness: 200 when this instance's Kafka Streams processes and its stores answer queries. */
    public static final String READY_PATH = "/health/ready";
    /** Prometheus text format. */
    public static final String METRICS_PATH = "/metrics";
    /** The Prometheus text exposition format, version 0.0.4, which every Prometheus scrapes. */
    public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    /**
     * Threads reading and answering requests: more than the queries may use ({@link #QUERY_PERMITS}), so that probes
     * and scrapes are answered while queries run, and while a few clients are slow to send their requests (each holds
     * a thread for at most {@code ttl.http.request.timeout.ms}).
     */
    private static final int EXCHANGE_THREADS = 16;
    /** Connections waiting for a thread; beyond, new connections are closed. */
    private static final int EXCHANGE_QUEUE = 64;
    /** Schedule queries and status reports (range scans) computed at once; more are answered 503. */
    public static final int QUERY_PERMITS = 4;
    /** The longest request target (path and query) read: a document key fits many times over. */
    public static final int MAX_TARGET_LENGTH = 8_192;

    private final TtlStreamsConfig config;
    private final HttpServer server;
    private final HostInfo self;
    private final HttpAuth auth;
    private final Semaphore queries = new Semaphore(QUERY_PERMITS);
    private final Map<String, Handler> exact = new HashMap<>();
    private final List<Map.Entry<String, Handler>> prefixes = new ArrayList<>();
    private ExchangeThreads threads;

    private OperationsServer(TtlStreamsConfig config, HttpServer server, HostInfo self) {
        this.config = config;
        this.server = server;
        this.self = self;
        this.auth = HttpAuth.of(config);
    }

    /**
     * Binds the HTTP port ({@code ttl.http.bind.address}, {@code ttl.http.port}) without serving yet.
     *
     * @throws ConfigException when the port cannot be bound, or {@code application.server} names another port
     */
    public static OperationsServer bind(TtlStreamsConfig config) {
        InetSocketAddress address = new InetSocketAddress(config.httpBindAddress(), config.httpPort());
        HttpServer server;
        try {
            server = HttpServer.create(address, 0);
        } catch (IOException e) {
            throw new ConfigException(
                    OperationsOptions.HTTP_PORT_CONFIG,
                    config.httpPort(),
                    "Cannot listen on " + config.httpBindAddress() + ":" + config.httpPort() + ": " + e.getMessage());
        }
        try {
            return new OperationsServer(config, server, advertised(config, server.getAddress()));
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
                        "Its port must be the HTTP server's, " + bound.getPort() + " ("
                                + OperationsOptions.HTTP_PORT_CONFIG + "): other instances forward queries there");
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
        return hostPort(self);
    }

    /** Where a person on this machine opens the status page. */
    public URI url() {
        InetAddress address = server.getAddress().getAddress();
        String host = address.isAnyLocalAddress() ? "localhost" : address.getHostAddress();
        return URI.create(
                "http://" + hostPort(new HostInfo(host, server.getAddress().getPort())) + "/");
    }

    /** This instance as other instances reach it: its {@code application.server}. */
    public HostInfo self() {
        return self;
    }

    /** The {@code Authorization} header that forwards a query to another instance; empty without a token. */
    public Optional<String> forwardingHeader() {
        return auth.forwardingHeader();
    }

    /** {@code host:port}, with an IPv6 address in brackets. */
    public static String hostPort(HostInfo host) {
        return (host.host().contains(":") ? "[" + host.host() + "]" : host.host()) + ":" + host.port();
    }

    /** Serves {@code path} (exactly) with {@code handler}; before {@link #start()}. */
    public void serve(String path, Handler handler) {
        exact.put(path, handler);
    }

    /**
     * Serves {@code path} with {@code handler} as a query: one that scans the stores or asks other instances, answered
     * when fewer than {@value #QUERY_PERMITS} run, else 503, so that probes never wait behind queries.
     */
    public void serveQuery(String path, Handler handler) {
        serve(path, limited(handler));
    }

    /** Serves every path under {@code prefix} with {@code handler} as a query ({@link #serveQuery}). */
    public void serveQueriesUnder(String prefix, Handler handler) {
        prefixes.add(Map.entry(prefix, limited(handler)));
    }

    /** Starts serving the registered endpoints. */
    public void start() {
        threads = new ExchangeThreads(EXCHANGE_THREADS, EXCHANGE_QUEUE, config.httpRequestTimeout());
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
        try {
            return handler(request.rawPath()).answer(request);
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

    private Handler handler(String path) {
        for (Map.Entry<String, Handler> prefix : prefixes) {
            if (path.startsWith(prefix.getKey())) {
                return prefix.getValue();
            }
        }
        return exact.getOrDefault(path, request -> Response.error(404, "No endpoint at " + path));
    }

    private Handler limited(Handler handler) {
        return request -> {
            if (!queries.tryAcquire()) {
                return Response.error(503, QUERY_PERMITS + " queries are being answered; retry shortly");
            }
            try {
                return handler.answer(request);
            } finally {
                queries.release();
            }
        };
    }

    /** A path as a log line shows it: the start of a long one. */
    private static String shown(String path) {
        return path.length() <= 200 ? path : path.substring(0, 200) + "... (" + path.length() + " characters)";
    }

    /** Stops serving. The port is free again when this returns. */
    @Override
    public void close() {
        server.stop(0);
        if (threads != null) {
            threads.close();
        }
    }
}

package io.ttlstreams.http;

import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.http.pathmap.PathSpec;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.server.handler.SizeLimitHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processor's HTTP transport, on Jetty's core server (no servlets): it reads requests within Jetty's limits,
 * checks the method and the token, and routes each to the {@link Handler} registered for its path. The capabilities
 * register their endpoints here before {@link #start()}: health ({@code io.ttlstreams.health}), metrics ({@code
 * io.ttlstreams.metrics}), schedule queries ({@code io.ttlstreams.query}) and the status page ({@code
 * io.ttlstreams.status}); the transport knows none of them.
 *
 * <p>Bound before Kafka Streams is created, since its address is Kafka Streams' {@code application.server}: the
 * address other instances forward queries to. Started with the Kafka Streams instance it reports on.
 *
 * <p>Every request is hostile input until checked, and Jetty's own limits do the checking: a connection silent for
 * {@code ttl.http.request.timeout.ms} is closed (its idle timeout; a half-sent request holds no thread meanwhile, as
 * Jetty reads without blocking), and so is one whose head has not arrived whole that long after it opened ({@link
 * HeadDeadline}), at most {@value #MAX_CONNECTIONS} connections are open at once, the request line and
 * headers are at most {@value #MAX_HEAD_BYTES} bytes (414, 431), a request carries no body (413), at most {@value
 * #QUERY_PERMITS} queries ({@code /v1/*}) run at once, more are answered 503 ({@link QoSHandler}) so that probes
 * always find a thread, and with {@code ttl.http.auth.token} set the queries and the status page ask for it ({@link
 * HttpAuth}). Every answer, Jetty's own errors included, is JSON but for the page and the metrics.
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
    /** Where the queries are served: every path under it is one. */
    public static final String QUERIES_PATH = "/v1/";

    /**
     * Threads answering requests, Jetty's acceptor and selector included: more than the queries may use ({@link
     * #QUERY_PERMITS}), so that probes and scrapes are answered while queries run.
     */
    private static final int THREADS = 16;
    /** Schedule queries and status reports (range scans) computed at once; more are answered 503. */
    public static final int QUERY_PERMITS = 4;
    /** Connections open at once; more wait in the listen backlog until one closes. */
    public static final int MAX_CONNECTIONS = 256;
    /** The longest request line and headers, together: a document key fits many times over. */
    public static final int MAX_HEAD_BYTES = 8_192;

    private final Server server;
    private final ServerConnector connector;
    private final HostInfo self;
    private final HttpAuth auth;
    private final PathMappingsHandler routes = new PathMappingsHandler();

    private OperationsServer(TtlStreamsConfig config, Server server, ServerConnector connector, HostInfo self) {
        this.server = server;
        this.connector = connector;
        this.self = self;
        this.auth = new HttpAuth(config);
    }

    /**
     * Binds the HTTP port ({@code ttl.http.bind.address}, {@code ttl.http.port}) without serving yet.
     *
     * @throws ConfigException when the port cannot be bound, or {@code application.server} names another port
     */
    public static OperationsServer bind(TtlStreamsConfig config) {
        QueuedThreadPool threads = new QueuedThreadPool(THREADS, 2);
        threads.setName("ttl-streams-http");
        threads.setDaemon(true);
        threads.setReservedThreads(0);
        Server server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(MAX_HEAD_BYTES);
        http.setSendServerVersion(false);
        // One request per connection, so that one deadline from its opening bounds its head (HeadDeadline); probes and
        // scrapes come seconds apart, where a new connection costs nothing that matters.
        http.setPersistentConnectionsEnabled(false);
        // A document key is one path segment: a '/' or '%' inside it arrives percent-encoded, which Jetty's default
        // compliance refuses as ambiguous. Nothing here maps a path to a file, and the routing decodes it once.
        http.setUriCompliance(UriCompliance.DEFAULT.with(
                "ttl-streams",
                UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR,
                UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING));
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(config.httpBindAddress());
        connector.setPort(config.httpPort());
        connector.setIdleTimeout(config.httpRequestTimeout().toMillis());
        connector.addBean(new HeadDeadline(connector.getScheduler(), config.httpRequestTimeout()));
        server.addConnector(connector);
        server.addBean(new NetworkConnectionLimit(MAX_CONNECTIONS, connector));
        try {
            connector.open();
        } catch (IOException e) {
            throw new ConfigException(
                    OperationsOptions.HTTP_PORT_CONFIG,
                    config.httpPort(),
                    "Cannot listen on " + config.httpBindAddress() + ":" + config.httpPort() + ": " + e.getMessage());
        }
        try {
            return new OperationsServer(config, server, connector, advertised(config, bound(connector)));
        } catch (RuntimeException e) {
            connector.close();
            throw e;
        }
    }

    private static InetSocketAddress bound(ServerConnector connector) {
        try {
            return (InetSocketAddress) ((ServerSocketChannel) connector.getTransport()).getLocalAddress();
        } catch (IOException e) {
            throw new IllegalStateException("The HTTP port was bound a moment ago", e);
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
        InetSocketAddress bound = bound(connector);
        String host = bound.getAddress().isAnyLocalAddress()
                ? "localhost"
                : bound.getAddress().getHostAddress();
        return URI.create("http://" + hostPort(new HostInfo(host, bound.getPort())) + "/");
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

    /**
     * Serves {@code path} with {@code handler}; before {@link #start()}. The path is exact, or ends in {@code /*} for
     * every path under it. A path under {@value #QUERIES_PATH} is a query: one that scans the stores or asks other
     * instances, answered when fewer than {@value #QUERY_PERMITS} run, else 503, so that probes never wait behind
     * queries.
     */
    public void serve(String path, Handler handler) {
        // The servlet path spec of "/" is the default mapping, matching every path; "" is the root alone.
        routes.addMapping(PathSpec.from(path.equals("/") ? "" : path), new Endpoint(handler));
    }

    /** Starts serving the registered endpoints. */
    public void start() {
        QoSHandler queries = new QoSHandler(routes);
        queries.includePath(QUERIES_PATH + "*");
        queries.setMaxRequestCount(QUERY_PERMITS);
        // None waits for a permit: a query beyond the limit is answered 503 at once.
        queries.setMaxSuspendedRequestCount(0);
        // No endpoint reads a body: one announced or sent is refused (413) before any endpoint sees the request.
        SizeLimitHandler noBody = new SizeLimitHandler(0, -1);
        noBody.setHandler(queries);
        // Jetty's handlers (the QoSHandler among them) run inside a context: the root one.
        server.setHandler(new ContextHandler(new Checks(noBody), "/"));
        server.setErrorHandler(OperationsServer::error);
        try {
            server.start();
        } catch (Exception e) {
            throw new IllegalStateException("The HTTP server did not start: " + e.getMessage(), e);
        }
        LOG.info("HTTP server listening on {} (application.server {})", bound(connector), applicationServer());
    }

    /** The method and the token, checked before the routes; a path no route takes is answered 404. */
    private final class Checks extends org.eclipse.jetty.server.Handler.Wrapper {

        Checks(org.eclipse.jetty.server.Handler routes) {
            super(routes);
        }

        @Override
        public boolean handle(
                org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response, Callback callback)
                throws Exception {
            // The path as routed: decoded and normalized, so that "/health/../v1/status" is checked as /v1/status.
            String path = org.eclipse.jetty.server.Request.getPathInContext(request);
            String method = request.getMethod();
            if (!HttpMethod.GET.is(method) && !HttpMethod.HEAD.is(method)) {
                response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
                reply(request, response, callback, Response.error(405, "Only GET and HEAD are served"));
            } else if (auth.protects(path) && !auth.accepts(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
                response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, HttpAuth.challenge(path));
                reply(
                        request,
                        response,
                        callback,
                        Response.error(401, "This endpoint needs ttl.http.auth.token (Authorization: Bearer)"));
            } else if (!super.handle(request, response, callback)) {
                reply(request, response, callback, Response.error(404, "No endpoint at " + shown(path)));
            }
            return true;
        }
    }

    /** One registered endpoint: its answer to the request, as the path and query were received. */
    private static final class Endpoint extends org.eclipse.jetty.server.Handler.Abstract {

        private final Handler handler;

        Endpoint(Handler handler) {
            this.handler = handler;
        }

        @Override
        public boolean handle(
                org.eclipse.jetty.server.Request request,
                org.eclipse.jetty.server.Response response,
                Callback callback) {
            String query = request.getHttpURI().getQuery();
            Request received = new Request(
                    request.getHttpURI().getPath(),
                    query == null ? "" : query,
                    request.getHeaders().contains(Request.FORWARDED_HEADER));
            reply(request, response, callback, respond(handler, received));
            return true;
        }
    }

    /** The response to one request: its endpoint's, or an error naming what went wrong. */
    static Response respond(Handler handler, Request request) {
        try {
            return handler.answer(request);
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

    /** Jetty's own refusals (a head too large, a body, a malformed request, a query beyond the limit) as JSON. */
    private static boolean error(
            org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response, Callback callback) {
        int status = response.getStatus();
        Object message = request.getAttribute(ErrorHandler.ERROR_MESSAGE);
        // A refusal says why; a failure inside says no more than the endpoints' own 500 does (Jetty logs it).
        String said = message == null || status >= 500 ? HttpStatus.getMessage(status) : message.toString();
        reply(request, response, callback, Response.error(status, said));
        return true;
    }

    /** Writes {@code answer}: its status, type and body (none for HEAD: Jetty sends the length alone). */
    private static void reply(
            org.eclipse.jetty.server.Request request,
            org.eclipse.jetty.server.Response response,
            Callback callback,
            Response answer) {
        if (answer.status() >= 400) {
            LOG.debug(
                    "HTTP {} {} answered {}",
                    request.getMethod(),
                    shown(request.getHttpURI().getPath()),
                    answer.status());
        }
        response.setStatus(answer.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, answer.contentType());
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.write(true, ByteBuffer.wrap(answer.body()), callback);
    }

    /** A path as a log line shows it: the start of a long one. */
    private static String shown(String path) {
        return path.length() <= 200 ? path : path.substring(0, 200) + "... (" + path.length() + " characters)";
    }

    /** Stops serving. The port is free again when this returns. */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            LOG.debug("Stopping the HTTP server failed", e);
        }
        connector.close();
    }
}

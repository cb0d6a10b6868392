package io.ttlstreams.connect;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;

/**
 * A Kafka Connect REST API stand-in on loopback, for tests of what ttl-streams sends: it records each request and
 * answers as Connect does, optionally requiring HTTP Basic authentication as Connect's
 * {@code BasicAuthSecurityRestExtension} does (401 without or with wrong credentials), and optionally refusing every
 * connector with a 400 that quotes the connector's {@code connection.uri}, as Connect's validation errors do. A
 * {@code GET /connectors/<name>/status} is answered with what {@link #answerStatus} set, or 404 as Connect answers
 * for an unknown connector.
 */
public final class FakeConnect implements AutoCloseable {

    /** One request as received, and the status it was answered with. */
    public record Request(String method, String path, String authorization, String body, int status) {

        public BsonDocument config() {
            return BsonDocument.parse(body);
        }
    }

    private final HttpServer server;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private volatile String requiredAuthorization;
    private volatile boolean refuseConfigs;
    private final java.util.concurrent.atomic.AtomicInteger unavailable =
            new java.util.concurrent.atomic.AtomicInteger();
    private final Map<String, Answer> statuses = new ConcurrentHashMap<>();

    private record Answer(int status, String body) {}

    private FakeConnect() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Starts an open one: no authentication, accepts every connector. */
    public static FakeConnect start() throws IOException {
        return new FakeConnect();
    }

    /** Requires these Basic credentials on every request from now on. */
    public FakeConnect requireBasicAuth(String username, String password) {
        requiredAuthorization = "Basic "
                + Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** Refuses every connector configuration from now on, quoting its connection.uri. */
    public FakeConnect refuseConfigs() {
        refuseConfigs = true;
        return this;
    }

    /** Answers the next {@code times} connector configurations with 503, as a worker that is still starting. */
    public FakeConnect unavailableFor(int times) {
        unavailable.set(times);
        return this;
    }

    /** Answers {@code GET /connectors/<connector>/status} with this HTTP status and body from now on. */
    public FakeConnect answerStatus(String connector, int status, String body) {
        statuses.put("/connectors/" + connector + "/status", new Answer(status, body));
        return this;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** {@code http://<userInfo>@127.0.0.1:<port>}. */
    public String url(String userInfo) {
        return "http://" + userInfo + "@127.0.0.1:" + server.getAddress().getPort();
    }

    public List<Request> requests() {
        return requests;
    }

    /** The requests that were answered with success. */
    public List<Request> accepted() {
        return requests.stream().filter(request -> request.status() / 100 == 2).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        int status;
        String answer;
        if (requiredAuthorization != null && !requiredAuthorization.equals(authorization)) {
            status = 401;
            answer = "{\"error_code\":401,\"message\":\"Request requires authentication\"}";
        } else if (exchange.getRequestMethod().equals("GET")) {
            Answer found = statuses.getOrDefault(
                    exchange.getRequestURI().getPath(),
                    new Answer(404, "{\"error_code\":404,\"message\":\"No status found\"}"));
            status = found.status();
            answer = found.body();
        } else if (unavailable.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
            status = 503;
            answer = "{\"error_code\":503,\"message\":\"Request cannot be completed: the worker is starting\"}";
        } else if (refuseConfigs) {
            BsonDocument config = BsonDocument.parse(body);
            String uri = config.isString("connection.uri")
                    ? config.getString("connection.uri").getValue()
                    : "";
            status = 400;
            answer = "{\"error_code\":400,\"message\":\"Connector configuration is invalid and contains the following 1"
                    + " error(s):\\nInvalid value " + uri + " for configuration connection.uri: The connection string"
                    + " is invalid\\nYou can also find the above list of errors at the endpoint"
                    + " `/connector-plugins/{connectorType}/config/validate`\"}";
        } else {
            status = 201;
            answer = body;
        }
        requests.add(new Request(
                exchange.getRequestMethod(), exchange.getRequestURI().getPath(), authorization, body, status));
        respond(exchange, status, answer);
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

package io.ttlstreams.connect;

import io.ttlstreams.contract.PercentEncoding;
import io.ttlstreams.secrets.BasicCredentials;
import io.ttlstreams.secrets.Redaction;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * Creates or updates connectors through Kafka Connect's REST API with
 * {@code PUT /connectors/<name>/config}, which is idempotent: running ttl-streams again with changed
 * rules updates the connectors in place, so the rules stay the single source of truth.
 *
 * <p>With credentials, every request carries them as HTTP Basic authentication, as Connect's
 * {@code BasicAuthSecurityRestExtension} expects. Its exceptions never show them: they name Connect by its URL without
 * user info, and Connect's answers are {@link Redaction redacted}, since Connect quotes rejected values such as
 * {@code connection.uri}. Reads their status
 * with {@code GET /connectors/<name>/status}.
 */
public final class ConnectRestClient {

    /** The path of a connector's status, whose 404 answers that there is no such connector. */
    private static final String STATUS = "/status";

    private final URI baseUrl;
    private final Optional<BasicCredentials> credentials;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /**
     * @param baseUrl the Connect REST URL, e.g. {@code http://connect:8083}; user info in it
     *                ({@code http://user:password@connect:8083}, percent-encoded) is sent as Basic authentication
     */
    public ConnectRestClient(String baseUrl) {
        this(baseUrl, Optional.empty());
    }

    /**
     * @param baseUrl     the Connect REST URL without user info, e.g. {@code http://connect:8083}
     * @param credentials the Basic authentication credentials, if Connect requires them
     * @throws IllegalArgumentException when {@code baseUrl} also carries user info
     */
    public ConnectRestClient(String baseUrl, Optional<BasicCredentials> credentials) {
        URI url = parse(baseUrl);
        Optional<BasicCredentials> fromUrl = BasicCredentials.fromUserInfo(url);
        if (fromUrl.isPresent() && credentials.isPresent()) {
            throw new IllegalArgumentException("The Kafka Connect URL carries user info and credentials are given"
                    + " besides: pass them one way");
        }
        URI withoutUserInfo = BasicCredentials.withoutUserInfo(url);
        String text = withoutUserInfo.toString();
        this.baseUrl = text.endsWith("/") ? withoutUserInfo : URI.create(text + "/");
        this.credentials = fromUrl.or(() -> credentials);
    }

    /** The Connect REST URL without user info: what messages about this client may show. */
    public String url() {
        return baseUrl.toString();
    }

    /**
     * Creates the connector, or updates its configuration if it exists.
     *
     * @throws IOException with a message fit for an operator, naming the connector and Connect, when Connect cannot
     *                     be reached or refuses
     */
    public void put(ConnectorDefinition connector) throws IOException, InterruptedException {
        BsonDocument body = new BsonDocument();
        connector.config().forEach((key, value) -> body.append(key, new BsonString(value)));
        send(
                HttpRequest.newBuilder()
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(body.toJson())),
                connector.name(),
                "/config",
                Duration.ofSeconds(30),
                "connector " + connector.name());
    }

    /**
     * Sends {@code request} to {@code connectors/<connector><path>}, with the Basic authentication header when there
     * are credentials, and returns Connect's answer: a success, or 404 (no such connector), which only the status
     * request takes as one. The HTTP client's exceptions often have no message at all ({@code ConnectException}), so
     * the message says what failed, to which URL, and the exception's type.
     */
    private HttpResponse<String> send(
            HttpRequest.Builder request, String connector, String path, Duration timeout, String subject)
            throws IOException, InterruptedException {
        request.uri(baseUrl.resolve("connectors/" + PercentEncoding.encode(connector) + path))
                .timeout(timeout);
        credentials.ifPresent(basic -> request.header("Authorization", basic.authorizationHeader()));
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            String reason = e.getMessage() == null || e.getMessage().isBlank()
                    ? e.getClass().getSimpleName()
                    : e.getClass().getSimpleName() + ": " + e.getMessage();
            throw new UnavailableException(
                    "Cannot reach Kafka Connect at " + baseUrl + " for " + subject + ": " + Redaction.redact(reason),
                    e);
        }
        if (response.statusCode() / 100 != 2 && !(response.statusCode() == 404 && path.equals(STATUS))) {
            throw refused(response, subject);
        }
        return response;
    }

    private IOException refused(HttpResponse<String> response, String subject) {
        String hint = switch (response.statusCode()) {
            case 401 ->
                credentials.isEmpty()
                        ? " (it requires credentials and none were given)"
                        : " (it did not accept the credentials)";
            case 403 -> " (the credentials lack the permission)";
            default -> "";
        };
        String message = "Kafka Connect at " + baseUrl + " refused " + subject + ": HTTP " + response.statusCode()
                + hint + " " + Redaction.redact(response.body());
        // 409: the workers are rebalancing; 5xx: still starting or briefly overloaded. Both pass; a 4xx does not.
        boolean passing = response.statusCode() == 409 || response.statusCode() / 100 == 5;
        return passing ? new UnavailableException(message, null) : new IOException(message);
    }

    /**
     * Kafka Connect could not be reached, or answered that it cannot serve the request now (409 during a rebalance,
     * 5xx while it starts): worth retrying, unlike a refusal of the request itself.
     */
    public static final class UnavailableException extends IOException {

        private static final long serialVersionUID = 1L;

        UnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Parses {@code url}, never quoting it: it may carry a password. */
    private static URI parse(String url) {
        try {
            return new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(
                    "The Kafka Connect URL is malformed: " + e.getReason() + " at index " + e.getIndex());
        }
    }

    /**
     * Restarts the connector's FAILED units, itself and its tasks, with {@code POST
     * /connectors/<name>/restart?includeTasks=true&onlyFailed=true} (KIP-745, Kafka 3.0+): Kafka Connect never
     * restarts a failed task by itself.
     *
     * @throws IOException when Connect cannot be reached or refuses
     */
    public void restartFailed(String connectorName) throws IOException, InterruptedException {
        send(
                HttpRequest.newBuilder().POST(HttpRequest.BodyPublishers.noBody()),
                connectorName,
                "/restart?includeTasks=true&onlyFailed=true",
                Duration.ofSeconds(30),
                "the restart of connector " + connectorName);
    }

    /**
     * The connector's status; empty when Connect has no connector of that name.
     *
     * @throws IOException when Connect cannot be reached or answers with an error or an unreadable status
     */
    public Optional<ConnectorStatus> status(String connectorName) throws IOException, InterruptedException {
        HttpResponse<String> response = send(
                HttpRequest.newBuilder().GET(),
                connectorName,
                STATUS,
                Duration.ofSeconds(10),
                "the status of connector " + connectorName);
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        try {
            return Optional.of(ConnectorStatus.parse(response.body()));
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }
}

package io.ttlstreams.connect;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * Creates or updates connectors through Kafka Connect's REST API with
 * {@code PUT /connectors/<name>/config}, which is idempotent: running ttl-streams again with changed
 * rules updates the connectors in place, so the rules stay the single source of truth. Reads their status with
 * {@code GET /connectors/<name>/status}.
 */
public final class ConnectRestClient {

    private final URI baseUrl;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /**
     * @param baseUrl the Connect REST URL, e.g. {@code http://connect:8083}
     */
    public ConnectRestClient(String baseUrl) {
        this.baseUrl = URI.create(baseUrl.endsWith("/") ? baseUrl : baseUrl + "/");
    }

    /** Creates the connector, or updates its configuration if it exists. */
    public void put(ConnectorDefinition connector) throws IOException, InterruptedException {
        BsonDocument body = new BsonDocument();
        connector.config().forEach((key, value) -> body.append(key, new BsonString(value)));
        HttpRequest request = HttpRequest.newBuilder(baseUrl.resolve(
                        "connectors/" + URLEncoder.encode(connector.name(), StandardCharsets.UTF_8) + "/config"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body.toJson()))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException("Kafka Connect at " + baseUrl + " refused connector " + connector.name() + ": HTTP "
                    + response.statusCode() + " " + response.body());
        }
    }

    /**
     * The connector's status; empty when Connect has no connector of that name.
     *
     * @throws IOException when Connect cannot be reached or answers with an error or an unreadable status
     */
    public Optional<ConnectorStatus> status(String connectorName) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(baseUrl.resolve(
                        "connectors/" + URLEncoder.encode(connectorName, StandardCharsets.UTF_8) + "/status"))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        if (response.statusCode() / 100 != 2) {
            throw new IOException("Kafka Connect at " + baseUrl + " answered HTTP " + response.statusCode()
                    + " for the status of connector " + connectorName + ": " + response.body());
        }
        try {
            return Optional.of(ConnectorStatus.parse(response.body()));
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }
}

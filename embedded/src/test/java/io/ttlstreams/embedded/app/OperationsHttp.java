package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonDocument;

/** The HTTP calls of the operations ITs: the running processor's endpoints and the stack's Connect REST API. */
final class OperationsHttp {

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Supplier<EmbeddedPipeline> pipeline;

    OperationsHttp(Supplier<EmbeddedPipeline> pipeline) {
        this.pipeline = pipeline;
    }

    /** A GET of {@code path} from {@code base}, a processor's HTTP server. */
    HttpResponse<String> get(URI base, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(base.resolve(path))
                        .timeout(Duration.ofSeconds(20))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A GET of {@code path} from the pipeline's processor. */
    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return get(pipeline.get().processor().httpUrl(), path);
    }

    /** The status code of the processor's readiness probe. */
    int readyStatus() throws IOException, InterruptedException {
        return get("/health/ready").statusCode();
    }

    /** The status code of the processor's dependencies' health: 503 while a connector fails or a source is quiet. */
    int dependenciesStatus() throws IOException, InterruptedException {
        return get("/health/dependencies").statusCode();
    }

    /** Whether the processor is ready and saw, at its last check, every watched connector running. */
    boolean readyWithConnectorsRunning() throws IOException, InterruptedException {
        if (readyStatus() != 200) {
            return false;
        }
        BsonArray connectors = BsonDocument.parse(get("/v1/status").body()).getArray("connectors");
        return !connectors.isEmpty()
                && connectors.stream()
                        .allMatch(connector ->
                                connector.asDocument().getBoolean("running").getValue());
    }

    /** A call of the stack's Connect REST API, which must succeed. */
    void connect(String method, String path, String body) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(pipeline.get().stack().connectUrl() + path))
                        .header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode())
                .as(method + " " + path + ": " + response.body())
                .isBetween(200, 299);
    }
}

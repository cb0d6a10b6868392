package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;

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

package io.ttlstreams.embedded;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Requests to the embedded Connect worker's REST API, for what a test should do as an operator does (pause, resume)
 * rather than through the herder: each fails with an {@link EmbeddedStackException} unless answered with a 2xx.
 */
final class WorkerRest {

    private WorkerRest() {}

    /** {@code PUT uri} without a body, answered within {@code timeout}. */
    static void put(URI uri, Duration timeout) {
        HttpResponse<String> response;
        try {
            response = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(uri)
                                    .timeout(timeout)
                                    .PUT(HttpRequest.BodyPublishers.noBody())
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new EmbeddedStackException("PUT " + uri + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EmbeddedStackException("Interrupted during PUT " + uri, e);
        }
        if (response.statusCode() / 100 != 2) {
            throw new EmbeddedStackException(
                    "PUT " + uri + " answered " + response.statusCode() + ": " + response.body());
        }
    }
}

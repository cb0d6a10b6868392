package io.ttlstreams.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The transport alone, with endpoints of the test's own: the limit on queries answered at once. */
class OperationsServerTest {

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch inside = new CountDownLatch(OperationsServer.QUERY_PERMITS);
    private OperationsServer server;

    @BeforeEach
    void start() {
        server = OperationsServer.bind(TestConfigs.config(
                "bootstrap.servers", "127.0.0.1:1", "ttl.http.port", "0", "ttl.http.bind.address", "127.0.0.1"));
        server.serve("/health/live", request -> Response.json(200, "live"));
        server.serve("/v1/slow", request -> {
            inside.countDown();
            release.await(30, TimeUnit.SECONDS);
            return Response.json(200, "slow");
        });
        server.start();
    }

    @AfterEach
    void stop() {
        release.countDown();
        server.close();
    }

    private CompletableFuture<HttpResponse<String>> get(String path) {
        return http.sendAsync(
                HttpRequest.newBuilder(URI.create(server.url() + path.substring(1)))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldAnswer503ToAQueryBeyondThoseRunningAndGoOnAnsweringProbes() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
        for (int i = 0; i < OperationsServer.QUERY_PERMITS; i++) {
            running.add(get("/v1/slow"));
        }
        assertThat(inside.await(10, TimeUnit.SECONDS))
                .as("every permitted query runs")
                .isTrue();

        HttpResponse<String> beyond = get("/v1/slow").get(10, TimeUnit.SECONDS);
        HttpResponse<String> probe = get("/health/live").get(10, TimeUnit.SECONDS);
        release.countDown();

        assertThat(beyond.statusCode()).isEqualTo(503);
        assertThat(beyond.headers().firstValue("Content-Type")).hasValue(Response.JSON);
        assertThat(probe.statusCode()).isEqualTo(200);
        for (CompletableFuture<HttpResponse<String>> query : running) {
            assertThat(query.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(get("/v1/slow").get(10, TimeUnit.SECONDS).statusCode())
                .as("a permit is free again once a query is answered")
                .isEqualTo(200);
    }
}

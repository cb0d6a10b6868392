package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.http.OperationsServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP surface over a Kafka Streams instance that was created and never started: no broker, so everything that
 * needs Kafka Streams RUNNING answers that it is not, which is what a probe sees during start-up.
 */
class OperationsSurfaceTest {

    @TempDir
    Path stateDir;

    private TestServer running;
    private OperationsSurface server;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        running = TestServer.start(stateDir, Map.of());
        server = running.server;
    }

    @AfterEach
    void stop() {
        running.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return running.get(path);
    }

    @Test
    void shouldBeLiveButNotReadyBeforeKafkaStreamsRuns() throws Exception {
        HttpResponse<String> live = get("/health/live");
        HttpResponse<String> ready = get("/health/ready");

        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(BsonDocument.parse(live.body()).getString("status").getValue())
                .isEqualTo("UP");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body()).contains("\"status\": \"DOWN\"", "Kafka Streams is CREATED, not RUNNING");
        assertThat(ready.headers().firstValue("Content-Type")).hasValue("application/json");
    }

    @Test
    void shouldServePrometheusTextWithTheTtlMetrics() throws Exception {
        HttpResponse<String> metrics = get("/metrics");

        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type")).hasValue(OperationsServer.PROMETHEUS_TEXT);
        // No task runs yet, so no task-level meter exists: their export is MetricsListTest's to show.
        assertThat(metrics.body())
                .contains("# TYPE ttl_schedule_due gauge")
                .contains("ttl_schedule_oldest_overdue_seconds NaN")
                .contains("ttl_schedule_awaiting_confirmation NaN")
                .contains("ttl_source_staleness_seconds{namespace=\"app.sessions\"} NaN")
                .contains("# TYPE ttl_punctuation_failures_total counter")
                .contains("\nttl_punctuation_failures_total 0.0\n")
                .contains("\nttl_send_failures_total 0.0\n")
                .contains("jvm_memory_used_bytes");
    }

    @Test
    void shouldAnswerQueriesWithTheRightErrors() throws Exception {
        assertThat(get("/v1/documents/app.sessions/%7B%22_id%22%3A%22s1%22%7D").statusCode())
                .as("no owner known before RUNNING")
                .isEqualTo(503);
        assertThat(get("/v1/documents/app.sessions").statusCode()).isEqualTo(400);
        HttpResponse<String> noCollection = get("/v1/documents/app/%7B%7D");
        assertThat(noCollection.statusCode())
                .as("a namespace without a collection")
                .isEqualTo(400);
        assertThat(noCollection.body()).contains("error");
        assertThat(get("/v1/documents/app.sessions/%7Bnot-json").statusCode()).isEqualTo(400);
        assertThat(get("/v1/documents/app.sessions/long0").statusCode())
                .as("a bare string id is a document key, looked up like the JSON form")
                .isEqualTo(503);
        assertThat(get("/v1/schedule?bucket=1s&to=2100-01-01T00:00:00Z").statusCode())
                .isEqualTo(400);
        assertThat(get("/v1/schedule").statusCode()).as("stores not queryable").isEqualTo(503);
        assertThat(get("/v1/nothing").statusCode()).isEqualTo(404);
        HttpResponse<String> post = http.send(
                HttpRequest.newBuilder(server.url().resolve("/health/ready"))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
    }

    @Test
    void shouldServeTheStatusPageAndItsData() throws Exception {
        HttpResponse<String> page = get("/");
        HttpResponse<String> status = get("/v1/status");

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(page.body()).contains("<title>ttl-streams</title>", "v1/status", "v1/schedule");
        assertThat(status.statusCode()).isEqualTo(200);
        BsonDocument json = BsonDocument.parse(status.body());
        assertThat(json.getString("state").getValue()).isEqualTo("CREATED");
        assertThat(json.getBoolean("ready").getValue()).isFalse();
        assertThat(json.getBoolean("degraded").getValue())
                .as("no connector watched, no source heard from: nothing to judge")
                .isFalse();
        assertThat(json.getArray("dependencies")).isEmpty();
        assertThat(get("/health/dependencies").statusCode()).isEqualTo(200);
        assertThat(json.getString("instance").getValue()).isEqualTo(server.applicationServer());
        assertThat(json.getDocument("schedule").get("due").isNull()).isTrue();
    }

    @Test
    void shouldAdvertiseTheBoundPortAndRefuseAnApplicationServerOnAnother() {
        assertThat(server.applicationServer())
                .isEqualTo("127.0.0.1:" + server.url().getPort());
        assertThat(server.url())
                .isEqualTo(URI.create("http://127.0.0.1:" + server.url().getPort() + "/"));

        assertThatThrownBy(() -> OperationsSurface.bind(
                        TestServer.config(Map.of("application.server", "pod-0.ttl-streams:9999")), Optional.empty()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("application.server")
                .hasMessageContaining("ttl.http.port");
    }

    @Test
    void shouldNameTheOptionWhenThePortIsTaken() {
        int taken = server.url().getPort();

        assertThatThrownBy(() -> OperationsSurface.bind(
                        TestServer.config(Map.of("ttl.http.port", "" + taken)), Optional.empty()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.http.port")
                .hasMessageContaining("127.0.0.1:" + taken);
    }
}

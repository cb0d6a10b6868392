package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.PrometheusText;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Readiness of {@code run --embedded} falling when the source connector is paused or fails, on the pipeline of
 * {@link OperationsIT}. Each test breaks the source connector on purpose, so each has a pipeline of its own and the
 * tests run in any order.
 */
@Tag("integration")
class ReadinessIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final String SOURCE = ConnectorConfigs.SOURCE_NAME + "-" + SESSIONS.database();

    /** A pipeline per test: on an instance field, with JUnit's default per-method lifecycle. */
    @RegisterExtension
    final EmbeddedPipelineExtension pipeline = OperationsIT.pipeline();

    private final OperationsHttp http = new OperationsHttp(pipeline::pipeline);

    @Test
    void shouldTurnNotReadyWhileTheSourceConnectorIsPaused() throws Exception {
        await("ready once the connectors were checked")
                .atMost(Duration.ofSeconds(60))
                .until(() -> http.readyStatus() == 200);

        http.connect("PUT", "/connectors/" + SOURCE + "/pause", "");

        // docs/operating.md shows this answer.
        String paused = "{\"status\": \"DOWN\", \"state\": \"RUNNING\", \"reasons\": [\"connector " + SOURCE
                + " is PAUSED\", \"connector " + SOURCE + " task 0 is PAUSED\"]}";
        await("not ready while paused")
                .atMost(Duration.ofSeconds(30))
                .until(() -> http.get("/health/ready").body().strip(), paused::equals);
        assertThat(http.readyStatus()).isEqualTo(503);

        http.connect("PUT", "/connectors/" + SOURCE + "/resume", "");

        await("ready again once resumed").atMost(Duration.ofSeconds(30)).until(() -> http.readyStatus() == 200);
    }

    /**
     * A source task that fails stops the flow of change events for good, as one whose resume token fell off the
     * oplog does: here a topic prefix Kafka refuses makes the next event unpublishable, and the connector is told not to
     * tolerate that.
     */
    @Test
    void shouldTurnNotReadyAndExportTheFailureWhenTheSourceTaskFails() throws Exception {
        await("ready once the connectors were checked")
                .atMost(Duration.ofSeconds(60))
                .until(() -> http.readyStatus() == 200);
        Map<String, String> config = new HashMap<>(ConnectorConfigs.render(
                        pipeline.pipeline().processorConfig(),
                        pipeline.pipeline().stack().mongoConnectionString(),
                        false)
                .sources()
                .stream()
                .filter(source -> source.name().equals(SOURCE))
                .findFirst()
                .orElseThrow()
                .config());
        config.put("topic.prefix", "no spaces allowed");
        // The stack's connectors skip records they cannot produce (an oversized event must not stop a namespace);
        // this one is to fail on them, as a source task fails for good when its resume token is lost.
        config.put("errors.tolerance", "none");
        BsonDocument body = new BsonDocument();
        config.forEach((key, value) -> body.append(key, new BsonString(value)));
        http.connect("PUT", "/connectors/" + SOURCE + "/config", body.toJson());

        // Until the reconfigured task runs, the old one publishes the inserts: keep writing until one fails it.
        AtomicInteger written = new AtomicInteger();
        await("not ready once the task failed")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    pipeline.collection(SESSIONS)
                            .insertOne(new Document("_id", "unpublishable-" + written.incrementAndGet())
                                    .append("expireAt", new Date()));
                    HttpResponse<String> ready = http.get("/health/ready");
                    return ready.statusCode() == 503
                            && ready.body().contains("connector " + SOURCE + " task 0 is FAILED");
                });
        assertThat(http.get("/health/ready").body())
                .contains("InvalidTopicException")
                .as("a failed task stays failed: no silent recovery")
                .contains("FAILED");
        PrometheusText metrics = PrometheusText.parse(http.get("/metrics").body());
        assertThat(metrics.value("ttl_connector_failures", "connector", SOURCE)).isEqualTo(1.0);
        assertThat(metrics.value("ttl_connector_running", "connector", SOURCE)).isZero();
    }
}

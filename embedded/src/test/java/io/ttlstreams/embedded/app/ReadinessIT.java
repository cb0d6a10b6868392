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
 * {@code run --embedded} degraded but ready when the source connector is paused or fails, on the pipeline of {@link
 * OperationsIT}: the connector is every instance's, so readiness stays up and {@code /health/dependencies} tells. Each test breaks the source connector on purpose, so each has a pipeline of its own and the
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
    void shouldStayReadyAndReportDegradedWhileTheSourceConnectorIsPaused() throws Exception {
        await("ready, and the connectors checked")
                .atMost(Duration.ofSeconds(60))
                .until(http::readyWithConnectorsRunning);

        http.connect("PUT", "/connectors/" + SOURCE + "/pause", "");

        // docs/operating.md shows this answer.
        String paused = "{\"status\": \"DEGRADED\", \"state\": \"RUNNING\", \"reasons\": [\"connector " + SOURCE
                + " is PAUSED\", \"connector " + SOURCE + " task 0 is PAUSED\"]}";
        await("degraded while paused")
                .atMost(Duration.ofSeconds(30))
                .until(() -> http.get("/health/dependencies").body().strip(), paused::equals);
        assertThat(http.dependenciesStatus()).isEqualTo(503);
        assertThat(http.readyStatus()).as("a paused connector is every pod's").isEqualTo(200);
        assertThat(BsonDocument.parse(http.get("/v1/status").body())
                        .getBoolean("degraded")
                        .getValue())
                .isTrue();

        http.connect("PUT", "/connectors/" + SOURCE + "/resume", "");

        await("the connector runs again once resumed")
                .atMost(Duration.ofSeconds(30))
                .until(http::readyWithConnectorsRunning);
    }

    /**
     * A source task that fails stops the flow of change events for good, as one whose resume token fell off the
     * oplog does: here a topic prefix Kafka refuses makes the next event unpublishable, and the connector is told not to
     * tolerate that.
     */
    @Test
    void shouldReportDegradedAndExportTheFailureWhenTheSourceTaskFails() throws Exception {
        await("ready, and the connectors checked")
                .atMost(Duration.ofSeconds(60))
                .until(http::readyWithConnectorsRunning);
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
        await("degraded once the task failed")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    pipeline.collection(SESSIONS)
                            .insertOne(new Document("_id", "unpublishable-" + written.incrementAndGet())
                                    .append("expireAt", new Date()));
                    HttpResponse<String> dependencies = http.get("/health/dependencies");
                    return dependencies.statusCode() == 503
                            && dependencies.body().contains("connector " + SOURCE + " task 0 is FAILED");
                });
        assertThat(http.readyStatus()).as("a failed connector is every pod's").isEqualTo(200);
        assertThat(http.get("/health/dependencies").body())
                .contains("InvalidTopicException")
                .as("a failed task stays failed: no silent recovery")
                .contains("FAILED");
        PrometheusText metrics = PrometheusText.parse(http.get("/metrics").body());
        assertThat(metrics.value("ttl_connector_failures", "connector", SOURCE)).isEqualTo(1.0);
        assertThat(metrics.value("ttl_connector_running", "connector", SOURCE)).isZero();
    }
}

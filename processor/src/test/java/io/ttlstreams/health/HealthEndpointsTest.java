package io.ttlstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectRestClient;
import io.ttlstreams.connect.FakeConnect;
import io.ttlstreams.connect.ManagedConnectors;
import io.ttlstreams.health.SourceFreshness.PartitionState;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.secrets.LogCapture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams.State;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The health endpoints over HTTP, on a real {@link OperationsServer}, with Kafka Streams RUNNING, a Kafka Connect
 * stand-in telling the source connector's status and a source read at a fixed time: a shared dependency failing
 * leaves {@code /health/ready} at 200 and turns {@code /health/dependencies} to 503, with the reasons.
 */
class HealthEndpointsTest {

    private static final String SOURCE = "mongo-source-app";
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final String RUNNING = """
            {"name": "mongo-source-app", "connector": {"state": "RUNNING", "worker_id": "w"},
             "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "w"}], "type": "source"}""";
    private static final String FAILED = """
            {"name": "mongo-source-app", "connector": {"state": "RUNNING", "worker_id": "w"},
             "tasks": [{"id": 0, "state": "FAILED", "worker_id": "w",
                        "trace": "org.apache.kafka.connect.errors.ConnectException: Resume of change stream was not\
             possible"}], "type": "source"}""";

    private final TtlStreamsConfig config = TestConfigs.config(
            "bootstrap.servers", "127.0.0.1:1", "ttl.http.port", "0", "ttl.http.bind.address", "127.0.0.1");
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private FakeConnect connect;
    private OperationsServer server;
    private ConnectorMonitor monitor;
    private SourceFreshness freshness;
    private Dependencies dependencies;

    @BeforeEach
    void start() throws Exception {
        connect = FakeConnect.start().answerStatus(SOURCE, 200, RUNNING);
        monitor = new ConnectorMonitor(
                new ManagedConnectors(new ConnectRestClient(connect.url()), List.of(SOURCE)),
                registry,
                new SinkOutage(Duration.ofMinutes(1), () -> 0),
                () -> 0);
        freshness = new SourceFreshness(config, null, registry, Clock.fixed(NOW, ZoneOffset.UTC));
        dependencies = new Dependencies(
                Optional.of(monitor), freshness, config.sourceStaleAfter(), Optional.empty(), registry);
        server = OperationsServer.bind(config);
        new Health(() -> State.RUNNING, List::of, List::of, dependencies::problems).register(server);
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
        connect.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(server.url() + path.substring(1)))
                        .timeout(Duration.ofSeconds(5))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** One health check as {@link Dependencies#start} runs it, with the source last heard from {@code ago} before now. */
    private void check(Duration ago, long endOffset) throws InterruptedException {
        monitor.check();
        freshness.observe(Map.of(
                new TopicPartition("app.sessions", 0),
                new PartitionState(NOW.minus(ago).toEpochMilli(), endOffset)));
        dependencies.checked();
    }

    private double degradedGauge() {
        return registry.get("ttl.dependencies.degraded").gauge().value();
    }

    @Test
    void shouldStayReadyAndReportDegradedWhenTheSourceConnectorFailsAndTheSourceGoesQuiet() throws Exception {
        connect.answerStatus(SOURCE, 200, FAILED);
        check(Duration.ofSeconds(120), 1);

        HttpResponse<String> ready = get("/health/ready");
        HttpResponse<String> dependencies = get(Health.DEPENDENCIES_PATH);

        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(BsonDocument.parse(ready.body()).getString("status").getValue())
                .isEqualTo("UP");
        assertThat(dependencies.statusCode()).isEqualTo(503);
        BsonDocument body = BsonDocument.parse(dependencies.body());
        assertThat(body.getString("status").getValue()).isEqualTo("DEGRADED");
        assertThat(body.getString("state").getValue()).isEqualTo("RUNNING");
        assertThat(body.getArray("reasons").getValues().stream()
                        .map(reason -> reason.asString().getValue()))
                .anySatisfy(reason -> assertThat(reason).contains("connector " + SOURCE + " task 0 is FAILED"))
                .anySatisfy(reason -> assertThat(reason)
                        .contains("the source of app.sessions was last heard from 120.0 s ago")
                        .contains("ttl.health.source.stale.ms=60000"));
        assertThat(degradedGauge()).isEqualTo(1.0);
    }

    @Test
    void shouldAnswer200OnDependenciesWhenTheConnectorRunsAndTheSourceWasHeardFromLately() throws Exception {
        check(Duration.ofSeconds(5), 1);

        HttpResponse<String> dependencies = get(Health.DEPENDENCIES_PATH);

        assertThat(dependencies.statusCode()).as(dependencies.body()).isEqualTo(200);
        assertThat(BsonDocument.parse(dependencies.body()).getString("status").getValue())
                .isEqualTo("UP");
        assertThat(degradedGauge()).isZero();
    }

    @Test
    void shouldLogOncePerTurnIntoAndOutOfDegradedWhenChecksRepeat() throws Exception {
        try (LogCapture log = LogCapture.start()) {
            check(Duration.ofSeconds(5), 1);
            connect.answerStatus(SOURCE, 200, FAILED);
            check(Duration.ofSeconds(5), 2);
            check(Duration.ofSeconds(5), 3);
            check(Duration.ofSeconds(5), 4);
            connect.answerStatus(SOURCE, 200, RUNNING);
            check(Duration.ofSeconds(5), 5);
            check(Duration.ofSeconds(5), 6);

            assertThat(log.text().lines().filter(line -> line.contains(" - Degraded: ")))
                    .singleElement()
                    .asString()
                    .contains("connector " + SOURCE + " task 0 is FAILED");
            assertThat(log.text().lines().filter(line -> line.contains(" - No longer degraded")))
                    .hasSize(1);
        }
    }
}

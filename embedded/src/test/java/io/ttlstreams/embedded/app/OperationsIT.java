package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.HeadlessChromium;
import io.ttlstreams.embedded.PrometheusText;
import io.ttlstreams.embedded.StandInSourceConfigs;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP surface of {@code run --embedded}, on the embedded pipeline with two partitions per topic: probes,
 * metrics, document and schedule queries (also across two instances), the status page in a real browser, and
 * readiness falling when the source connector is paused or fails. The tests share one pipeline and run in order;
 * the last ones break the source connector on purpose.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
@TestMethodOrder(OrderAnnotation.class)
class OperationsIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final String SOURCE = StandInSourceConfigs.connectorName(SESSIONS);

    @TempDir
    Path scratch;

    private EmbeddedPipeline pipeline;
    private MongoClient client;
    private MongoCollection<Document> sessions;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    @Timeout(180)
    void start() throws InterruptedException {
        Map<String, String> settings = new HashMap<>(PipelineScenarios.RULES);
        settings.put("embedded.mongodb.port", "0");
        settings.put("embedded.kafka.port", "0");
        settings.put("embedded.connect.port", "0");
        settings.put("ttl.health.interval.ms", "300");
        // Two partitions: the queries across instances need a document owned by each.
        settings.put("embedded.partitions", "2");
        pipeline = EmbeddedPipeline.start(new TtlStreamsConfig(settings));
        client = MongoClients.create(pipeline.stack().mongoConnectionString());
        sessions = client.getDatabase("app").getCollection("sessions");
    }

    @AfterAll
    @Timeout(120)
    void stop() {
        if (client != null) {
            client.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
    }

    private HttpResponse<String> get(URI base, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(base.resolve(path))
                        .timeout(Duration.ofSeconds(20))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return get(pipeline.processor().httpUrl(), path);
    }

    /**
     * The document query path of app.sessions document {@code {"_id": id}}: the key percent-encoded as a path
     * segment, where '+' is a plus sign, so spaces become %20 (URLEncoder writes '+' for them, forms' convention).
     */
    private static String documentPath(String id) {
        String key = new BsonDocument("_id", new BsonString(id)).toJson();
        return "/v1/documents/app.sessions/"
                + URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private int readyStatus() throws IOException, InterruptedException {
        return get("/health/ready").statusCode();
    }

    private void connect(String method, String path, String body) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(pipeline.stack().connectUrl() + path))
                        .header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode())
                .as(method + " " + path + ": " + response.body())
                .isBetween(200, 299);
    }

    @Test
    @Order(1)
    @Timeout(120)
    void shouldBeReadyAndExportTheTtlMetricsAsPrometheusText() throws Exception {
        await("ready once the connectors were checked")
                .atMost(Duration.ofSeconds(60))
                .until(() -> readyStatus() == 200);
        assertThat(get("/health/live").statusCode()).isEqualTo(200);

        Instant deadline = Instant.now().plusSeconds(1);
        sessions.insertOne(new Document("_id", "expires-now").append("expireAt", Date.from(deadline)));
        await("the document is deleted")
                .atMost(Duration.ofSeconds(30))
                .until(() -> sessions.countDocuments(new Document("_id", "expires-now")) == 0);

        HttpResponse<String> response = get("/metrics");
        PrometheusText metrics = PrometheusText.parse(response.body());
        assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(metrics.types())
                .containsEntry("ttl_deletes_emitted_total", "counter")
                .containsEntry("ttl_expiry_lag_seconds", "histogram")
                .containsEntry("ttl_schedule_documents", "gauge")
                .containsEntry("ttl_schedule_due", "gauge")
                .containsEntry("ttl_schedule_oldest_overdue_seconds", "gauge")
                .containsEntry("ttl_schedule_awaiting_confirmation", "gauge")
                .containsEntry("ttl_deletes_confirmed_total", "counter")
                .containsEntry("ttl_confirmed_lag_seconds", "histogram")
                .containsEntry("ttl_deletes_unconfirmed_total", "counter")
                .containsEntry("ttl_events_dead_lettered_total", "counter")
                .containsEntry("ttl_connector_running", "gauge")
                .containsEntry("ttl_connector_failures", "gauge")
                .containsEntry("ttl_source_staleness_seconds", "gauge");
        assertThat(metrics.types().keySet()).anyMatch(name -> name.startsWith("kafka_stream_"));
        assertThat(metrics.value("ttl_deletes_emitted_total", "rule", "sessions"))
                .isEqualTo(1.0);
        assertThat(metrics.value("ttl_expiry_lag_seconds_count", "rule", "sessions"))
                .isEqualTo(1.0);
        assertThat(metrics.value("ttl_expiry_lag_seconds_bucket", "rule", "sessions", "le", "86400.0"))
                .isEqualTo(1.0);
        assertThat(metrics.value("ttl_schedule_due")).isZero();
        await("the delete event confirms the delete")
                .atMost(Duration.ofSeconds(30))
                .until(() -> PrometheusText.parse(get("/metrics").body())
                                .value("ttl_deletes_confirmed_total", "rule", "sessions")
                        == 1.0);
        PrometheusText confirmed = PrometheusText.parse(get("/metrics").body());
        assertThat(confirmed.value("ttl_confirmed_lag_seconds_count", "rule", "sessions"))
                .isEqualTo(1.0);
        assertThat(confirmed.value("ttl_deletes_unconfirmed_total", "rule", "sessions"))
                .isZero();
        await("nothing awaits confirmation (the gauges' reading is reused for a second)")
                .atMost(Duration.ofSeconds(10))
                .until(() -> PrometheusText.parse(get("/metrics").body()).value("ttl_schedule_awaiting_confirmation")
                        == 0.0);
        for (String connector : pipeline.stack().connectorNames()) {
            assertThat(metrics.value("ttl_connector_running", "connector", connector))
                    .isEqualTo(1.0);
            assertThat(metrics.value("ttl_connector_failures", "connector", connector))
                    .isZero();
        }
        await("the source topic's newest record is seen")
                .atMost(Duration.ofSeconds(10))
                .until(() -> {
                    double staleness = PrometheusText.parse(get("/metrics").body())
                            .value("ttl_source_staleness_seconds", "namespace", "app.sessions");
                    return staleness >= 0 && staleness < 60;
                });
    }

    @Test
    @Order(2)
    @Timeout(120)
    void shouldAnswerTheDeadlineOfAFreshDocumentAnd404ForAnUnknownOne() throws Exception {
        Instant expireAt = Instant.now().plus(2, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);
        sessions.insertOne(new Document("_id", "fresh").append("expireAt", Date.from(expireAt)));

        await("the document is scheduled")
                .atMost(Duration.ofSeconds(30))
                .until(() -> get(documentPath("fresh")).statusCode() == 200);
        BsonDocument found = BsonDocument.parse(get(documentPath("fresh")).body());
        assertThat(found.getString("deadline").getValue()).isEqualTo(expireAt.toString());
        assertThat(found.getString("rule").getValue()).isEqualTo("sessions");
        assertThat(found.getString("state").getValue()).isEqualTo("scheduled");
        assertThat(found.getDocument("documentKey")).isEqualTo(BsonDocument.parse("{\"_id\": \"fresh\"}"));

        HttpResponse<String> unknown = get(documentPath("never-inserted"));
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(BsonDocument.parse(unknown.body()).getString("state").getValue())
                .isEqualTo("not-scheduled");
    }

    @Test
    @Order(3)
    @Timeout(240)
    void shouldAnswerForDocumentsTheOtherInstanceOwnsAndMergeTheSchedule() throws Exception {
        Map<String, Object> props = new HashMap<>(pipeline.processorConfig().originals());
        props.put(StreamsConfig.STATE_DIR_CONFIG, scratch.resolve("second").toString());
        TtlStreamsApp first = pipeline.processor();
        try (TtlStreamsApp second =
                new TtlStreamsApp(new TtlStreamsConfig(props), Optional.of(pipeline.connectors())).start()) {
            await("each instance runs one of the two tasks")
                    .atMost(Duration.ofSeconds(90))
                    .until(() -> activeTasks(first) == 1
                            && activeTasks(second) == 1
                            && first.streams().state() == KafkaStreams.State.RUNNING
                            && second.streams().state() == KafkaStreams.State.RUNNING);

            Instant base = Instant.now().plus(30, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
            Map<String, Instant> deadlines = new HashMap<>();
            for (int i = 0; i < 12; i++) {
                Instant expireAt = base.plusSeconds(i * 60L);
                deadlines.put("two-" + i, expireAt);
                sessions.insertOne(new Document("_id", "two-" + i).append("expireAt", Date.from(expireAt)));
            }

            Set<String> answeredBy = new HashSet<>();
            for (Map.Entry<String, Instant> document : deadlines.entrySet()) {
                // Always asked of the first instance, which forwards what it does not own.
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> get(first.httpUrl(), documentPath(document.getKey()))
                                        .statusCode()
                                == 200);
                BsonDocument found = BsonDocument.parse(
                        get(first.httpUrl(), documentPath(document.getKey())).body());
                assertThat(found.getString("deadline").getValue())
                        .isEqualTo(document.getValue().toString());
                answeredBy.add(found.getString("instance").getValue());
            }
            assertThat(answeredBy)
                    .as("documents of both partitions, answered by their owners")
                    .containsExactlyInAnyOrder(first.applicationServer(), second.applicationServer());

            String range = "/v1/schedule?bucket=1h&from=" + base + "&to=" + base.plus(1, ChronoUnit.HOURS);
            BsonDocument schedule =
                    BsonDocument.parse(get(second.httpUrl(), range).body());
            assertThat(schedule.getBoolean("complete").getValue()).isTrue();
            assertThat(schedule.getNumber("total").longValue()).isEqualTo(deadlines.size());
            assertThat(schedule.getArray("instances")).hasSize(2);
            assertThat(schedule.getArray("instances").stream()
                            .map(instance ->
                                    instance.asDocument().getNumber("total").longValue())
                            .toList())
                    .allMatch(total -> total > 0);
        }
        await("the first instance takes both tasks back")
                .atMost(Duration.ofSeconds(90))
                .until(() -> activeTasks(first) == 2 && first.streams().state() == KafkaStreams.State.RUNNING);
    }

    private static long activeTasks(TtlStreamsApp app) {
        return app.streams().metadataForLocalThreads().stream()
                .mapToLong(thread -> thread.activeTasks().size())
                .sum();
    }

    @Test
    @Order(4)
    @Timeout(180)
    void shouldRenderTheStatusPageWithTheHistogramInAHeadlessBrowser() throws Exception {
        Optional<HeadlessChromium> chromium = HeadlessChromium.find(scratch);
        assumeTrue(
                chromium.isPresent(), "chromium is not installed (apt-get install chromium): status page not checked");
        Instant now = Instant.now();
        for (int i = 0; i < 6; i++) {
            sessions.insertOne(new Document("_id", "page-" + i)
                    .append("expireAt", Date.from(now.plus(10 + i * 7L, ChronoUnit.MINUTES))));
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> get(documentPath("page-5")).statusCode() == 200);

        long minutesWithExpiries = BsonDocument.parse(
                        get("/v1/schedule?bucket=1m").body())
                .getArray("buckets")
                .stream()
                .filter(bucket -> bucket.asDocument().getNumber("count").longValue() > 0)
                .count();

        String dom = chromium.get().dumpDom(pipeline.processor().httpUrl(), 5_000);

        assertThat(dom).contains("id=\"state\">RUNNING<", "id=\"ready\">ready<", "mongo-source-app.sessions");
        assertThat(minutesWithExpiries).isGreaterThanOrEqualTo(6);
        assertThat(dom.split("class=\"bar\"", -1).length - 1)
                .as("one bar per minute with expiries in the next hour")
                .isEqualTo(minutesWithExpiries);
        Path png = Path.of("target", "status-page.png");
        chromium.get().screenshot(pipeline.processor().httpUrl(), 5_000, 1200, 820, png);
        assertThat(png).isNotEmptyFile();
    }

    @Test
    @Order(5)
    @Timeout(120)
    void shouldTurnNotReadyWhileTheSourceConnectorIsPaused() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> readyStatus() == 200);

        connect("PUT", "/connectors/" + SOURCE + "/pause", "");

        // The README shows this answer.
        String paused = "{\"status\": \"DOWN\", \"state\": \"RUNNING\", \"reasons\": [\"connector " + SOURCE
                + " is PAUSED\", \"connector " + SOURCE + " task 0 is PAUSED\"]}";
        await("not ready while paused")
                .atMost(Duration.ofSeconds(30))
                .until(() -> get("/health/ready").body().strip(), paused::equals);
        assertThat(readyStatus()).isEqualTo(503);

        connect("PUT", "/connectors/" + SOURCE + "/resume", "");

        await("ready again once resumed").atMost(Duration.ofSeconds(30)).until(() -> readyStatus() == 200);
    }

    /**
     * A source task that fails stops the flow of change events for good, as one whose resume token fell off the
     * oplog does: here a topic prefix Kafka refuses makes the next event unpublishable.
     */
    @Test
    @Order(6)
    @Timeout(180)
    void shouldTurnNotReadyAndExportTheFailureWhenTheSourceTaskFails() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> readyStatus() == 200);
        Map<String, String> config = new HashMap<>(
                StandInSourceConfigs.forNamespace(SESSIONS, pipeline.stack().mongoConnectionString()));
        config.put("topic.prefix", "no spaces allowed");
        BsonDocument body = new BsonDocument();
        config.forEach((key, value) -> body.append(key, new BsonString(value)));
        connect("PUT", "/connectors/" + SOURCE + "/config", body.toJson());

        // Until the reconfigured task runs, the old one publishes the inserts: keep writing until one fails it.
        AtomicInteger written = new AtomicInteger();
        await("not ready once the task failed")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    sessions.insertOne(new Document("_id", "unpublishable-" + written.incrementAndGet())
                            .append("expireAt", new Date()));
                    HttpResponse<String> ready = get("/health/ready");
                    return ready.statusCode() == 503
                            && ready.body().contains("connector " + SOURCE + " task 0 is FAILED");
                });
        assertThat(get("/health/ready").body())
                .contains("InvalidTopicException")
                .as("a failed task stays failed: no silent recovery")
                .contains("FAILED");
        PrometheusText metrics = PrometheusText.parse(get("/metrics").body());
        assertThat(metrics.value("ttl_connector_failures", "connector", SOURCE)).isEqualTo(1.0);
        assertThat(metrics.value("ttl_connector_running", "connector", SOURCE)).isZero();
    }
}

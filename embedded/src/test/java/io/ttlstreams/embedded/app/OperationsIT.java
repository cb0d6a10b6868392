package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.PercentEncoding;
import io.ttlstreams.embedded.HeadlessChromium;
import io.ttlstreams.embedded.PrometheusText;
import io.ttlstreams.topology.TtlTopology;
import java.net.http.HttpResponse;
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
import org.apache.kafka.streams.KafkaStreams;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP surface of {@code run --embedded}, on the embedded pipeline with two partitions per topic: probes,
 * metrics, document and schedule queries (also across two instances) and the status page in a real browser. The tests
 * share one pipeline, in any order: none breaks it ({@link ReadinessIT} does, on pipelines of its own), and each
 * uses deadlines of its own (the schedule query's hour holds only its documents).
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class OperationsIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");

    /** The settings of the pipelines of this class and of {@link ReadinessIT}. */
    static EmbeddedPipelineExtension pipeline() {
        // Two partitions: the queries across instances need a document owned by each.
        return EmbeddedPipelineExtension.with(PipelineScenarios.RULES)
                .and("ttl.health.interval.ms", "300")
                .and("embedded.partitions", "2");
    }

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = pipeline();

    private final OperationsHttp http = new OperationsHttp(PIPELINE::pipeline);

    /**
     * The document query path of app.sessions document {@code {"_id": id}}: the key percent-encoded as a path
     * segment ({@link PercentEncoding}: a '+' is a plus sign, a space %20).
     */
    private static String documentPath(String id) {
        String key = new BsonDocument("_id", new BsonString(id)).toJson();
        return "/v1/documents/app.sessions/" + PercentEncoding.encode(key);
    }

    @Test
    void shouldBeReadyAndExportTheTtlMetricsAsPrometheusText() throws Exception {
        await("ready, and the connectors checked")
                .atMost(Duration.ofSeconds(60))
                .until(http::readyWithConnectorsRunning);
        assertThat(http.get("/health/live").statusCode()).isEqualTo(200);

        Instant deadline = Instant.now().plusSeconds(1);
        PIPELINE.collection(SESSIONS)
                .insertOne(new Document("_id", "expires-now").append("expireAt", Date.from(deadline)));
        await("the document is deleted")
                .atMost(Duration.ofSeconds(30))
                .until(() -> PIPELINE.collection(SESSIONS).countDocuments(new Document("_id", "expires-now")) == 0);

        HttpResponse<String> response = http.get("/metrics");
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
        assertThat(metrics.types().keySet())
                .as("the ttl group is exported once, as ttl_*")
                .noneMatch(name -> name.startsWith("kafka_stream_ttl_"));
        assertThat(metrics.sum("ttl_deletes_emitted_total", "rule", "sessions")).isEqualTo(1.0);
        assertThat(metrics.sum("ttl_expiry_lag_seconds_count", "rule", "sessions"))
                .isEqualTo(1.0);
        assertThat(metrics.sum("ttl_expiry_lag_seconds_bucket", "rule", "sessions", "le", "86400.0"))
                .isEqualTo(1.0);
        assertThat(metrics.value("ttl_schedule_due")).isZero();
        await("the delete event confirms the delete")
                .atMost(Duration.ofSeconds(30))
                .until(() -> PrometheusText.parse(http.get("/metrics").body())
                                .sum("ttl_deletes_confirmed_total", "rule", "sessions")
                        == 1.0);
        PrometheusText confirmed = PrometheusText.parse(http.get("/metrics").body());
        assertThat(confirmed.sum("ttl_confirmed_lag_seconds_count", "rule", "sessions"))
                .isEqualTo(1.0);
        assertThat(confirmed.sum("ttl_deletes_unconfirmed_total", "rule", "sessions"))
                .isZero();
        await("nothing awaits confirmation (the gauges' reading is reused for a second)")
                .atMost(Duration.ofSeconds(10))
                .until(() ->
                        PrometheusText.parse(http.get("/metrics").body()).value("ttl_schedule_awaiting_confirmation")
                                == 0.0);
        for (String connector : PIPELINE.pipeline().stack().connectorNames()) {
            assertThat(metrics.value("ttl_connector_running", "connector", connector))
                    .isEqualTo(1.0);
            assertThat(metrics.value("ttl_connector_failures", "connector", connector))
                    .isZero();
        }
        await("the source topic's newest record is seen")
                .atMost(Duration.ofSeconds(10))
                .until(() -> {
                    double staleness = PrometheusText.parse(http.get("/metrics").body())
                            .value("ttl_source_staleness_seconds", "namespace", "app.sessions");
                    return staleness >= 0 && staleness < 60;
                });
    }

    @Test
    void shouldAnswerTheDeadlineOfAFreshDocumentAnd404ForAnUnknownOne() throws Exception {
        Instant expireAt = Instant.now().plus(2, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);
        PIPELINE.collection(SESSIONS).insertOne(new Document("_id", "fresh").append("expireAt", Date.from(expireAt)));

        await("the document is scheduled")
                .atMost(Duration.ofSeconds(30))
                .until(() -> http.get(documentPath("fresh")).statusCode() == 200);
        BsonDocument found = BsonDocument.parse(http.get(documentPath("fresh")).body());
        assertThat(found.getString("deadline").getValue()).isEqualTo(expireAt.toString());
        assertThat(found.getString("rule").getValue()).isEqualTo("sessions");
        assertThat(found.getString("state").getValue()).isEqualTo("scheduled");
        assertThat(found.getDocument("documentKey")).isEqualTo(BsonDocument.parse("{\"_id\": \"fresh\"}"));

        HttpResponse<String> unknown = http.get(documentPath("never-inserted"));
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(BsonDocument.parse(unknown.body()).getString("state").getValue())
                .isEqualTo("not-scheduled");
    }

    @Test
    void shouldAnswerForDocumentsTheOtherInstanceOwnsAndMergeTheSchedule() throws Exception {
        TtlStreamsApp first = PIPELINE.pipeline().processor();
        try (TtlStreamsApp second = new TtlStreamsApp(
                        new TtlStreamsConfig(PIPELINE.instanceSettings()),
                        Optional.of(PIPELINE.pipeline().connectors()))
                .start()) {
            await("each instance runs one of the two tasks")
                    .atMost(Duration.ofSeconds(90))
                    .until(() -> activeTasks(first) == 1
                            && activeTasks(second) == 1
                            && first.streams().state() == KafkaStreams.State.RUNNING
                            && second.streams().state() == KafkaStreams.State.RUNNING);

            // Three hours on: after the deadlines of the other tests, so that the hour queried holds these alone.
            Instant base = Instant.now().plus(3, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS);
            Map<String, Instant> deadlines = new HashMap<>();
            for (int i = 0; i < 12; i++) {
                Instant expireAt = base.plusSeconds(i * 60L);
                deadlines.put("two-" + i, expireAt);
                PIPELINE.collection(SESSIONS)
                        .insertOne(new Document("_id", "two-" + i).append("expireAt", Date.from(expireAt)));
            }

            Set<String> answeredBy = new HashSet<>();
            for (Map.Entry<String, Instant> document : deadlines.entrySet()) {
                // Always asked of the first instance, which forwards what it does not own.
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> http.get(first.httpUrl(), documentPath(document.getKey()))
                                        .statusCode()
                                == 200);
                BsonDocument found = BsonDocument.parse(http.get(first.httpUrl(), documentPath(document.getKey()))
                        .body());
                assertThat(found.getString("deadline").getValue())
                        .isEqualTo(document.getValue().toString());
                answeredBy.add(found.getString("instance").getValue());
            }
            assertThat(answeredBy)
                    .as("documents of both partitions, answered by their owners")
                    .containsExactlyInAnyOrder(first.applicationServer(), second.applicationServer());

            String range = "/v1/schedule?bucket=1h&from=" + base + "&to=" + base.plus(1, ChronoUnit.HOURS);
            BsonDocument schedule =
                    BsonDocument.parse(http.get(second.httpUrl(), range).body());
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

    /** The active schedule tasks of an instance (not the sink dead letters' task). */
    private static long activeTasks(TtlStreamsApp app) {
        return app.streams().metadataForLocalThreads().stream()
                .flatMap(thread -> thread.activeTasks().stream())
                .filter(task -> task.taskId().subtopology() == TtlTopology.SCHEDULE_SUBTOPOLOGY)
                .count();
    }

    @Test
    void shouldRenderTheStatusPageWithTheHistogramInAHeadlessBrowser(@TempDir Path scratch) throws Exception {
        Optional<HeadlessChromium> chromium = HeadlessChromium.find(scratch);
        assumeTrue(
                chromium.isPresent(), "chromium is not installed (apt-get install chromium): status page not checked");
        Instant now = Instant.now();
        for (int i = 0; i < 6; i++) {
            PIPELINE.collection(SESSIONS)
                    .insertOne(new Document("_id", "page-" + i)
                            .append("expireAt", Date.from(now.plus(10 + i * 7L, ChronoUnit.MINUTES))));
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> http.get(documentPath("page-5")).statusCode() == 200);

        long minutesWithExpiries =
                BsonDocument.parse(http.get("/v1/schedule?bucket=1m").body()).getArray("buckets").stream()
                        .filter(bucket -> bucket.asDocument().getNumber("count").longValue() > 0)
                        .count();

        // The page shows readiness, and "degraded" until the first check of the connectors.
        await("ready, and the connectors checked")
                .atMost(Duration.ofSeconds(60))
                .until(http::readyWithConnectorsRunning);
        String dom = chromium.get().dumpDom(PIPELINE.pipeline().processor().httpUrl(), 5_000);

        assertThat(dom).contains("id=\"state\">RUNNING<", "id=\"ready\">ready<", "mongo-source-app");
        assertThat(minutesWithExpiries).isGreaterThanOrEqualTo(6);
        assertThat(dom.split("class=\"bar\"", -1).length - 1)
                .as("one bar per minute with expiries in the next hour")
                .isEqualTo(minutesWithExpiries);
        Path png = Path.of("target", "status-page.png");
        chromium.get().screenshot(PIPELINE.pipeline().processor().httpUrl(), 5_000, 1200, 820, png);
        assertThat(png).isNotEmptyFile();
    }
}

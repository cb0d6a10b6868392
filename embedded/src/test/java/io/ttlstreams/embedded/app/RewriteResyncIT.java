package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.model.Aggregates;
import io.micrometer.core.instrument.Counter;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.processor.TtlMetrics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 44, point 3, on the embedded pipeline with the real MongoDB connectors: a collection rewritten under the
 * processor is resynced without anyone running {@code resync}. {@code $out} replaces app.sessions through a temporary
 * collection renamed over it, which the source connector publishes to the temporary collection's topic, read by
 * nobody; a {@code dropDatabase} invalidates the connector's database stream, which mongo-kafka 2.0.1 reopens without
 * its resume token, from the present, so that what was written before it reopened never arrives. In both cases the
 * collection's documents expire at their deadlines, none early.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
class RewriteResyncIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final String SOURCE = ConnectorConfigs.SOURCE_NAME + "-" + SESSIONS.database();
    private static final Duration WAIT = ExpiryProbe.WAIT;

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(settings());

    private MongoClient client;
    private ExpiryProbe sessions;

    /** The rule on app.sessions; rewrites checked every 200 ms and resynced 2 s after they are seen. */
    static Map<String, String> settings() {
        Map<String, String> settings = RuleSettings.expireAtRules(List.of(SESSIONS), List.of(SESSIONS));
        settings.put("ttl.resync.rewrite.check.interval.ms", "200");
        settings.put("ttl.resync.rewrite.delay.ms", "2000");
        return settings;
    }

    @BeforeAll
    void start() {
        client = PIPELINE.mongo();
        sessions = PIPELINE.probe(SESSIONS);
    }

    @Test
    void shouldExpireTheDocumentsOfACollectionRebuiltByOutAtTheirDeadlinesWithoutAResyncRun() {
        Instant old = ExpiryProbe.deadlineIn(600);
        sessions.insertExpiring("kept", old);
        sessions.insertExpiring("dropped-by-rebuild", old);
        sessions.awaitScheduled("kept", old);
        awaitBaseline();
        double replaced = automaticResyncs("replaced");

        // The rebuild: a staging collection, filled by the application, replaces app.sessions through $out; "kept"
        // keeps its _id with a new deadline, the others are new.
        Instant deadline = ExpiryProbe.deadlineIn(20);
        List<Object> rebuilt = List.of("kept", "new-1", "new-2");
        var staging = client.getDatabase(SESSIONS.database()).getCollection("staging");
        rebuilt.forEach(id -> staging.insertOne(new Document("_id", id).append("expireAt", Date.from(deadline))));
        staging.aggregate(List.of(Aggregates.out(SESSIONS.collection()))).toCollection();

        for (Object id : rebuilt) {
            sessions.awaitScheduled(id, deadline);
        }
        assertThat(automaticResyncs("replaced"))
                .as("automatic resyncs, reason replaced")
                .isGreaterThan(replaced);
        assertThat(Instant.now())
                .as("the scenario needs the resync done before the deadline")
                .isBefore(deadline);
        sessions.assertExpireOnTime(rebuilt, deadline);
    }

    @Test
    void shouldExpireTheDocumentsInsertedAfterADropDatabaseThatTheRestartedStreamNeverDelivered() throws Exception {
        Instant old = ExpiryProbe.deadlineIn(600);
        sessions.insertExpiring("before-drop", old);
        sessions.awaitScheduled("before-drop", old);
        awaitBaseline();
        double resyncs = automaticResyncs("replaced") + automaticResyncs("created");

        // The connector paused before the drop, resumed after the inserts: its stream, invalidated by the drop, is
        // reopened without a resume token only once the inserts are done, as a slow reopen would be.
        Instant deadline = ExpiryProbe.deadlineIn(20);
        List<Object> after = List.of("after-1", "after-2");
        connector("pause");
        try {
            await("the source task paused").atMost(WAIT).until(this::sourceTaskPaused);
            client.getDatabase(SESSIONS.database()).drop();
            after.forEach(id -> sessions.insertExpiring(id, deadline));
        } finally {
            connector("resume");
        }

        for (Object id : after) {
            sessions.awaitScheduled(id, deadline);
        }
        assertThat(automaticResyncs("replaced") + automaticResyncs("created"))
                .as("automatic resyncs, reason replaced or created")
                .isGreaterThan(resyncs);
        assertThat(Instant.now())
                .as("the scenario needs the resync done before the deadline")
                .isBefore(deadline);
        sessions.assertExpireOnTime(after, deadline);
    }

    /** Waits until the running processor has listed the collections at least twice: the baseline is taken. */
    private void awaitBaseline() {
        await("two rewrite checks of the running processor")
                .atMost(WAIT)
                .until(() -> figures().total(TtlMetrics.REWRITE_CHECKS) >= 2);
    }

    private double automaticResyncs(String reason) {
        return PIPELINE
                .pipeline()
                .processor()
                .metrics()
                .find(TtlMetrics.meterName(TtlMetrics.RESYNCS_AUTOMATIC))
                .tag(TtlMetrics.REASON_TAG, reason)
                .counters()
                .stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    private ExpiryFigures figures() {
        return ExpiryFigures.of(PIPELINE.pipeline().processor().metrics());
    }

    private void connector(String action) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(
                                        URI.create(PIPELINE.pipeline().stack().connectUrl() + "/connectors/" + SOURCE
                                                + "/" + action))
                                .PUT(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
    }

    /** Whether the source connector's task says PAUSED: its thread has stopped polling, not only been asked to. */
    private boolean sourceTaskPaused() throws Exception {
        String status = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        PIPELINE.pipeline().stack().connectUrl() + "/connectors/" + SOURCE + "/status"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        int tasks = status.indexOf("\"tasks\"");
        return tasks >= 0 && status.substring(tasks).contains("\"PAUSED\"");
    }
}

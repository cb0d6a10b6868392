package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.StandInSourceConfigs;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * Issue 23, finding 8: a document with a 400 kB {@code _id} makes a change event larger than the source connector's
 * producer sends (the id is in the record key, in documentKey and in fullDocument). It used to fail the source task,
 * and with it the expiry of the whole namespace; now the event is skipped, and a canary document of the same
 * namespace still expires on time while the connector stays RUNNING.
 */
@Tag("integration")
@TestInstance(Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class OversizedKeyIT {

    private static final Duration WITHIN = Duration.ofSeconds(2);

    private EmbeddedPipeline pipeline;
    private MongoClient client;

    @BeforeAll
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
    void start() throws InterruptedException {
        Map<String, String> settings = new HashMap<>(PipelineScenarios.RULES);
        settings.put("embedded.mongodb.port", "0");
        settings.put("embedded.kafka.port", "0");
        settings.put("embedded.connect.port", "0");
        pipeline = EmbeddedPipeline.start(new TtlStreamsConfig(settings));
        client = MongoClients.create(pipeline.stack().mongoConnectionString());
    }

    @AfterAll
    @Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
    void stop() {
        if (client != null) {
            client.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void shouldKeepExpiringTheNamespaceAfterADocumentWithA400KbId() {
        MongoCollection<Document> sessions = client.getDatabase("app").getCollection("sessions");
        Instant deadline = Instant.now().plusSeconds(4);
        String hugeId = "k".repeat(400_000);
        sessions.insertOne(new Document("_id", hugeId).append("expireAt", Date.from(deadline)));
        sessions.insertOne(new Document("_id", "canary").append("expireAt", Date.from(deadline)));

        ExpiryProbe.assertExpireOnTime(sessions, List.of("canary"), deadline, WITHIN);

        // The canary's delete came after the huge document's event: it was not scheduled, and is never deleted.
        assertThat(sessions.countDocuments(Filters.eq("_id", hugeId))).isEqualTo(1);
        String connector = StandInSourceConfigs.connectorName(Namespace.parse("app.sessions"));
        assertThat(pipeline.stack().connect().status(connector).isRunning())
                .as("the source connector and its task are RUNNING")
                .isTrue();
    }
}

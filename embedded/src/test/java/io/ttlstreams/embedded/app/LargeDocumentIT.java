package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.TopicReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 43: a 15 MB document in a collection that keeps pre-images, under a rule whose expired records carry them,
 * on a stand-in playing MongoDB 7.0. Its delete event would carry the whole document as its pre-image: far more than
 * the source connector's producer sends, so Connect used to skip the event, the delete was never seen and the expired
 * record, if any, came from a read-back. The source pipeline now puts a marker in place of a pre-image over its bound:
 * the source keeps running, the small documents of the same database expire on time with their pre-images, and the
 * large one expires with its record saying the document was too large to carry.
 */
@Tag("integration")
class LargeDocumentIT {

    private static final String TOPIC = "ttl.expired";
    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final int SMALL = 20;
    private static final String LARGE = "large";
    /** Under MongoDB's 16 MiB, with room for the rest of the document and its insert command. */
    private static final int LARGE_BYTES = 15_000_000;
    /** How late a small document's delete may be confirmed on this shared machine and still count as on time. */
    private static final Duration ON_TIME = Duration.ofSeconds(20);

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE = EmbeddedPipelineExtension.with(PipelineScenarios.RULES)
            .and(EmbeddedOptions.EMBEDDED_MONGODB_VERSION_CONFIG, "7.0")
            .and("ttl.expired.topic", TOPIC)
            .and("ttl.rule.sessions.expired.document", "pre-image");

    @Test
    void shouldExpireALargeDocumentWithItsRecordMarkedTooLargeAndTheOthersOnTimeWhenItsPreImageExceedsTheBound() {
        PIPELINE.mongo()
                .getDatabase(SESSIONS.database())
                .runCommand(new Document("create", SESSIONS.collection())
                        .append("changeStreamPreAndPostImages", new Document("enabled", true)));
        MongoCollection<Document> sessions = PIPELINE.collection(SESSIONS);
        Instant deadline = Instant.now().plusSeconds(8);
        sessions.insertOne(new Document("_id", LARGE)
                .append("expireAt", Date.from(deadline))
                .append("payload", "x".repeat(LARGE_BYTES)));
        List<Document> small = new ArrayList<>();
        for (int i = 0; i < SMALL; i++) {
            small.add(new Document("_id", "small-" + i)
                    .append("expireAt", Date.from(deadline))
                    .append("user", "user-" + i));
        }
        sessions.insertMany(small);

        try (TopicReader expired = new TopicReader(PIPELINE.pipeline().stack().bootstrapServers(), TOPIC)) {
            await("an expired record for every document, the large one included")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> expired.poll(r -> true).size() >= SMALL + 1);
            Map<String, BsonDocument> records = expired.poll(r -> true).stream()
                    .collect(Collectors.toMap(LargeDocumentIT::idOf, r -> BsonDocument.parse(r.value())));

            BsonDocument large = records.get(LARGE);
            assertThat(large).as("the large document's record").isNotNull();
            assertThat(large.getString("documentState").getValue())
                    .as("the large document's record says it was too large to carry: %s", large)
                    .isEqualTo("too-large");
            assertThat(large.get("document").isNull()).isTrue();
            assertThat(large.getString("confirmedBy").getValue())
                    .as("its delete event reached the processor")
                    .isEqualTo("change-stream");
            for (Document document : small) {
                BsonDocument record = records.get(document.getString("_id"));
                assertThat(record).as("the record of %s", document.get("_id")).isNotNull();
                assertThat(record.getString("documentState").getValue()).isEqualTo("pre-image");
                assertThat(record.getDocument("document")).isEqualTo(document.toBsonDocument());
                Instant confirmedAt =
                        Instant.parse(record.getString("confirmedAt").getValue());
                assertThat(confirmedAt).as("never early").isAfterOrEqualTo(deadline);
                assertThat(Duration.ofMillis(record.getNumber("lateMillis").longValue()))
                        .as("on time")
                        .isLessThanOrEqualTo(ON_TIME);
            }
            System.out.printf(
                    "LargeDocumentIT: small documents confirmed %s ms late at most, the large one %s ms late%n",
                    records.values().stream()
                            .filter(r -> r.getString("documentState").getValue().equals("pre-image"))
                            .mapToLong(r -> r.getNumber("lateMillis").longValue())
                            .max()
                            .orElse(-1),
                    large.getNumber("lateMillis").longValue());
        }
        assertThat(sessions.countDocuments(Filters.eq("_id", LARGE))).isZero();
        assertThat(PIPELINE.pipeline()
                        .stack()
                        .connect()
                        .status(ConnectorConfigs.SOURCE_NAME + "-" + SESSIONS.database())
                        .isRunning())
                .as("the source connector of app and its task are RUNNING")
                .isTrue();
    }

    private static String idOf(ConsumerRecord<String, String> record) {
        return BsonDocument.parse(record.key())
                .getDocument("documentKey")
                .getString("_id")
                .getValue();
    }
}

package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ChangeStreamPipeline;
import io.ttlstreams.connect.ConnectorConfigs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The change-stream stages the stand-in evaluates directly give what mongo-java-server's general aggregation gives
 * for the same stages, on the pipeline {@code connect-config} renders; and a stage a change stream does not allow
 * still fails.
 */
class StreamStagesTest {

    private static final int MAX_KEY_BYTES = 64;

    /** The production pipeline for one field rule with a partial filter on {@code app.sessions}. */
    private static List<Document> productionStages(String... settings) {
        List<String> all = new ArrayList<>(List.of(
                "ttl.rule.sessions.partial.filter",
                "{\"meta.kind\": \"web\"}",
                "ttl.document.key.max.bytes",
                Integer.toString(MAX_KEY_BYTES)));
        all.addAll(List.of(settings));
        TtlStreamsConfig config = TestConfigs.config(all.toArray(String[]::new));
        String pipeline = ConnectorConfigs.render(config, "mongodb://localhost", false)
                .sources()
                .get(0)
                .config()
                .get("pipeline");
        List<Document> stages = new ArrayList<>();
        for (org.bson.BsonValue stage : org.bson.BsonArray.parse(pipeline)) {
            stages.add((Document)
                    standIn(org.bson.Document.parse(stage.asDocument().toJson())));
        }
        return stages;
    }

    /** A driver value as mongo-java-server's (the pipeline holds documents, arrays, strings and numbers). */
    private static Object standIn(Object value) {
        if (value instanceof Map<?, ?> map) {
            Document document = new Document();
            map.forEach((key, inner) -> document.put((String) key, standIn(inner)));
            return document;
        }
        if (value instanceof List<?> list) {
            return list.stream().map(StreamStagesTest::standIn).toList();
        }
        return value;
    }

    private static Aggregation general(List<Document> stages) {
        return Aggregation.fromPipeline(stages, null, null, null, null);
    }

    private static Document event(String type, String collection, Object id, Object fullDocument) {
        Document event = new Document("_id", new Document("_data", "82" + id))
                .append("operationType", type)
                .append("clusterTime", new BsonTimestamp(7L << 32 | 1))
                .append("wallTime", Instant.ofEpochMilli(1_000))
                .append("ns", new Document("db", "app").append("coll", collection))
                .append("documentKey", new Document("_id", id));
        if (fullDocument != Optional.empty()) {
            event.append("fullDocument", fullDocument);
        }
        return event.append("updateDescription", new Document("updatedFields", new Document("v", 2)));
    }

    /** A session as the stand-in stores it (a date is an {@link Instant}, which $bsonSize can encode). */
    private static Document session(Object id) {
        return new Document("_id", id)
                .append("user", "u")
                .append("expireAt", Instant.ofEpochMilli(5_000))
                .append("meta", new Document("kind", "web").append("size", 3))
                .append("payload", "x".repeat(100));
    }

    @Test
    void shouldMatchAndProjectLikeTheGeneralAggregationWhenThePipelineIsTheProductionOne() {
        List<Document> stages = productionStages();
        assertThat(stages)
                .extracting(stage -> stage.keySet().iterator().next())
                .containsExactly("$match", "$match", "$project", "$set");
        StreamStages compiled = new StreamStages(stages, StreamStagesTest::general);
        // The general aggregation lacks $bsonSize: the reference runs the match and the projection, the key size by
        // hand; the size bounds of $set change none of these small events.
        Aggregation reference = general(List.of(stages.get(0), stages.get(2)));
        List<Document> events = List.of(
                event("insert", "sessions", 1L, session(1L)),
                event("update", "sessions", 2L, session(2L)),
                event("replace", "sessions", "r", new Document("_id", "r")),
                event("delete", "sessions", 3L, Optional.empty()),
                event("update", "sessions", 4L, null),
                event("insert", "other", 5L, session(5L)),
                event("createIndexes", "sessions", 6L, Optional.empty()),
                event("insert", "sessions", "k".repeat(MAX_KEY_BYTES), session("k".repeat(MAX_KEY_BYTES))),
                new Document("_id", new Document("_data", "83"))
                        .append("operationType", "dropDatabase")
                        .append("ns", new Document("db", "app")),
                new Document("_id", new Document("_data", "84"))
                        .append("operationType", "rename")
                        .append("ns", new Document("db", "app").append("coll", "old"))
                        .append("to", new Document("db", "app").append("coll", "sessions")));

        for (Document event : events) {
            boolean smallKey = !(event.get("documentKey") instanceof Document key)
                    || !(key.get("_id") instanceof String id)
                    || id.length() < MAX_KEY_BYTES;
            List<Document> expected = smallKey ? reference.runStages(Stream.of(event.cloneDeeply())) : List.of();
            Optional<Document> actual = compiled.apply(event.cloneDeeply());

            assertThat(actual.map(StreamStagesTest::sorted).map(List::of).orElse(List.of()))
                    .as("%s", event)
                    .isEqualTo(expected.stream().map(StreamStagesTest::sorted).toList());
            // As MongoDB's inclusion projection: the fields in the event's order.
            actual.ifPresent(document -> assertThat(List.copyOf(document.keySet()))
                    .as("field order of %s", event)
                    .isEqualTo(event.keySet().stream()
                            .filter(document::containsKey)
                            .toList()));
        }
    }

    /** The value with every document's fields in name order, to compare contents apart from order. */
    private static Object sorted(Object value) {
        if (value instanceof Document document) {
            Map<String, Object> fields = new TreeMap<>();
            document.forEach((key, inner) -> fields.put(key, sorted(inner)));
            return fields;
        }
        return value;
    }

    @Test
    void shouldProjectAPathThroughAnArrayLikeTheGeneralAggregation() {
        List<Document> stages = productionStages();
        Document event = event(
                "insert",
                "sessions",
                1L,
                session(1L).append("meta", List.of(new Document("kind", "web").append("size", 3), 7)));
        Document project = stages.get(2);

        Optional<Document> actual =
                new StreamStages(List.of(project), StreamStagesTest::general).apply(event.cloneDeeply());

        assertThat(actual.map(StreamStagesTest::sorted))
                .contains(sorted(general(List.of(project))
                        .runStages(Stream.of(event.cloneDeeply()))
                        .get(0)));
    }

    @Test
    void shouldCompareTheBsonSizeOfAPathWithEachComparison() {
        Document small = event("insert", "sessions", 1L, session(1L));
        // {_id: <int64>}: 4 (length) + 1 (type) + 4 ("_id\0") + 8 + 1 (end) = 18 bytes.
        for (String comparison : List.of("$lt", "$lte", "$gt", "$gte", "$eq", "$ne")) {
            Document stage = new Document(
                    "$match",
                    new Document(
                            "$expr", new Document(comparison, List.of(new Document("$bsonSize", "$documentKey"), 18))));
            boolean kept = new StreamStages(List.of(stage), StreamStagesTest::general)
                    .apply(small.cloneDeeply())
                    .isPresent();
            assertThat(kept)
                    .as(comparison)
                    .isEqualTo(List.of("$lte", "$gte", "$eq").contains(comparison));
        }
    }

    @Test
    void shouldReplaceAPreImageLargerThanTheBoundByItsRuleFieldsWhenThePipelineKeepsPreImages() {
        List<Document> stages =
                productionStages("ttl.expired.topic", "ttl.expired", "ttl.rule.sessions.expired.document", "pre-image");
        assertThat(stages)
                .extracting(stage -> stage.keySet().iterator().next())
                .containsExactly("$match", "$match", "$addFields", "$project", "$set");
        StreamStages compiled = new StreamStages(stages, StreamStagesTest::general);
        Instant expireAt = Instant.ofEpochMilli(5_000);
        Document small = session(1L);
        Document large = session(2L).append("payload", "x".repeat(ChangeStreamPipeline.PRE_IMAGE_MAX_BYTES));

        Document kept = compiled.apply(
                        event("delete", "sessions", 1L, Optional.empty()).append("fullDocumentBeforeChange", small))
                .orElseThrow();
        Document replaced = compiled.apply(
                        event("delete", "sessions", 2L, Optional.empty()).append("fullDocumentBeforeChange", large))
                .orElseThrow();
        Document none =
                compiled.apply(event("insert", "sessions", 3L, session(3L))).orElseThrow();

        assertThat(kept.get("fullDocumentBeforeChange")).isEqualTo(small);
        assertThat(kept).doesNotContainKey(ChangeStreamPipeline.PRE_IMAGE_TOO_LARGE);
        assertThat(replaced).doesNotContainKey("fullDocumentBeforeChange");
        assertThat(sorted(replaced.get(ChangeStreamPipeline.PRE_IMAGE_TOO_LARGE)))
                .as("the marker: the _id and what the rules read, nothing else")
                .isEqualTo(sorted(new Document("_id", 2L)
                        .append("expireAt", expireAt)
                        .append("meta", new Document("kind", "web"))));
        assertThat(none)
                .doesNotContainKeys(
                        "fullDocumentBeforeChange",
                        ChangeStreamPipeline.PRE_IMAGE_TOO_LARGE,
                        ChangeStreamPipeline.FULL_DOCUMENT_TOO_LARGE)
                .containsKey("fullDocument");

        // A field the rules read (the partial filter's meta.kind) beyond the bound: the event says so, or the marker
        // keeps the _id alone.
        Document hugeKind = new Document("kind", "k".repeat(ChangeStreamPipeline.RULE_FIELDS_MAX_BYTES));
        Document dropped = compiled.apply(
                        event("update", "sessions", 4L, session(4L).append("meta", hugeKind)))
                .orElseThrow();
        Document cut = compiled.apply(event("delete", "sessions", 5L, Optional.empty())
                        .append(
                                "fullDocumentBeforeChange",
                                session(5L)
                                        .append("meta", hugeKind)
                                        .append("payload", "x".repeat(ChangeStreamPipeline.PRE_IMAGE_MAX_BYTES))))
                .orElseThrow();

        assertThat(dropped).doesNotContainKey("fullDocument");
        assertThat(dropped.get(ChangeStreamPipeline.FULL_DOCUMENT_TOO_LARGE))
                .isInstanceOf(Integer.class)
                .satisfies(
                        size -> assertThat((Integer) size).isGreaterThan(ChangeStreamPipeline.RULE_FIELDS_MAX_BYTES));
        assertThat(cut).doesNotContainKey("fullDocumentBeforeChange");
        assertThat(cut.get(ChangeStreamPipeline.PRE_IMAGE_TOO_LARGE)).isEqualTo(new Document("_id", 5L));
    }

    @Test
    void shouldRefuseAStageAChangeStreamDoesNotAllowWhenTheStreamOpens() {
        Document group = new Document("$group", new Document("_id", "$operationType"));

        assertThatThrownBy(() -> new StreamStages(List.of(group), StreamStagesTest::general))
                .isInstanceOf(MongoServerError.class)
                .hasMessageContaining("$group is not permitted in a $changeStream pipeline");
    }
}

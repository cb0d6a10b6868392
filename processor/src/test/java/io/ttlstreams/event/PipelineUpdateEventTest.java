package io.ttlstreams.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TopicNamespaceMapping;
import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import java.util.Map;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/**
 * The change events of an update with an aggregation pipeline ({@code updateOne(filter, [{$set: {expireAt: {$add:
 * ["$$NOW", ...]}}}])}, the renewal from the server's clock), as the source connector publishes them: an {@code update}
 * whose {@code updateDescription} may hold {@code truncatedArrays} and {@code disambiguatedPaths}, or, when MongoDB
 * logged the update as a replacement, a {@code replace}. The parser reads the document and the time from them as from
 * any update.
 */
class PipelineUpdateEventTest {

    private static final String TOPIC = "app.sessions";

    /** What the source connector published, through the production pipeline, for a pipeline update (embedded stack). */
    private static final String PUBLISHED_UPDATE = """
            {"_id": {"_data": "826B0FC89B000000056B0758C9AF9C4D67000000000000000500"}, "operationType": "update", \
            "clusterTime": {"$timestamp": {"t": 1796196507, "i": 5}}, \
            "wallTime": {"$date": {"$numberLong": "1796196507671"}}, \
            "fullDocument": {"_id": "large", "expireAt": {"$date": {"$numberLong": "1796200507581"}}}, \
            "ns": {"db": "app", "coll": "sessions"}, "documentKey": {"_id": "large"}}""";

    /** The same update of a small document, which MongoDB logs as a replacement: a replace event. */
    private static final String PUBLISHED_REPLACE = """
            {"_id": {"_data": "826B0FC89B000000046B0758C9AF9C4D67000000000000000400"}, "operationType": "replace", \
            "clusterTime": {"$timestamp": {"t": 1796196507, "i": 4}}, \
            "wallTime": {"$date": {"$numberLong": "1796196507657"}}, \
            "fullDocument": {"_id": "small", "expireAt": {"$date": {"$numberLong": "1796200507581"}}}, \
            "ns": {"db": "app", "coll": "sessions"}, "documentKey": {"_id": "small"}}""";

    /**
     * A whole pipeline-update event, as a stream without the production projection gets it from MongoDB 7.0 with
     * showExpandedEvents and pre-images: collectionUUID, truncatedArrays, disambiguatedPaths, fullDocumentBeforeChange.
     */
    private static final String WHOLE_UPDATE = """
            {"_id": {"_data": "826B0FC89B000000056B0758C9AF9C4D67000000000000000500"}, "operationType": "update", \
            "clusterTime": {"$timestamp": {"t": 1796196507, "i": 5}}, \
            "collectionUUID": {"$binary": {"base64": "kttGnh+6QUKUfkLHZcEZ5A==", "subType": "04"}}, \
            "wallTime": {"$date": {"$numberLong": "1796196507671"}}, \
            "fullDocument": {"_id": "large", "expireAt": {"$date": {"$numberLong": "1796200507581"}}, \
            "roles": ["reader"], "a": {"0": {"$numberInt": "1"}}}, \
            "ns": {"db": "app", "coll": "sessions"}, "documentKey": {"_id": "large"}, \
            "updateDescription": {"updatedFields": {"expireAt": {"$date": {"$numberLong": "1796200507581"}}, \
            "a.0": {"$numberInt": "1"}}, "removedFields": [], \
            "truncatedArrays": [{"field": "roles", "newSize": {"$numberInt": "1"}}], \
            "disambiguatedPaths": {"a.0": ["a", "0"]}}, \
            "fullDocumentBeforeChange": {"_id": "large", "expireAt": {"$date": {"$numberLong": "4000000000000"}}, \
            "roles": ["reader", "writer"], "a": {"0": {"$numberInt": "0"}}}}""";

    private final ChangeEventParser parser = new ChangeEventParser(
            new TopicNamespaceMapping(Map.of(), ""),
            OperationsOptions.DOCUMENT_KEY_MAX_BYTES_DEFAULT,
            SourceProfile.MONGODB);

    @Test
    void shouldReadThePublishedEventOfAPipelineUpdateAsAnUpdateWithItsDocumentAndWallTime() {
        ChangeEvent event = parser.parse(TOPIC, null, PUBLISHED_UPDATE, 0L);

        assertThat(event.operationType()).isEqualTo(OperationType.UPDATE);
        assertThat(event.namespace()).isEqualTo(Namespace.parse("app.sessions"));
        assertThat(event.documentKeyJson()).isEqualTo("{\"_id\": \"large\"}");
        assertThat(event.fullDocument().get("expireAt")).isEqualTo(new BsonDateTime(1_796_200_507_581L));
        assertThat(event.eventTime()).isEqualTo(Instant.ofEpochMilli(1_796_196_507_671L));
    }

    @Test
    void shouldReadAPipelineUpdateLoggedAsAReplacementAsAReplace() {
        ChangeEvent event = parser.parse(TOPIC, null, PUBLISHED_REPLACE, 0L);

        assertThat(event.operationType()).isEqualTo(OperationType.REPLACE);
        assertThat(event.fullDocument().get("expireAt")).isEqualTo(new BsonDateTime(1_796_200_507_581L));
    }

    @Test
    void shouldReadTheWholeEventWithTruncatedArraysDisambiguatedPathsAndImages() {
        ChangeEvent event = parser.parse(TOPIC, null, WHOLE_UPDATE, 0L);

        assertThat(event.operationType()).isEqualTo(OperationType.UPDATE);
        assertThat(event.fullDocument())
                .as("the document after the update, not the pre-image")
                .isEqualTo(BsonDocument.parse(
                        "{_id: 'large', expireAt: {$date: 1796200507581}, roles: ['reader']," + " a: {'0': 1}}"));
        assertThat(event.eventTime()).isEqualTo(Instant.ofEpochMilli(1_796_196_507_671L));
    }
}

package io.ttlstreams.sourcekey;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class DocumentIdKeyTest {

    /** What the MongoDB source connector's ExtendedJson formatter writes (mongo-kafka 2.0.1). */
    private static final JsonWriterSettings CONNECTOR_JSON =
            JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    private static final List<BsonValue> IDS = List.of(
            new BsonString("s1"),
            new BsonObjectId(new ObjectId("65a1b2c3d4e5f60718293a4b")),
            new BsonInt32(7),
            new BsonInt64(1L << 40),
            new BsonDateTime(1_700_000_000_000L),
            new BsonDocument("tenant", new BsonString("t1")).append("n", new BsonInt32(7)));

    private final DocumentIdKey<SourceRecord> transform = new DocumentIdKey<>();

    private static SourceRecord keyed(String key) {
        return new SourceRecord(
                Map.of(), Map.of(), "app.sessions", 0, Schema.STRING_SCHEMA, key, Schema.STRING_SCHEMA, "{}", 42L);
    }

    private static String connectorKey(BsonDocument documentKey) {
        return documentKey.toJson(CONNECTOR_JSON);
    }

    @Test
    void shouldKeyEveryShapeOfADocumentKeyAsAnUnshardedOneWhenItHoldsShardKeyFields() {
        for (BsonValue id : IDS) {
            String unsharded = connectorKey(new BsonDocument("_id", id));
            List<BsonDocument> shapes = List.of(
                    new BsonDocument("tenant", new BsonString("t1")).append("_id", id),
                    new BsonDocument("tenant", new BsonString("t1"))
                            .append("region", new BsonString("eu"))
                            .append("_id", id),
                    new BsonDocument("region", new BsonString("us")).append("_id", id),
                    new BsonDocument("_id", id).append("tenant", new BsonString("t2")));
            for (BsonDocument shape : shapes) {
                SourceRecord transformed = transform.apply(keyed(connectorKey(shape)));

                assertThat(transformed.key()).as("%s", shape).isEqualTo(unsharded);
                assertThat(transformed.value()).isEqualTo("{}");
                assertThat(transformed.topic()).isEqualTo("app.sessions");
                assertThat(transformed.timestamp()).isEqualTo(42L);
            }
        }
    }

    @Test
    void shouldLeaveTheRecordAsItIsWhenItsKeyHoldsOnlyTheIdOrNoIdOrIsNoDocument() {
        for (String key : List.of(
                connectorKey(new BsonDocument("_id", IDS.get(1))), "{\"job\": \"heartbeat\"}", "not json", "[1, 2]")) {
            SourceRecord record = keyed(key);

            assertThat(transform.apply(record)).as(key).isSameAs(record);
        }
        SourceRecord unkeyed = keyed(null);
        assertThat(transform.apply(unkeyed)).isSameAs(unkeyed);
    }
}

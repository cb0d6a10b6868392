package io.ttlstreams.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TopicNamespaceMapping;
import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.AbstractThrowableAssert;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ChangeEventParserTest {

    /** A topic the mapping gives no namespace: the events' own ns is taken as is. */
    private static final String TOPIC = "change-events";
    /** A topic carrying ttl.docs by the connector's naming convention. */
    private static final String DOCS_TOPIC = "ttl.docs";

    private static final long RECORD_TIMESTAMP = 1_234_567L;

    /** The value the source connector published for an insert on the stand-in (see platform-facts.md). */
    private static final String REAL_INSERT = """
            {"_id": {"_data": "6b0c6a70"}, "operationType": "insert", "fullDocument": {"_id": "d1", \
            "expireAt": {"$date": {"$numberLong": "1900000000000"}}, "v": {"$numberInt": "1"}}, \
            "clusterTime": {"$timestamp": {"t": 1795975792, "i": 3}}, "documentKey": {"_id": "d1"}, \
            "ns": {"db": "ttl", "coll": "docs"}}""";

    private final ChangeEventParser parser = new ChangeEventParser(
            new TopicNamespaceMapping(Map.of(), ""),
            OperationsOptions.DOCUMENT_KEY_MAX_BYTES_DEFAULT,
            SourceProfile.MONGODB);

    private ChangeEvent parse(String value) {
        return parser.parse(TOPIC, null, value, RECORD_TIMESTAMP);
    }

    /** Asserts that {@code value} is refused as an invalid change event for {@code reason}; for more checks. */
    private AbstractThrowableAssert<?, ? extends Throwable> assertRejected(String value, String reason) {
        return assertThatThrownBy(() -> parse(value))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining(reason);
    }

    @Test
    void shouldParseTheConnectorsRealInsertEvent() {
        ChangeEvent event = parse(REAL_INSERT);

        assertThat(event.operationType()).isEqualTo(OperationType.INSERT);
        assertThat(event.namespace()).isEqualTo(Namespace.valueOf("ttl.docs"));
        assertThat(event.documentKeyJson()).isEqualTo("{\"_id\": \"d1\"}");
        assertThat(event.fullDocument().get("expireAt")).isEqualTo(new BsonDateTime(1_900_000_000_000L));
        assertThat(event.fullDocument().get("v")).isEqualTo(new BsonInt32(1));
        assertThat(event.clusterTime()).isEqualTo(new BsonTimestamp(1795975792, 3));
        assertThat(event.eventTime())
                .as("the end of the clusterTime second, the latest the event can have happened")
                .isEqualTo(Instant.ofEpochSecond(1795975793));
        assertThat(event.isNamespaceWide()).isFalse();
    }

    @Test
    void shouldTakeTheMarkerAsThePreImageTooLargeToCarryWhenThePipelineReplacedIt() {
        ChangeEvent whole = parse("""
                {"operationType": "delete", "ns": {"db": "app", "coll": "sessions"}, "documentKey": {"_id": "s1"},
                 "fullDocumentBeforeChange": {"_id": "s1", "expireAt": {"$date": "2026-01-01T00:00:00Z"}, "p": "x"}}""");
        ChangeEvent marked = parse("""
                {"operationType": "delete", "ns": {"db": "app", "coll": "sessions"}, "documentKey": {"_id": "s1"},
                 "fullDocumentBeforeChangeTooLarge": {"_id": "s1", "expireAt": {"$date": "2026-01-01T00:00:00Z"}}}""");

        assertThat(whole.preImageTooLarge()).isFalse();
        assertThat(whole.fullDocumentBeforeChange()).containsKey("p");
        assertThat(marked.preImageTooLarge()).isTrue();
        assertThat(marked.fullDocumentBeforeChange())
                .isEqualTo(
                        BsonDocument.parse("{\"_id\": \"s1\", \"expireAt\": {\"$date\": \"2026-01-01T00:00:00Z\"}}"));
        assertRejected("""
                {"operationType": "delete", "ns": {"db": "app", "coll": "sessions"}, "documentKey": {"_id": "s1"},
                 "fullDocumentBeforeChange": {"_id": "s1"}, "fullDocumentBeforeChangeTooLarge": {"_id": "s1"}}""", "both a pre-image and the marker");
        assertRejected("""
                {"operationType": "delete", "ns": {"db": "app", "coll": "sessions"}, "documentKey": {"_id": "s1"},
                 "fullDocumentBeforeChangeTooLarge": true}""", "fullDocumentBeforeChangeTooLarge is a BOOLEAN");
    }

    @Test
    void shouldRefuseAnEventWhoseFullDocumentThePipelineDroppedAsTooLarge() {
        assertRejected("""
                {"operationType": "update", "ns": {"db": "app", "coll": "sessions"}, "documentKey": {"_id": "s1"},
                 "fullDocumentTooLarge": {"$numberInt": "70000"}}""", "dropped its fullDocument, 70000 bytes of BSON");
    }

    @Test
    void shouldTakeUpdateDocumentFromFullDocumentAndTimeFromWallTime() {
        ChangeEvent event = parse("""
                {"operationType": "update", "ns": {"db": "app", "coll": "sessions"},
                 "documentKey": {"_id": {"$oid": "5f1b2c3d4e5f607182930a4b"}},
                 "updateDescription": {"updatedFields": {"seen": {"$numberInt": "2"}}, "removedFields": []},
                 "fullDocument": {"_id": {"$oid": "5f1b2c3d4e5f607182930a4b"}, "seen": {"$numberInt": "2"}},
                 "clusterTime": {"$timestamp": {"t": 1700000000, "i": 1}},
                 "wallTime": {"$date": {"$numberLong": "1700000000123"}}}""");

        assertThat(event.operationType()).isEqualTo(OperationType.UPDATE);
        assertThat(event.namespace()).isEqualTo(Namespace.valueOf("app.sessions"));
        assertThat(event.fullDocument())
                .isEqualTo(BsonDocument.parse("{\"_id\": {\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}, \"seen\": 2}"));
        assertThat(event.eventTime()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_123L));
    }

    @Test
    void shouldParseReplace() {
        ChangeEvent event = parse("""
                {"operationType": "replace", "ns": {"db": "app", "coll": "s"}, "documentKey": {"_id": "a"},
                 "fullDocument": {"_id": "a", "x": "y"}}""");

        assertThat(event.operationType()).isEqualTo(OperationType.REPLACE);
        assertThat(event.fullDocument()).isEqualTo(BsonDocument.parse("{\"_id\": \"a\", \"x\": \"y\"}"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"update", "replace"})
    void shouldAcceptUpdateOrReplaceWithNullFullDocument(String operationType) {
        ChangeEvent event = parse("""
                {"operationType": "%s", "ns": {"db": "app", "coll": "s"}, "documentKey": {"_id": "a"},
                 "fullDocument": null}""".formatted(operationType));

        assertThat(event.fullDocument()).isNull();
        assertThat(event.documentKeyJson()).isEqualTo("{\"_id\": \"a\"}");
    }

    @Test
    void shouldAcceptUpdateWithoutFullDocument() {
        ChangeEvent event = parse("""
                {"operationType": "update", "ns": {"db": "app", "coll": "s"}, "documentKey": {"_id": "a"}}""");

        assertThat(event.operationType()).isEqualTo(OperationType.UPDATE);
        assertThat(event.fullDocument()).isNull();
    }

    @Test
    void shouldParseDelete() {
        ChangeEvent event = parse("""
                {"operationType": "delete", "ns": {"db": "app", "coll": "s"},
                 "documentKey": {"_id": {"$numberLong": "42"}}}""");

        assertThat(event.operationType()).isEqualTo(OperationType.DELETE);
        assertThat(event.documentKeyJson()).isEqualTo("{\"_id\": {\"$numberLong\": \"42\"}}");
        assertThat(event.fullDocument()).isNull();
    }

    @Test
    void shouldKeepShardKeyFieldsOfTheDocumentKeyInOrder() {
        ChangeEvent event = parse("""
                {"operationType": "delete", "ns": {"db": "app", "coll": "s"},
                 "documentKey": {"region": "eu", "_id": {"$numberInt": "5"}}}""");

        assertThat(event.documentKeyJson()).isEqualTo("{\"region\": \"eu\", \"_id\": {\"$numberInt\": \"5\"}}");
    }

    @Test
    void shouldTakeIdFromFullDocumentWhenDocumentKeyHasNoId() {
        // The MongoDB stand-in puts the update specification into documentKey.
        ChangeEvent event = parse("""
                {"operationType": "update", "ns": {"db": "app", "coll": "s"},
                 "documentKey": {"$set": {"x": 1}}, "fullDocument": {"_id": "a", "x": 1}}""");

        assertThat(event.documentKeyJson()).isEqualTo("{\"_id\": \"a\"}");
    }

    @Test
    void shouldTakeIdFromFullDocumentWhenDocumentKeyIsMissing() {
        ChangeEvent event = parse("""
                {"operationType": "insert", "ns": {"db": "app", "coll": "s"}, "fullDocument": {"x": 1, "_id": 7}}""");

        assertThat(event.documentKeyJson()).isEqualTo("{\"_id\": {\"$numberInt\": \"7\"}}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"insert", "update", "replace", "delete"})
    void shouldRejectDocumentEventWithoutDocumentId(String operationType) {
        assertThatThrownBy(() -> parse("""
                {"operationType": "%s", "ns": {"db": "app", "coll": "s"}, "documentKey": {"x": 1},
                 "fullDocument": {"x": 1}}""".formatted(operationType)))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("no document id")
                .hasMessageContaining(TOPIC);
    }

    @Test
    void shouldParseDropOfACollection() {
        ChangeEvent event = parse("""
                {"operationType": "drop", "ns": {"db": "app", "coll": "sessions"},
                 "clusterTime": {"$timestamp": {"t": 1700000000, "i": 7}}}""");

        assertThat(event.operationType()).isEqualTo(OperationType.DROP);
        assertThat(event.namespace()).isEqualTo(Namespace.valueOf("app.sessions"));
        assertThat(event.documentKey()).isNull();
        assertThat(event.fullDocument()).isNull();
        assertThat(event.isNamespaceWide()).isTrue();
        assertThat(event.clusterTime()).isEqualTo(new BsonTimestamp(1700000000, 7));
    }

    @Test
    void shouldParseRenameWithTheSourceNamespace() {
        ChangeEvent event = parse("""
                {"operationType": "rename", "ns": {"db": "app", "coll": "old"}, "to": {"db": "app", "coll": "new"}}""");

        assertThat(event.operationType()).isEqualTo(OperationType.RENAME);
        assertThat(event.namespace()).isEqualTo(Namespace.valueOf("app.old"));
    }

    @Test
    void shouldParseDropDatabaseWithTheDatabaseAsNamespace() {
        ChangeEvent event = parse("{\"operationType\": \"dropDatabase\", \"ns\": {\"db\": \"app\"}}");

        assertThat(event.operationType()).isEqualTo(OperationType.DROP_DATABASE);
        assertThat(event.namespace()).isEqualTo(Namespace.valueOf("app"));
    }

    @Test
    void shouldRefuseADropDatabaseWithoutNsOnACollectionsTopic() {
        assertThatThrownBy(
                        () -> parser.parse(DOCS_TOPIC, null, "{\"operationType\": \"dropDatabase\"}", RECORD_TIMESTAMP))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("a dropDatabase on a topic that carries the collection 'ttl.docs'");
    }

    @Test
    void shouldTakeInvalidateNamespaceFromTheTopic() {
        ChangeEvent event = parser.parse(
                DOCS_TOPIC,
                null,
                "{\"operationType\": \"invalidate\", \"_id\": {\"_data\": \"82\"}}",
                RECORD_TIMESTAMP);

        assertThat(event.operationType()).isEqualTo(OperationType.INVALIDATE);
        assertThat(event.namespace()).isEqualTo(Namespace.valueOf("ttl.docs"));
        assertThat(event.documentKey()).isNull();
    }

    @Test
    void shouldParseOtherOperationsWithoutDocumentKey() {
        ChangeEvent event = parse("""
                {"operationType": "createIndexes", "ns": {"db": "app", "coll": "s"},
                 "operationDescription": {"indexes": [{"v": 2, "key": {"a": 1}, "name": "a_1"}]}}""");

        assertThat(event.operationType()).isEqualTo(OperationType.OTHER);
        assertThat(event.namespace()).isEqualTo(Namespace.valueOf("app.s"));
        assertThat(event.documentKey()).isNull();
    }

    @Test
    void shouldMapTopicToNamespaceWithoutNs() {
        ChangeEventParser prefixed = new ChangeEventParser(
                new TopicNamespaceMapping(Map.of("legacy-topic", Namespace.parse("old.things")), "mongo"),
                OperationsOptions.DOCUMENT_KEY_MAX_BYTES_DEFAULT,
                SourceProfile.MONGODB);
        String insert = "{\"operationType\": \"insert\", \"fullDocument\": {\"_id\": 1}}";

        assertThat(prefixed.parse("mongo.app.sessions", null, insert, 0).namespace())
                .isEqualTo(Namespace.parse("app.sessions"));
        assertThat(prefixed.parse("legacy-topic", null, insert, 0).namespace())
                .isEqualTo(Namespace.valueOf("old.things"));
        assertThat(prefixed.parse("app.users", null, insert, 0).namespace()).isEqualTo(Namespace.valueOf("app.users"));
    }

    @Test
    void shouldTakeNsAsItIsOnATopicThatMapsToNoNamespace() {
        ChangeEvent event = parser.parse(
                "change-events",
                null,
                "{\"operationType\": \"delete\", \"ns\": {\"db\": \"a\", \"coll\": \"b\"}, \"documentKey\": {\"_id\": 1}}",
                0);

        assertThat(event.namespace()).isEqualTo(Namespace.valueOf("a.b"));
    }

    @Test
    void shouldRejectNsNamingAnotherCollectionThanTheTopicCarries() {
        String dropOfSessions = "{\"operationType\": \"drop\", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"},"
                + " \"clusterTime\": {\"$timestamp\": {\"t\": 4294967295, \"i\": 1}}}";
        String insertIntoSessions = "{\"operationType\": \"insert\", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"},"
                + " \"fullDocument\": {\"_id\": 1}}";

        assertThatThrownBy(() -> parser.parse("app.events", null, dropOfSessions, 0))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("topic 'app.events'")
                .hasMessageContaining("its ns names 'app.sessions', but the topic carries 'app.events'");
        assertThatThrownBy(() -> parser.parse("app.events", null, insertIntoSessions, 0))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("its ns names 'app.sessions'");
        assertThat(parser.parse("app.sessions", null, dropOfSessions, 0).namespace())
                .isEqualTo(Namespace.parse("app.sessions"));
    }

    @Test
    void shouldCheckNsAgainstTheTopicsNamespaceByPrefixAndExplicitMap() {
        ChangeEventParser prefixed = new ChangeEventParser(
                new TopicNamespaceMapping(Map.of("legacy-topic", Namespace.parse("old.things")), "mongo"),
                OperationsOptions.DOCUMENT_KEY_MAX_BYTES_DEFAULT,
                SourceProfile.MONGODB);
        String insertIntoSessions = "{\"operationType\": \"insert\", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"},"
                + " \"fullDocument\": {\"_id\": 1}}";

        assertThat(prefixed.parse("mongo.app.sessions", null, insertIntoSessions, 0)
                        .namespace())
                .isEqualTo(Namespace.parse("app.sessions"));
        assertThatThrownBy(() -> prefixed.parse("legacy-topic", null, insertIntoSessions, 0))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("its ns names 'app.sessions', but the topic carries 'old.things'");
        assertThatThrownBy(() -> prefixed.parse("mongo.app.events", null, insertIntoSessions, 0))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("but the topic carries 'app.events'");
    }

    @Test
    void shouldRefuseADropDatabaseOnACollectionsTopicEvenOfItsOwnDatabase() {
        for (String db : List.of("app", "billing")) {
            String drop = "{\"operationType\": \"dropDatabase\", \"ns\": {\"db\": \"" + db + "\"}}";
            assertThatThrownBy(() -> parser.parse("app.events", null, drop, 0))
                    .isInstanceOf(InvalidChangeEventException.class)
                    .hasMessageContaining("a dropDatabase on a topic that carries the collection 'app.events'");
        }
        assertThat(parser.parse("app", null, "{\"operationType\": \"dropDatabase\", \"ns\": {\"db\": \"app\"}}", 0)
                        .namespace())
                .as("the database's own topic maps to no collection")
                .isEqualTo(Namespace.valueOf("app"));
    }

    @Test
    void shouldRejectDocumentEventWhoseNamespaceHasNoCollection() {
        assertThatThrownBy(() -> parser.parse(
                        TOPIC,
                        null,
                        "{\"operationType\": \"insert\", \"ns\": {\"db\": \"app\"}, \"fullDocument\": {\"_id\": 1}}",
                        0))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("'app' names no collection");
        assertThatThrownBy(() -> parser.parse(
                        "docs", null, "{\"operationType\": \"insert\", \"fullDocument\": {\"_id\": 1}}", 0))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("the topic maps to no namespace");
    }

    @Test
    void shouldFallBackToTheEndOfTheClusterTimeSecondReadAsUnsignedForEventTime() {
        ChangeEvent event = parse("""
                {"operationType": "delete", "ns": {"db": "a", "coll": "b"}, "documentKey": {"_id": 1},
                 "clusterTime": {"$timestamp": {"t": 4294967295, "i": 1}}}""");

        assertThat(event.eventTime()).isEqualTo(Instant.ofEpochSecond(4_294_967_296L));
    }

    @Test
    void shouldNeverPutTheEventTimeBeforeTheClusterTimeSecondEnds() {
        // clusterTime counts whole seconds: an event at 10.999 s has t = 10. Rounding down would make a
        // last-modified deadline up to a second early; the end of the second is never early.
        ChangeEvent event = parse("""
                {"operationType": "delete", "ns": {"db": "a", "coll": "b"}, "documentKey": {"_id": 1},
                 "clusterTime": {"$timestamp": {"t": 10, "i": 99}}}""");

        assertThat(event.eventTime()).isEqualTo(Instant.ofEpochMilli(11_000));
    }

    @Test
    void shouldFallBackToRecordTimestampForEventTime() {
        ChangeEvent event = parse(
                "{\"operationType\": \"delete\", \"ns\": {\"db\": \"a\", \"coll\": \"b\"}, \"documentKey\": {\"_id\": 1}}");

        assertThat(event.eventTime()).isEqualTo(Instant.ofEpochMilli(RECORD_TIMESTAMP));
        assertThat(event.clusterTime()).isNull();
    }

    @Test
    void shouldAcceptRelaxedExtendedJson() {
        ChangeEvent event = parse("""
                {"operationType": "insert", "ns": {"db": "a", "coll": "b"},
                 "documentKey": {"_id": 5000000000},
                 "fullDocument": {"_id": 5000000000, "n": 1, "d": 1.5,
                                  "expireAt": {"$date": "2030-01-01T00:00:00Z"}},
                 "wallTime": {"$date": "2026-11-29T10:00:00.250Z"}}""");

        assertThat(event.documentKeyJson()).isEqualTo("{\"_id\": {\"$numberLong\": \"5000000000\"}}");
        assertThat(event.fullDocument().toJson())
                .isEqualTo(
                        "{\"_id\": 5000000000, \"n\": 1, \"d\": 1.5, \"expireAt\": {\"$date\": \"2030-01-01T00:00:00Z\"}}");
        assertThat(event.fullDocument().get("n")).isEqualTo(new BsonInt32(1));
        assertThat(event.eventTime()).isEqualTo(Instant.parse("2026-11-29T10:00:00.250Z"));
    }

    static Stream<Arguments> documentIds() {
        return Stream.of(
                // canonical input: the output is the input
                Arguments.of(
                        "ObjectId",
                        "{\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}",
                        "{\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}"),
                Arguments.of("string", "\"d-1 \\\"quoted\\\" \\u00e9\\u0000\"", "\"d-1 \\\"quoted\\\" é\\u0000\""),
                Arguments.of("int32", "{\"$numberInt\": \"-7\"}", "{\"$numberInt\": \"-7\"}"),
                Arguments.of(
                        "int64",
                        "{\"$numberLong\": \"9223372036854775807\"}",
                        "{\"$numberLong\": \"9223372036854775807\"}"),
                Arguments.of("int64 small", "{\"$numberLong\": \"7\"}", "{\"$numberLong\": \"7\"}"),
                Arguments.of("double", "{\"$numberDouble\": \"0.1\"}", "{\"$numberDouble\": \"0.1\"}"),
                Arguments.of("double -0.0", "{\"$numberDouble\": \"-0.0\"}", "{\"$numberDouble\": \"-0.0\"}"),
                Arguments.of("double large", "{\"$numberDouble\": \"1.0E300\"}", "{\"$numberDouble\": \"1.0E300\"}"),
                Arguments.of(
                        "UUID subtype 4",
                        "{\"$binary\": {\"base64\": \"ABEiM0RVZneImaq7zN3u/w==\", \"subType\": \"04\"}}",
                        "{\"$binary\": {\"base64\": \"ABEiM0RVZneImaq7zN3u/w==\", \"subType\": \"04\"}}"),
                Arguments.of(
                        "legacy UUID subtype 3",
                        "{\"$binary\": {\"base64\": \"ABEiM0RVZneImaq7zN3u/w==\", \"subType\": \"03\"}}",
                        "{\"$binary\": {\"base64\": \"ABEiM0RVZneImaq7zN3u/w==\", \"subType\": \"03\"}}"),
                Arguments.of("Decimal128", "{\"$numberDecimal\": \"1.10\"}", "{\"$numberDecimal\": \"1.10\"}"),
                Arguments.of("Decimal128 -0", "{\"$numberDecimal\": \"-0\"}", "{\"$numberDecimal\": \"-0\"}"),
                Arguments.of(
                        "date", "{\"$date\": {\"$numberLong\": \"-1\"}}", "{\"$date\": {\"$numberLong\": \"-1\"}}"),
                Arguments.of(
                        "compound",
                        "{\"b\": {\"$numberInt\": \"2\"}, \"a\": [\"x\", {\"$numberLong\": \"3\"}]}",
                        "{\"b\": {\"$numberInt\": \"2\"}, \"a\": [\"x\", {\"$numberLong\": \"3\"}]}"),
                // relaxed or legacy input: the output is canonical
                Arguments.of("relaxed int32", "5", "{\"$numberInt\": \"5\"}"),
                Arguments.of("relaxed int64", "5000000000", "{\"$numberLong\": \"5000000000\"}"),
                Arguments.of("relaxed double", "2.5", "{\"$numberDouble\": \"2.5\"}"),
                Arguments.of("relaxed whole double", "3.0", "{\"$numberDouble\": \"3.0\"}"),
                Arguments.of(
                        "relaxed date",
                        "{\"$date\": \"2026-11-29T10:00:00.250Z\"}",
                        "{\"$date\": {\"$numberLong\": \"1795946400250\"}}"),
                Arguments.of(
                        "shell UUID",
                        "{\"$uuid\": \"00112233-4455-6677-8899-aabbccddeeff\"}",
                        "{\"$binary\": {\"base64\": \"ABEiM0RVZneImaq7zN3u/w==\", \"subType\": \"04\"}}"),
                Arguments.of(
                        "legacy binary",
                        "{\"$binary\": \"ABEiM0RVZneImaq7zN3u/w==\", \"$type\": \"03\"}",
                        "{\"$binary\": {\"base64\": \"ABEiM0RVZneImaq7zN3u/w==\", \"subType\": \"03\"}}"),
                Arguments.of(
                        "relaxed compound",
                        "{\"b\": 2, \"a\": 1.5}",
                        "{\"b\": {\"$numberInt\": \"2\"}, \"a\": {\"$numberDouble\": \"1.5\"}}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documentIds")
    void shouldRoundTripEveryIdTypeFromDocumentKey(String type, String idJson, String canonicalIdJson) {
        ChangeEvent event = parse("""
                {"operationType": "delete", "ns": {"db": "a", "coll": "b"}, "documentKey": {"_id": %s}}""".formatted(idJson));

        assertRoundTrip(event, canonicalIdJson);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documentIds")
    void shouldRoundTripEveryIdTypeFromFullDocument(String type, String idJson, String canonicalIdJson) {
        ChangeEvent event = parse("""
                {"operationType": "insert", "ns": {"db": "a", "coll": "b"}, "fullDocument": {"x": 1, "_id": %s}}""".formatted(idJson));

        assertRoundTrip(event, canonicalIdJson);
    }

    private static void assertRoundTrip(ChangeEvent event, String canonicalIdJson) {
        String keyJson = event.documentKeyJson();
        assertThat(keyJson).isEqualTo("{\"_id\": " + canonicalIdJson + "}");
        BsonDocument reparsed = BsonDocument.parse(keyJson);
        assertThat(reparsed).isEqualTo(event.documentKey());
        assertThat(reparsed.get("_id").getBsonType())
                .isEqualTo(event.documentKey().get("_id").getBsonType());
        assertThat(new ChangeEvent(OperationType.DELETE, Namespace.valueOf("a.b"), reparsed, null, Instant.EPOCH, null)
                        .documentKeyJson())
                .isEqualTo(keyJson);
    }

    @Test
    void shouldRejectNullValue() {
        assertRejected(null, "value is null");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   "})
    void shouldRejectEmptyValue(String value) {
        assertRejected(value, "value is empty");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "not json",
                "{\"operationType\": \"insert\"",
                "{\"operationType\": }",
                "{\"_id\": {\"$numberLong\": \"abc\"}}",
                "{\"operationType\": \"insert\"} trailing"
            })
    void shouldRejectValueThatIsNotJson(String value) {
        assertRejected(value, "not valid (extended) JSON").hasCauseInstanceOf(org.bson.json.JsonParseException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"[1, 2]", "42", "\"insert\"", "true", "null", "{\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}"})
    void shouldRejectJsonThatIsNotADocument(String value) {
        assertRejected(value, "not a document");
    }

    @Test
    void shouldRejectTwoDocumentsInOneValue() {
        assertRejected(REAL_INSERT + " " + REAL_INSERT, "content after the JSON document");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"ns\": {\"db\": \"a\", \"coll\": \"b\"}}", "{\"operationType\": null}"})
    void shouldRejectMissingOperationType(String value) {
        assertRejected(value, "no operationType");
    }

    @Test
    void shouldReadAnEventWithoutOperationTypeAsTheDocumentNowWhenTheSourceIsCosmosDb() {
        ChangeEventParser cosmos = new ChangeEventParser(
                new TopicNamespaceMapping(Map.of(), ""), 512, io.ttlstreams.config.SourceProfile.COSMOSDB);
        // The shape Cosmos DB's required $project leaves: _id, fullDocument, ns, documentKey.
        ChangeEvent event = cosmos.parse(TOPIC, null, """
                {"_id": {"_data": "t1"}, "ns": {"db": "app", "coll": "sessions"}, "documentKey": {"_id": "a"},
                 "fullDocument": {"_id": "a", "expireAt": {"$date": {"$numberLong": "1900000000000"}}}}""", RECORD_TIMESTAMP);

        assertThat(event.operationType()).isEqualTo(OperationType.UPDATE);
        assertThat(event.fullDocument().get("expireAt")).isEqualTo(new BsonDateTime(1_900_000_000_000L));
        assertThat(event.eventTime())
                .as("no event times: the record's")
                .isEqualTo(Instant.ofEpochMilli(RECORD_TIMESTAMP));
        assertThatThrownBy(() -> cosmos.parse(TOPIC, null, "{\"operationType\": null}", RECORD_TIMESTAMP))
                .as("an explicit null is still malformed")
                .isInstanceOf(InvalidChangeEventException.class);
    }

    @Test
    void shouldRejectNonStringOperationType() {
        assertRejected("{\"operationType\": 1}", "operationType is a INT32, not a string");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "\"ns\": \"a.b\"",
                "\"ns\": {\"coll\": \"b\"}",
                "\"ns\": {\"db\": 1, \"coll\": \"b\"}",
                "\"ns\": {\"db\": \"a\", \"coll\": 2}"
            })
    void shouldRejectMalformedNs(String ns) {
        assertRejected("{\"operationType\": \"drop\", %s}".formatted(ns), "its ns");
    }

    @Test
    void shouldRejectNsWithANulInTheDatabaseName() {
        assertThatThrownBy(
                        () -> parse("{\"operationType\": \"drop\", \"ns\": {\"db\": \"a\\u0000b\", \"coll\": \"c\"}}"))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("its ns is not a valid namespace")
                .hasMessageContaining("\\u0000");
    }

    @ParameterizedTest
    @ValueSource(ints = {5_000, 100_000})
    void shouldRejectValueNestedDeeperThanTheLimitWithoutOverflowingTheStack(int depth) {
        assertRejected(nested(depth), "nests deeper than 200 levels");
    }

    @Test
    void shouldAcceptNestingUpToTheLimit() {
        // The event is level 1, fullDocument level 2, and "a" adds levels 3 to 200.
        ChangeEvent event = parse(nested(BoundedJson.MAX_DEPTH - 2));

        assertThat(event.fullDocument().get("a").isDocument()).isTrue();
        assertRejected(nested(BoundedJson.MAX_DEPTH - 1), "nests deeper than 200 levels");
    }

    /** An insert whose fullDocument holds {@code levels} nested documents and arrays under "a". */
    private static String nested(int levels) {
        String value = NestedJson.nested(levels);
        return "{\"operationType\": \"insert\", \"ns\": {\"db\": \"a\", \"coll\": \"b\"}, \"documentKey\": {\"_id\": 1},"
                + " \"fullDocument\": {\"_id\": 1, \"a\": " + value + "}}";
    }

    static Stream<Arguments> forgedDocumentKeys() {
        return Stream.of(
                Arguments.of(
                        "operators as _id",
                        "{\"_id\": {\"$exists\": true, \"$ne\": \"n1\"}}",
                        "documentKey._id.$exists"),
                Arguments.of(
                        "operator deep in a compound _id",
                        "{\"_id\": {\"t\": [{\"n\": {\"$gt\": 1}}]}}",
                        "documentKey._id.t.0.n.$gt"),
                Arguments.of(
                        "operator as a shard key",
                        "{\"region\": {\"$ne\": \"eu\"}, \"_id\": 1}",
                        "documentKey.region.$ne"),
                Arguments.of("array _id", "{\"_id\": [1, 2]}", "documentKey._id is of type ARRAY"),
                Arguments.of(
                        "regular expression _id",
                        "{\"_id\": {\"$regularExpression\": {\"pattern\": \".*\", \"options\": \"\"}}}",
                        "documentKey._id is of type REGULAR_EXPRESSION"),
                Arguments.of(
                        "undefined _id", "{\"_id\": {\"$undefined\": true}}", "documentKey._id is of type UNDEFINED"),
                Arguments.of(
                        "array shard key", "{\"region\": [\"eu\"], \"_id\": 1}", "documentKey.region is of type ARRAY"),
                Arguments.of(
                        "regular expression nested in _id",
                        "{\"_id\": {\"p\": {\"$regularExpression\": {\"pattern\": \"x\", \"options\": \"\"}}}}",
                        "documentKey._id holds a regular expression"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forgedDocumentKeys")
    void shouldRejectDocumentKeyThatAFilterWouldNotReadAsEquality(String what, String documentKey, String message) {
        assertThatThrownBy(() -> parse("""
                {"operationType": "delete", "ns": {"db": "a", "coll": "b"}, "documentKey": %s}""".formatted(documentKey)))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining(message);
    }

    @Test
    void shouldRejectForgedIdTakenFromTheFullDocument() {
        assertThatThrownBy(() -> parse("""
                {"operationType": "insert", "ns": {"db": "a", "coll": "b"},
                 "fullDocument": {"_id": {"$in": ["x", "y"]}, "expireAt": {"$date": "2030-01-01T00:00:00Z"}}}"""))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("fullDocument._id.$in");
    }

    @Test
    void shouldRejectFullDocumentThatIsNotADocument() {
        assertThatThrownBy(() -> parse("""
                {"operationType": "insert", "ns": {"db": "a", "coll": "b"}, "documentKey": {"_id": 1},
                 "fullDocument": "x"}"""))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("fullDocument is a STRING, not a document");
    }

    @Test
    void shouldRejectMistypedTimes() {
        String base = "{\"operationType\": \"delete\", \"ns\": {\"db\": \"a\", \"coll\": \"b\"}, "
                + "\"documentKey\": {\"_id\": 1}, ";

        assertRejected(base + "\"wallTime\": 1700000000000}", "wallTime is a INT64, not a date");
        assertRejected(base + "\"clusterTime\": \"yesterday\"}", "clusterTime is a STRING, not a timestamp");
    }
}

package io.ttlstreams.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.rules.TtlRules;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The processor's parser ({@link ChangeEventParser#forConfig}) builds only what is read: the event fields the parser
 * reads and, of {@code fullDocument}, what the rules read. What it skips must still be checked as if it were built
 * (the nesting limit, malformed extended JSON), and what it builds must give every reader the answer the whole
 * document gives.
 */
class ProjectedParsingTest {

    private static final String TOPIC = "change-events";
    private static final long RECORD_TIMESTAMP = 1_234_567L;
    private static final Instant CHANGE = Instant.parse("2030-01-01T00:00:00Z");

    /** Rules reading a dotted date, a partial filter with $or, $and and dotted paths, a TTL field, a witness, a mark. */
    private static final TtlStreamsConfig CONFIG = TestConfigs.exactly(
            "ttl.rules",
            "sessions,events,marks",
            "ttl.rule.sessions.namespace",
            "app.sessions",
            "ttl.rule.sessions.field",
            "session.expiresAt",
            "ttl.rule.sessions.partial.filter",
            "{\"$or\": [{\"status\": \"active\"}, {\"meta.tier\": {\"$gte\": 2}}],"
                    + " \"$and\": [{\"kind\": {\"$exists\": true}}]}",
            "ttl.rule.events.namespace",
            "app.events",
            "ttl.rule.events.mode",
            "last-modified",
            "ttl.rule.events.expire.after.seconds",
            "60",
            "ttl.rule.events.document.ttl.field",
            "ttl",
            "ttl.rule.events.modified.field",
            "rev",
            "ttl.rule.marks.namespace",
            "app.marks",
            "ttl.rule.marks.field",
            "expireAt",
            "ttl.rule.marks.action",
            "mark",
            "ttl.rule.marks.mark.field",
            "expiredAt");

    private final ChangeEventParser projected = ChangeEventParser.forConfig(CONFIG);
    private final ChangeEventParser whole =
            new ChangeEventParser(CONFIG.topicNamespaceMapping(), CONFIG.documentKeyMaxBytes(), CONFIG.sourceProfile());

    /** An update event on {@code namespace} as the connector publishes it, resume token and description included. */
    private static String update(String namespace, String fullDocument) {
        Namespace ns = Namespace.parse(namespace);
        return """
                {"_id": {"_data": "8265A1B2C3000000012B0229296E04"}, "operationType": "update",
                 "clusterTime": {"$timestamp": {"t": 1893456000, "i": 1}}, "wallTime": {"$date": "2030-01-01T00:00:00Z"},
                 "ns": {"db": "%s", "coll": "%s"}, "documentKey": {"_id": 7},
                 "updateDescription": {"updatedFields": {"status": "x"}, "removedFields": ["gone"],
                   "truncatedArrays": [{"field": "a", "newSize": 1}]},
                 "fullDocument": %s,
                 "fullDocumentBeforeChange": {"_id": 7, "status": "before", "deep": [{"x": [1]}]},
                 "txnNumber": {"$numberLong": "3"}, "lsid": {"id": {"$binary": {"base64": "AA==", "subType": "04"}}}}""".formatted(ns.database(), ns.collection(), fullDocument);
    }

    @Test
    void shouldBuildOfFullDocumentOnlyTheIdAndTheFieldsTheRulesRead() {
        ChangeEvent event = projected.parse(TOPIC, null, update("app.sessions", """
                {"_id": 7, "session": {"expiresAt": {"$date": "2030-02-01T00:00:00Z"}, "user": "u"}, "status": "active",
                 "meta": {"tier": 1, "other": 2}, "kind": "k", "rev": 3, "ttl": 5, "expireAt": 1, "expiredAt": 2,
                 "payload": {"big": [1, 2, 3]}, "notes": "x"}"""), RECORD_TIMESTAMP);

        // session and meta whole, as their first segment is read; payload and notes are read by no rule.
        assertThat(event.fullDocument().keySet())
                .containsExactly("_id", "session", "status", "meta", "kind", "rev", "ttl", "expireAt", "expiredAt");
        assertThat(event.fullDocument().getDocument("meta").keySet()).containsExactly("tier", "other");
        assertThat(event.fullDocumentBeforeChange())
                .as("the pre-image is read whole: expired records carry it")
                .isEqualTo(BsonDocument.parse("{\"_id\": 7, \"status\": \"before\", \"deep\": [{\"x\": [1]}]}"));
    }

    static Stream<Arguments> documents() {
        return Stream.of(
                Arguments.of(
                        "app.sessions",
                        "{\"_id\": 7, \"session\": {\"expiresAt\": {\"$date\": \"2030-02-01T00:00:00Z\"}},"
                                + " \"status\": \"active\", \"kind\": 1, \"extra\": [1]}"),
                Arguments.of(
                        "app.sessions",
                        "{\"_id\": 7, \"session\": {\"expiresAt\": {\"$date\": \"2030-02-01T00:00:00Z\"}},"
                                + " \"status\": \"idle\", \"meta\": {\"tier\": 3}, \"kind\": 1, \"extra\": [1]}"),
                Arguments.of(
                        "app.sessions",
                        "{\"_id\": 7, \"session\": {\"expiresAt\": {\"$date\": \"2030-02-01T00:00:00Z\"}},"
                                + " \"status\": \"idle\", \"meta\": {\"tier\": 1}, \"kind\": 1, \"x\": 1}"),
                Arguments.of(
                        "app.sessions",
                        "{\"_id\": 7, \"session\": {\"expiresAt\": 5}, \"status\": \"active\", \"x\": 1}"),
                Arguments.of("app.events", "{\"_id\": 7, \"rev\": 4, \"ttl\": 30, \"body\": {\"a\": 1}}"),
                Arguments.of("app.events", "{\"_id\": 7, \"ttl\": \"not a number\", \"body\": {\"a\": 1}}"),
                Arguments.of(
                        "app.marks", "{\"_id\": 7, \"expireAt\": {\"$date\": \"2030-02-01T00:00:00Z\"}, \"x\": 1}"),
                Arguments.of(
                        "app.marks",
                        "{\"_id\": 7, \"expireAt\": {\"$date\": \"2030-02-01T00:00:00Z\"},"
                                + " \"expiredAt\": {\"$date\": \"2030-03-01T00:00:00Z\"}, \"x\": 1}"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("documents")
    void shouldGiveTheRulesTheAnswersTheWholeDocumentGives(String namespace, String fullDocument) {
        String value = update(namespace, fullDocument);
        ChangeEvent built = projected.parse(TOPIC, null, value, RECORD_TIMESTAMP);
        ChangeEvent reference = whole.parse(TOPIC, null, value, RECORD_TIMESTAMP);
        TtlRules rules = CONFIG.rules();

        assertThat(built.fullDocument()).isNotEqualTo(reference.fullDocument());
        assertThat(rules.evaluate(built.namespace(), built.fullDocument(), CHANGE))
                .isEqualTo(rules.evaluate(reference.namespace(), reference.fullDocument(), CHANGE));
        assertThat(rules.evaluateResync(built.namespace(), built.fullDocument(), CHANGE))
                .isEqualTo(rules.evaluateResync(reference.namespace(), reference.fullDocument(), CHANGE));
        long marked = Instant.parse("2030-03-01T00:00:00Z").toEpochMilli();
        for (TtlRule rule : rules.rules()) {
            assertThat(rule.markedAt(built.fullDocument(), marked))
                    .isEqualTo(rule.markedAt(reference.fullDocument(), marked));
        }
        assertThat(List.of(
                        built.operationType(),
                        built.namespace(),
                        built.documentKey(),
                        built.eventTime(),
                        built.clusterTime(),
                        built.fullDocumentBeforeChange()))
                .isEqualTo(List.of(
                        reference.operationType(),
                        reference.namespace(),
                        reference.documentKey(),
                        reference.eventTime(),
                        reference.clusterTime(),
                        reference.fullDocumentBeforeChange()));
    }

    /**
     * Events with {@code value} put where nothing is built, at the level it adds to: the resume token and an unknown
     * event field start at level 2, updateDescription's fields and an unread fullDocument field at level 3, a value in
     * the JavaScript scope of an unread field at level 4.
     */
    static Stream<Arguments> skippedPlaces() {
        String head = "\"operationType\": \"insert\", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"},"
                + " \"documentKey\": {\"_id\": 1}";
        return Stream.of(
                Arguments.of("resume token", 1, "{" + head + ", \"_id\": %s}"),
                Arguments.of("unknown event field", 1, "{\"lsid\": %s, " + head + "}"),
                Arguments.of("updateDescription", 2, "{" + head + ", \"updateDescription\": {\"updatedFields\": %s}}"),
                Arguments.of(
                        "unread fullDocument field", 2, "{" + head + ", \"fullDocument\": {\"_id\": 1, \"p\": %s}}"),
                Arguments.of(
                        "JavaScript scope in an unread field",
                        3,
                        "{" + head
                                + ", \"fullDocument\": {\"_id\": 1, \"f\": {\"$code\": \"x\", \"$scope\": {\"s\": %s}}}}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("skippedPlaces")
    void shouldRefuseASkippedPartNestedDeeperThanTheLimitAsWhenBuilt(String place, int levelsAbove, String event) {
        // levelsAbove: the levels the event has above the value, so that the value may nest 200 - levelsAbove.
        String atTheLimit = event.formatted(NestedJson.nested(BoundedJson.MAX_DEPTH - levelsAbove));
        String overTheLimit = event.formatted(NestedJson.nested(BoundedJson.MAX_DEPTH - levelsAbove + 1));

        assertThat(projected.parse(TOPIC, null, atTheLimit, RECORD_TIMESTAMP).documentKey())
                .isEqualTo(BsonDocument.parse("{\"_id\": 1}"));
        String refusal = refusal(whole, overTheLimit);
        assertThat(refusal).contains("nests deeper than 200 levels");
        assertThat(refusal(projected, overTheLimit)).isEqualTo(refusal);
        assertThat(refusal(projected, event.formatted(NestedJson.nested(100_000))))
                .as("no stack overflow in the skip")
                .contains("nests deeper than 200 levels");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("skippedPlaces")
    void shouldRefuseMalformedExtendedJsonInASkippedPartAsWhenBuilt(String place, int levelsAbove, String event) {
        for (String malformed : List.of(
                "{\"d\": {\"$date\": \"yesterday\"}}",
                "{\"o\": {\"$oid\": \"xyz\"}}",
                "{\"n\": {\"$numberLong\": \"1.5\"}}",
                "[1, 2",
                "{\"a\": 1,, \"b\": 2}")) {
            String value = event.formatted(malformed);
            String refusal = refusal(whole, value);

            assertThat(refusal).as(malformed).contains("is not valid (extended) JSON");
            assertThat(refusal(projected, value)).as(malformed).isEqualTo(refusal);
        }
    }

    private static String refusal(ChangeEventParser parser, String value) {
        Throwable thrown = catchThrowable(() -> parser.parse(TOPIC, null, value, RECORD_TIMESTAMP));
        assertThat(thrown).isInstanceOf(InvalidChangeEventException.class);
        return thrown.getMessage();
    }

    @Test
    void shouldKeepTheIdForTheDocumentKeyOfLastResortWhateverThePathsAre() {
        ChangeEventParser noPaths = new ChangeEventParser(
                CONFIG.topicNamespaceMapping(), CONFIG.documentKeyMaxBytes(), CONFIG.sourceProfile(), List.of());

        ChangeEvent event = noPaths.parse(TOPIC, null, """
                {"operationType": "insert", "ns": {"db": "app", "coll": "sessions"},
                 "fullDocument": {"_id": {"$oid": "5f1b2c3d4e5f607182930a4b"}, "x": 1}}""", RECORD_TIMESTAMP);

        assertThat(event.documentKeyJson()).isEqualTo("{\"_id\": {\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}}");
        assertThat(event.fullDocument().keySet()).containsExactly("_id");
    }

    @Test
    void shouldRefuseAWrongTypeOfAFieldItReadsAsBefore() {
        assertThatThrownBy(
                        () -> projected.parse(TOPIC, null, update("app.sessions", "[{\"_id\": 1}]"), RECORD_TIMESTAMP))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("its fullDocument is a ARRAY, not a document");
    }
}

package io.ttlstreams.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import java.util.stream.Stream;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link DeleteCommand#parse}: the forms the processor emits pass, everything else is refused with its reason. */
class DeleteCommandGrammarTest {

    private static final String KEY = "{\"_id\": \"users-1\"}";
    private static final String REST =
            ", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"}, \"rule\": \"sessions\", \"deadline\": {\"$date\":"
                    + " {\"$numberLong\": \"1767225610000\"}}}";

    private static String value(String filter) {
        return "{\"_id\": " + filter + REST;
    }

    private static DeleteCommand parse(String filter) {
        return DeleteCommand.parse(KEY, value(filter));
    }

    @Test
    void shouldRoundTripWhatDeleteCommandWrites() {
        BsonDocument key =
                BsonDocument.parse("{\"_id\": {\"$oid\": \"65a000000000000000000001\"}, \"region\": \"eu\"}");
        BsonDocument filter = key.clone()
                .append("expireAt", BsonDocument.parse("{\"$eq\": {\"$date\": {\"$numberLong\": \"1767225600000\"}}}"))
                .append("ttl", new BsonDocument("$exists", BsonBoolean.FALSE))
                .append(
                        "$and",
                        BsonDocument.parse("{\"a\": [{\"status\": \"closed\"}]}")
                                .get("a"));
        DeleteCommand command = new DeleteCommand(
                key, filter, Namespace.of("app", "sessions"), "sessions", 42L, OptionalLong.of(1_767_225_610_123L));

        DeleteCommand parsed = DeleteCommand.parse(command.keyJson(), command.valueJson());

        assertThat(parsed).isEqualTo(command);
    }

    @Test
    void shouldAcceptTheShardKeyBeforeIdAsMongoDbOrdersAShardedCollectionsDocumentKey() {
        BsonDocument key = BsonDocument.parse("{\"region\": \"eu\", \"_id\": 7}");
        DeleteCommand command = new DeleteCommand(
                key, key.clone(), Namespace.of("app", "sessions"), "sessions", 42L, OptionalLong.of(43L));

        assertThat(DeleteCommand.parse(command.keyJson(), command.valueJson())).isEqualTo(command);
    }

    static Stream<Arguments> acceptedFilters() {
        return Stream.of(
                Arguments.of("key only", "{\"_id\": \"users-1\"}"),
                Arguments.of(
                        "pinned date",
                        "{\"_id\": \"users-1\", \"expireAt\": {\"$eq\": {\"$date\": {\"$numberLong\": \"1\"}}}}"),
                Arguments.of(
                        "pinned operator-like value", "{\"_id\": \"users-1\", \"a.b\": {\"$eq\": {\"$gt\": \"\"}}}"),
                Arguments.of(
                        "pinned regex",
                        "{\"_id\": \"users-1\", \"f\": {\"$eq\": {\"$regex\": \"^u\", \"$options\": \"\"}}}"),
                Arguments.of("absent ttl", "{\"_id\": \"users-1\", \"ttl\": {\"$exists\": false}}"),
                Arguments.of("present ttl", "{\"_id\": \"users-1\", \"ttl\": {\"$exists\": true}}"),
                Arguments.of(
                        "partial filter",
                        "{\"_id\": \"users-1\", \"x\": {\"$eq\": 1}, \"$and\": [{\"status\": \"closed\", \"n\":"
                                + " {\"$gte\": 3, \"$lt\": 9}, \"t\": {\"$type\": [\"date\", 9]}, \"k\": {\"$in\":"
                                + " [1, \"a\"]}, \"e\": {\"$exists\": 1}, \"$and\": [{\"q\": {\"$eq\": null}}]}]}"),
                Arguments.of(
                        "partial filter with $or, as MongoDB 6.0 allows",
                        "{\"_id\": \"users-1\", \"$and\": [{\"$or\": [{\"status\": \"closed\"}, {\"n\": {\"$gt\": 3}}]}]}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("acceptedFilters")
    void shouldAcceptTheFormsTheProcessorEmits(String name, String filter) {
        assertThat(parse(filter).filter()).isEqualTo(BsonDocument.parse(filter));
    }

    /** The forged commands of issue 9, and their relatives. */
    static Stream<Arguments> forgedFilters() {
        return Stream.of(
                Arguments.of("{}", "must start with the document key's field '_id'"),
                Arguments.of("{\"_id\": {\"$exists\": true}}", "differs from the record key's"),
                Arguments.of("{\"_id\": {\"$gt\": \"\"}}", "differs from the record key's"),
                Arguments.of("{\"_id\": {\"$regex\": \"^users-\"}}", "differs from the record key's"),
                Arguments.of("{\"$expr\": {\"$eq\": [1, 1]}}", "found '$expr'"),
                Arguments.of("{\"_id\": \"users-1\", \"$expr\": {\"$eq\": [1, 1]}}", "operator $expr is not allowed"),
                Arguments.of("{\"_id\": \"users-1\", \"$or\": [{\"a\": 1}]}", "operator $or is not allowed"),
                Arguments.of("{\"_id\": \"users-1\", \"$where\": \"true\"}", "operator $where is not allowed"),
                Arguments.of("{\"_id\": \"users-1\", \"a\": 1}", "a condition is {\"$eq\": value}"),
                Arguments.of("{\"_id\": \"users-1\", \"a\": {\"$ne\": 1}}", "a condition is {\"$eq\": value}"),
                Arguments.of("{\"_id\": \"users-1\", \"a\": {\"$eq\": 1, \"$ne\": 2}}", "a condition is"),
                Arguments.of("{\"_id\": \"users-1\", \"a\": {\"$exists\": 1}}", "a condition is"),
                Arguments.of("{\"_id\": \"users-1\", \"$a\": {\"$eq\": 1}}", "operator $a is not allowed"),
                Arguments.of("{\"_id\": \"users-1\", \"a.$b\": {\"$eq\": 1}}", "invalid condition path 'a.$b'"),
                Arguments.of("{\"_id\": \"users-1\", \"a..b\": {\"$eq\": 1}}", "invalid condition path"),
                Arguments.of(
                        "{\"_id\": \"users-1\", \"$and\": [{\"a\": 1}, {\"b\": 2}]}", "exactly one partial filter"),
                Arguments.of("{\"_id\": \"users-1\", \"$and\": [{\"$or\": []}]}", "$or needs a non-empty array"),
                Arguments.of(
                        "{\"_id\": \"users-1\", \"$and\": [{\"$or\": [{\"a\": {\"$where\": 1}}]}]}", "operator $where"),
                Arguments.of("{\"_id\": \"users-1\", \"$and\": [{\"a\": {\"$regex\": \"x\"}}]}", "operator $regex"),
                Arguments.of(
                        "{\"_id\": \"users-1\", \"$and\": [{\"a\": {\"$in\": [{\"$regex\": \"x\"}]}}]}",
                        "starting with $"),
                Arguments.of(
                        "{\"_id\": \"users-1\", \"$and\": [{\"a\": {\"$regularExpression\": {\"pattern\": \"x\","
                                + " \"options\": \"\"}}}]}",
                        "regular expression"),
                Arguments.of("{\"_id\": \"users-1\", \"$and\": [{\"a\": {\"b\": {\"$gt\": 1}}}]}", "starting with $"),
                Arguments.of(
                        "{\"_id\": \"users-1\", \"$and\": [{\"a\": {\"$gt\": 1, \"b\": 2}}]}",
                        "operator b on 'a' is not allowed"),
                Arguments.of("{\"_id\": \"users-1\", \"$and\": [{\"a\": {\"$type\": {}}}]}", "$type on 'a' needs"),
                Arguments.of("{\"_id\": \"users-1\", \"$and\": [{\"a\": {\"$where\": 1}}]}", "operator $where"),
                Arguments.of("{\"_id\": \"users-2\"}", "differs from the record key's"),
                Arguments.of("{\"region\": \"eu\", \"_id\": \"users-1\"}", "found 'region'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forgedFilters")
    void shouldRefuseEveryOtherFilterWithItsReason(String filter, String reason) {
        assertThatThrownBy(() -> parse(filter))
                .isInstanceOf(InvalidDeleteCommandException.class)
                .hasMessageContaining(reason);
    }

    static Stream<Arguments> forgedKeys() {
        return Stream.of(
                Arguments.of("{}", "holding _id"),
                Arguments.of("{\"region\": \"eu\"}", "holding _id"),
                Arguments.of("{\"_id\": {\"$gt\": \"\"}}", "starting with $"),
                Arguments.of("{\"_id\": {\"a\": {\"$exists\": true}}}", "starting with $"),
                Arguments.of(
                        "{\"_id\": {\"$regularExpression\": {\"pattern\": \"^u\", \"options\": \"\"}}}",
                        "no array, regular expression or undefined"),
                Arguments.of("{\"_id\": [1, 2]}", "no array"),
                Arguments.of("{\"_id\": {\"$undefined\": true}}", "no array, regular expression or undefined"),
                Arguments.of("{\"_id\": 1, \"$x\": 1}", "invalid document key field path"),
                Arguments.of("[1]", "record key is not an extended-JSON document"),
                Arguments.of("users-1", "record key is not an extended-JSON document"),
                Arguments.of("{\"_id\": {\"$oid\": \"zz\"}}", "record key is not an extended-JSON document"),
                Arguments.of("{\"_id\": NumberDecimal(\"x\")}", "record key is not an extended-JSON document"),
                Arguments.of(
                        "{\"_id\": " + "{\"a\": ".repeat(5_000) + "1" + "}".repeat(5_001),
                        "nests deeper than 200 levels"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forgedKeys")
    void shouldRefuseAKeyThatIsNotALiteralDocumentKey(String key, String reason) {
        assertThatThrownBy(() -> DeleteCommand.parse(key, value(key)))
                .isInstanceOf(InvalidDeleteCommandException.class)
                .hasMessageContaining(reason);
    }

    @Test
    void shouldRefuseARepeatedFieldAtAnyDepth() {
        assertThatThrownBy(() -> parse("{\"_id\": \"users-1\", \"_id\": {\"$gt\": \"\"}}"))
                .isInstanceOf(InvalidDeleteCommandException.class)
                .hasMessageContaining("repeats field '_id._id'");
        assertThatThrownBy(() -> DeleteCommand.parse("{\"_id\": 1, \"_id\": 2}", value("{\"_id\": 2}")))
                .hasMessageContaining("record key repeats field '_id'");
    }

    @Test
    void shouldRefuseAMalformedEnvelope() {
        String filter = "{\"_id\": \"users-1\"}";
        assertThatThrownBy(() -> DeleteCommand.parse(null, value(filter))).hasMessageContaining("no key");
        assertThatThrownBy(() -> DeleteCommand.parse(KEY, null)).hasMessageContaining("tombstone");
        assertThatThrownBy(() -> DeleteCommand.parse(KEY, "{\"_id\": " + filter + "}"))
                .hasMessageContaining("no field 'ns'");
        assertThatThrownBy(() -> DeleteCommand.parse(KEY, value(filter).replace("}}}", "}}, \"extra\": 1}")))
                .hasMessageContaining("unexpected field 'extra'");
        assertThatThrownBy(
                        () -> DeleteCommand.parse(KEY, value(filter).replace("\"coll\": \"sessions\"", "\"coll\": 1")))
                .hasMessageContaining("'ns' must be");
        assertThatThrownBy(() ->
                        DeleteCommand.parse(KEY, value(filter).replace("\"coll\": \"sessions\"", "\"coll\": \"a$b\"")))
                .hasMessageContaining("field 'ns': Invalid collection name");
        assertThatThrownBy(
                        () -> DeleteCommand.parse(KEY, value(filter).replace("\"rule\": \"sessions\"", "\"rule\": 7")))
                .hasMessageContaining("field 'rule' is int32 7, not the rule's name");
        assertThatThrownBy(() ->
                        DeleteCommand.parse(KEY, value(filter).replace("\"rule\": \"sessions\"", "\"rule\": \"\"")))
                .hasMessageContaining("'rule' is empty");
        assertThatThrownBy(() -> DeleteCommand.parse(
                        KEY, "{\"_id\": " + filter + REST.replaceFirst("\\{\"\\$date\".*", "1767225610000}")))
                .hasMessageContaining("field 'deadline' is int64 1767225610000, not a date");
        assertThatThrownBy(() -> DeleteCommand.parse(KEY, "{\"_id\": \"users-1\"" + REST))
                .hasMessageContaining("field '_id' is string \"users-1\", not the delete filter");
    }

    @Test
    void shouldKeepTheCommandsParts() {
        DeleteCommand command = parse("{\"_id\": \"users-1\"}");

        assertThat(command.documentKey()).isEqualTo(new BsonDocument("_id", new BsonString("users-1")));
        assertThat(command.namespace()).isEqualTo(Namespace.of("app", "sessions"));
        assertThat(command.rule()).isEqualTo("sessions");
        assertThat(command.deadlineMillis()).isEqualTo(1_767_225_610_000L);
        assertThat(command.issuedAtMillis()).isEmpty();
    }

    @Test
    void shouldReadTheIssueTimeAsADateAndWriteItLast() {
        String issued = value("{\"_id\": \"users-1\"}")
                .replace("}}}", "}}, \"issuedAt\": {\"$date\": {\"$numberLong\": \"1767225611000\"}}}");

        DeleteCommand command = DeleteCommand.parse(KEY, issued);

        assertThat(command.issuedAtMillis()).hasValue(1_767_225_611_000L);
        assertThat(command.valueJson()).isEqualTo(issued);
        String asNumber = issued.replace("{\"$date\": {\"$numberLong\": \"1767225611000\"}}}", "1767225611000}");
        assertThatThrownBy(() -> DeleteCommand.parse(KEY, asNumber))
                .hasMessageContaining("field 'issuedAt' is int64 1767225611000, not a date");
    }
}

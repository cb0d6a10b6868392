package io.ttlstreams.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** Canonical extended JSON written without {@code toJson}'s locked buffer is, character for character, the same. */
class CanonicalJsonTest {

    private static BsonDocument everyKind() {
        return new BsonDocument("_id", new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")))
                .append("s", new BsonString("quote \" backslash \\ tab \t control \u0001 é 日本 </script>"))
                .append("i", new BsonInt32(-7))
                .append("l", new BsonInt64(1L << 40))
                .append("d", new BsonDouble(0.1))
                .append("dec", new BsonDecimal128(Decimal128.parse("3600.0")))
                .append("date", new BsonDateTime(1_767_225_600_000L))
                .append("b", BsonBoolean.TRUE)
                .append("n", BsonNull.VALUE)
                .append("bin", new BsonBinary(new byte[] {1, 2, 3}))
                .append("re", new BsonRegularExpression("^a.*", "i"))
                .append("ts", new BsonTimestamp(1_700_000_000, 3))
                .append("nested", new BsonDocument("expireAt", new BsonDocument("$eq", new BsonDateTime(0))))
                .append("array", new BsonArray(List.of(new BsonInt32(1), new BsonDocument("x", new BsonString("y")))));
    }

    @Test
    void shouldWriteWhatToJsonWritesWhenTheDocumentHoldsEveryKindOfValue() {
        BsonDocument document = everyKind();

        assertThat(CanonicalJson.of(document)).isEqualTo(document.toJson(CanonicalJson.SETTINGS));
    }

    @Test
    void shouldWriteWhatToJsonWritesWhenTheDocumentIsRaw() {
        RawBsonDocument raw = RawBsonDocument.parse(everyKind().toJson(CanonicalJson.SETTINGS));

        assertThat(CanonicalJson.of(raw)).isEqualTo(raw.toJson(CanonicalJson.SETTINGS));
    }

    @Test
    void shouldWriteTheCommandValueAsTheDocumentOfItsFieldsWhenWrittenFieldByField() {
        BsonDocument key = new BsonDocument("_id", new BsonString("d\"1"));
        BsonDocument filter =
                key.clone().append("expireAt", new BsonDocument("$eq", new BsonDateTime(1_767_225_600_000L)));
        DeleteCommand command = new DeleteCommand(
                RawBsonDocument.parse(key.toJson()),
                filter,
                Namespace.parse("app.sessions"),
                "sessions",
                1_767_225_600_000L,
                OptionalLong.of(1_767_225_601_000L));

        BsonDocument expected = new BsonDocument(DeleteCommand.FILTER_FIELD, filter)
                .append(
                        DeleteCommand.NAMESPACE_FIELD,
                        new BsonDocument("db", new BsonString("app")).append("coll", new BsonString("sessions")))
                .append(DeleteCommand.RULE_FIELD, new BsonString("sessions"))
                .append(DeleteCommand.DEADLINE_FIELD, new BsonDateTime(1_767_225_600_000L))
                .append(DeleteCommand.ISSUED_AT_FIELD, new BsonDateTime(1_767_225_601_000L));
        assertThat(command.valueJson()).isEqualTo(expected.toJson(CanonicalJson.SETTINGS));
        assertThat(command.keyJson()).isEqualTo(key.toJson(CanonicalJson.SETTINGS));
        assertThat(DeleteCommand.parse(command.keyJson(), command.valueJson())).isEqualTo(command);
    }

    private static BsonDocument simpleKinds() {
        StringBuilder printable = new StringBuilder();
        for (char c = 0x20; c <= 0x7e; c++) {
            if (c != '"' && c != '\\') {
                printable.append(c);
            }
        }
        return new BsonDocument("_id", new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")))
                .append("printable", new BsonString(printable.toString()))
                .append("empty", new BsonString(""))
                .append("i", new BsonInt32(Integer.MIN_VALUE))
                .append("l", new BsonInt64(Long.MIN_VALUE))
                .append("date", new BsonDateTime(-1L))
                .append("t", BsonBoolean.TRUE)
                .append("f", BsonBoolean.FALSE)
                .append("n", BsonNull.VALUE)
                .append("none", new BsonDocument())
                .append("nested", new BsonDocument("expireAt", new BsonDocument("$eq", new BsonDateTime(0))));
    }

    @Test
    void shouldWriteWhatToJsonWritesWhenTheDocumentHoldsOnlySimpleValues() {
        BsonDocument document = simpleKinds();
        RawBsonDocument raw = RawBsonDocument.parse(document.toJson(CanonicalJson.SETTINGS));

        assertThat(CanonicalJson.appendSimple(new StringBuilder(), document)).isTrue();
        assertThat(CanonicalJson.appendSimple(new StringBuilder(), raw)).isTrue();
        assertThat(CanonicalJson.of(document)).isEqualTo(document.toJson(CanonicalJson.SETTINGS));
        assertThat(CanonicalJson.of(raw)).isEqualTo(raw.toJson(CanonicalJson.SETTINGS));
    }

    @Test
    void shouldWriteWhatToJsonWritesWhenEachValueNeedsTheJsonWriter() {
        for (Map.Entry<String, BsonValue> field : everyKind().entrySet()) {
            BsonDocument document = simpleKinds().append(field.getKey() + "x", field.getValue());
            BsonDocument named = new BsonDocument(field.getKey() + " \u00e9\"", new BsonInt32(1));
            for (BsonDocument each : List.of(document, named, new BsonDocument("in", document))) {
                RawBsonDocument raw = RawBsonDocument.parse(each.toJson(CanonicalJson.SETTINGS));

                assertThat(CanonicalJson.of(each)).isEqualTo(each.toJson(CanonicalJson.SETTINGS));
                assertThat(CanonicalJson.of(raw)).isEqualTo(raw.toJson(CanonicalJson.SETTINGS));
            }
        }
    }

    @Test
    void shouldWriteTheCommandValueAsTheDocumentOfItsFieldsWhenAnyPartNeedsTheJsonWriter() {
        BsonDocument key = new BsonDocument("_id", new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")));
        BsonDocument pinned = new BsonDocument("$eq", new BsonDateTime(1_767_225_600_000L));
        List<BsonDocument> filters = List.of(
                key.clone().append("expireAt", pinned),
                key.clone().append("expireAt", pinned).append("d", new BsonDouble(0.5)),
                new BsonDocument("_id", new BsonString("tab\t")).append("expireAt", pinned));
        for (BsonDocument filter : filters) {
            for (String collection : List.of("sessions", "s\u00e9ssions")) {
                for (OptionalLong issuedAt : List.of(OptionalLong.of(1_767_225_601_000L), OptionalLong.empty())) {
                    DeleteCommand command = new DeleteCommand(
                            RawBsonDocument.parse(key.toJson()),
                            filter,
                            Namespace.parse("app." + collection),
                            "rule \"" + collection + "\"",
                            1_767_225_600_000L,
                            issuedAt);

                    BsonDocument expected = new BsonDocument(DeleteCommand.FILTER_FIELD, filter)
                            .append(
                                    DeleteCommand.NAMESPACE_FIELD,
                                    new BsonDocument("db", new BsonString("app"))
                                            .append("coll", new BsonString(collection)))
                            .append(DeleteCommand.RULE_FIELD, new BsonString("rule \"" + collection + "\""))
                            .append(DeleteCommand.DEADLINE_FIELD, new BsonDateTime(1_767_225_600_000L));
                    issuedAt.ifPresent(at -> expected.append(DeleteCommand.ISSUED_AT_FIELD, new BsonDateTime(at)));
                    assertThat(command.valueJson()).isEqualTo(expected.toJson(CanonicalJson.SETTINGS));
                }
            }
        }
    }
}

package io.ttlstreams.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.model.DeleteOneModel;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.WriteModel;
import com.mongodb.kafka.connect.sink.converter.SinkDocument;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.SigningKey;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Mark commands ({@code ttl.rule.<name>.action=mark}) at the sink: the guard passes exactly the shape the processor
 * emits, {@code "update": {"$set": {<the namespace's mark field>: <the deadline>}}}, and refuses every forgery with
 * its reason; the write model turns what passes into a conditional updateOne that never upserts.
 */
class MarkCommandGuardTest {

    private static final String SECRET = "the-current-signing-secret-32-bytes+";
    private static final SigningKey KEY = SigningKey.of(SECRET);
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:10Z");
    private static final long DEADLINE = NOW.toEpochMilli() - 1_000;
    private static final String PREFIX = "Delete command refused by the sink guard: ";

    private static DeleteCommandGuard<SinkRecord> guard() {
        Map<String, Object> props = new HashMap<>();
        props.put("signing.key", SECRET);
        props.put("allowed.namespaces", "app.sessions,app.carts");
        props.put("mark.fields", "app.sessions=expiredAt");
        DeleteCommandGuard<SinkRecord> guard = new DeleteCommandGuard<>(Clock.fixed(NOW, ZoneOffset.UTC));
        guard.configure(props);
        return guard;
    }

    private static DeleteCommand mark(String namespace, String field) {
        BsonDocument key = new BsonDocument("_id", new BsonString("d1"));
        BsonDocument filter = key.clone()
                .append("expireAt", BsonDocument.parse("{\"$eq\": {\"$date\": " + DEADLINE + "}}"))
                .append("expiredAt", BsonDocument.parse("{\"$exists\": false}"));
        return new DeleteCommand(
                key,
                filter,
                Namespace.parse(namespace),
                "sessions",
                DEADLINE,
                OptionalLong.of(NOW.toEpochMilli()),
                field);
    }

    private static SinkRecord signed(String key, String value) {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addBytes(SigningKey.KEY_ID_HEADER, KEY.id().getBytes(StandardCharsets.US_ASCII));
        headers.addBytes(
                SigningKey.SIGNATURE_HEADER,
                KEY.sign(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8))
                        .getBytes(StandardCharsets.US_ASCII));
        return new SinkRecord(
                "ttl.deletes", 0, Schema.STRING_SCHEMA, key, Schema.STRING_SCHEMA, value, 7L, null, null, headers);
    }

    /** The processor's mark command with its update replaced by {@code update}, signed with the right key. */
    private static SinkRecord withUpdate(String update) {
        DeleteCommand command = mark("app.sessions", "expiredAt");
        String value = command.valueJson();
        value = value.substring(0, value.indexOf(", \"update\": ")) + ", \"update\": " + update + "}";
        return signed(command.keyJson(), value);
    }

    @Test
    void shouldPassTheMarkCommandOfTheNamespacesMarkField() {
        DeleteCommand command = mark("app.sessions", "expiredAt");
        SinkRecord record = signed(command.keyJson(), command.valueJson());

        assertThat(guard().apply(record)).isSameAs(record);
        assertThat(BsonDocument.parse(command.valueJson()).getDocument("update"))
                .isEqualTo(BsonDocument.parse("{\"$set\": {\"expiredAt\": {\"$date\": " + DEADLINE + "}}}"));
        assertThat(DeleteCommand.parse(command.keyJson(), command.valueJson())).isEqualTo(command);
    }

    static Stream<Arguments> forgedUpdates() {
        String date = "{\"$date\": " + DEADLINE + "}";
        return Stream.of(
                Arguments.of(
                        "{\"$unset\": {\"expireAt\": \"\"}}", "[grammar] the update's operator '$unset' is refused"),
                Arguments.of(
                        "{\"$set\": {\"expiredAt\": " + date + "}, \"$unset\": {\"expireAt\": \"\"}}",
                        "[grammar] the update's operator '$unset' is refused"),
                Arguments.of(
                        "{\"$set\": {\"expiredAt\": " + date + ", \"role\": \"admin\"}}",
                        "[grammar] the update's $set must set exactly one field"),
                Arguments.of(
                        "{\"$set\": {\"expiredAt\": {\"$inc\": 1}}}", "[grammar] the mark field 'expiredAt' is set to"),
                Arguments.of("{\"$set\": {\"$where\": " + date + "}}", "[grammar] invalid mark field path '$where'"),
                Arguments.of("{\"$set\": {\"expiredAt\": {\"$date\": 0}}}", "not the command's deadline"),
                Arguments.of("{\"$set\": {\"owner\": " + date + "}}", "[mark] the mark command sets 'owner'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forgedUpdates")
    void shouldRefuseAForgedMarkWithItsReasonEvenWhenSigned(String update, String reason) {
        assertThatThrownBy(() -> guard().apply(withUpdate(update)))
                .isInstanceOf(DataException.class)
                .hasMessageStartingWith(PREFIX)
                .hasMessageContaining(reason);
    }

    @Test
    void shouldRefuseAMarkInANamespaceWithoutAMarkField() {
        DeleteCommand command = mark("app.carts", "expiredAt");

        assertThatThrownBy(() -> guard().apply(signed(command.keyJson(), command.valueJson())))
                .isInstanceOf(DataException.class)
                .hasMessage(PREFIX + "[mark] the mark command sets 'expiredAt' in app.carts, and mark.fields allows"
                        + " no mark there");
    }

    @Test
    void shouldRefuseAnUnsignedMark() {
        DeleteCommand command = mark("app.sessions", "expiredAt");
        SinkRecord unsigned = new SinkRecord(
                "ttl.deletes",
                0,
                Schema.STRING_SCHEMA,
                command.keyJson(),
                Schema.STRING_SCHEMA,
                command.valueJson(),
                7L,
                null,
                null,
                new ConnectHeaders());

        assertThatThrownBy(() -> guard().apply(unsigned))
                .isInstanceOf(DataException.class)
                .hasMessageStartingWith(PREFIX + "[signature] unsigned");
    }

    @Test
    void shouldWriteAConditionalUpdateWithoutUpsertForAMarkAndADeleteOtherwise() {
        DeleteCommand mark = mark("app.sessions", "expiredAt");
        WriteModel<BsonDocument> update =
                new CommandWriteModel().createWriteModel(new SinkDocument(null, BsonDocument.parse(mark.valueJson())));

        assertThat(update).isInstanceOf(UpdateOneModel.class);
        UpdateOneModel<BsonDocument> updateOne = (UpdateOneModel<BsonDocument>) update;
        assertThat(updateOne.getFilter()).isEqualTo(mark.filter());
        assertThat(updateOne.getUpdate())
                .isEqualTo(BsonDocument.parse("{\"$set\": {\"expiredAt\": {\"$date\": " + DEADLINE + "}}}"));
        assertThat(updateOne.getOptions().isUpsert()).as("never an upsert").isFalse();

        DeleteCommand delete = new DeleteCommand(
                mark.documentKey(), mark.filter(), mark.namespace(), mark.rule(), DEADLINE, mark.issuedAtMillis());
        assertThat(new CommandWriteModel()
                        .createWriteModel(new SinkDocument(null, BsonDocument.parse(delete.valueJson()))))
                .isInstanceOf(DeleteOneModel.class);
    }
}

package io.ttlstreams.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.OperationType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.common.errors.SerializationException;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChangeEventSerdeTest {

    private static final String TOPIC = "ignored";
    private static final Instant T = Instant.ofEpochMilli(1_700_000_000_123L);

    private final ChangeEventSerde serde = new ChangeEventSerde();

    private ChangeEvent roundTrip(ChangeEvent event) {
        return serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, event));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"$oid\": \"5f1b2c3d4e5f607182930a4b\"}",
                "\"d1\"",
                "\"\\u0000 é \\\" \\\\\"",
                "{\"$numberInt\": \"-2147483648\"}",
                "{\"$numberLong\": \"-9223372036854775808\"}",
                "{\"$numberLong\": \"1\"}",
                "{\"$numberDouble\": \"0.1\"}",
                "{\"$numberDouble\": \"-0.0\"}",
                "{\"$numberDouble\": \"NaN\"}",
                "{\"$numberDouble\": \"-Infinity\"}",
                "{\"$binary\": {\"base64\": \"ABEiM0RVZneImaq7zN3u/w==\", \"subType\": \"04\"}}",
                "{\"$binary\": {\"base64\": \"ABEiM0RVZneImaq7zN3u/w==\", \"subType\": \"03\"}}",
                "{\"$numberDecimal\": \"1.10\"}",
                "{\"$numberDecimal\": \"-0E-6176\"}",
                "{\"$date\": {\"$numberLong\": \"-62135596800000\"}}",
                "{\"b\": {\"$numberInt\": \"2\"}, \"a\": [{\"$numberLong\": \"1\"}, null, {\"z\": true}]}"
            })
    void shouldRoundTripEveryIdType(String idJson) {
        BsonDocument key = BsonDocument.parse("{\"_id\": " + idJson + "}");
        BsonDocument full = BsonDocument.parse("{\"_id\": " + idJson + ", \"n\": {\"$numberLong\": \"3\"}, "
                + "\"expireAt\": {\"$date\": {\"$numberLong\": \"1900000000000\"}}}");
        ChangeEvent event = new ChangeEvent(
                OperationType.UPDATE,
                Namespace.valueOf("app.sessions"),
                key,
                full,
                T,
                new BsonTimestamp(1_700_000_000, 5));

        ChangeEvent back = roundTrip(event);

        assertThat(back).isEqualTo(event);
        assertThat(back.documentKeyJson()).isEqualTo(event.documentKeyJson());
        assertThat(back.fullDocument().toJson()).isEqualTo(full.toJson());
    }

    @Test
    void shouldRoundTripShardKeyFieldsInOrder() {
        BsonDocument key = BsonDocument.parse("{\"region\": \"eu\", \"_id\": {\"$numberInt\": \"1\"}}");
        ChangeEvent event = new ChangeEvent(OperationType.DELETE, Namespace.valueOf("a.b"), key, null, T, null);

        assertThat(roundTrip(event).documentKeyJson())
                .isEqualTo("{\"region\": \"eu\", \"_id\": {\"$numberInt\": \"1\"}}");
    }

    @Test
    void shouldRoundTripNullFields() {
        ChangeEvent delete = new ChangeEvent(
                OperationType.DELETE, Namespace.valueOf("a.b"), BsonDocument.parse("{\"_id\": 1}"), null, T, null);
        ChangeEvent other = new ChangeEvent(OperationType.OTHER, Namespace.valueOf("a.b"), null, null, T, null);

        assertThat(roundTrip(delete)).isEqualTo(delete);
        assertThat(roundTrip(other)).isEqualTo(other);
    }

    @Test
    void shouldRoundTripAPreImageAndTheMarkerOfOneTooLargeToCarry() {
        BsonDocument key = BsonDocument.parse("{\"_id\": 1}");
        BsonDocument before = BsonDocument.parse("{\"_id\": 1, \"expireAt\": {\"$date\": 0}}");
        ChangeEvent whole =
                new ChangeEvent(OperationType.DELETE, Namespace.valueOf("a.b"), key, null, T, null, before, false);
        ChangeEvent marked =
                new ChangeEvent(OperationType.DELETE, Namespace.valueOf("a.b"), key, null, T, null, before, true);

        assertThat(roundTrip(whole)).isEqualTo(whole);
        assertThat(roundTrip(marked)).isEqualTo(marked);
    }

    @Test
    void shouldRoundTripNamespaceWideEvents() {
        BsonTimestamp clusterTime = new BsonTimestamp(1_700_000_000, 9);
        for (ChangeEvent event : new ChangeEvent[] {
            new ChangeEvent(OperationType.DROP, Namespace.valueOf("app.sessions"), null, null, T, clusterTime),
            new ChangeEvent(OperationType.DROP_DATABASE, Namespace.valueOf("app"), null, null, T, clusterTime),
            new ChangeEvent(OperationType.RENAME, Namespace.valueOf("app.old"), null, null, T, clusterTime),
            new ChangeEvent(OperationType.INVALIDATE, Namespace.valueOf("app.sessions"), null, null, T, null)
        }) {
            assertThat(roundTrip(event)).isEqualTo(event);
        }
    }

    @Test
    void shouldRoundTripUnsignedClusterTimeAndExactInstants() {
        // A BSON timestamp's seconds and increment are unsigned 32-bit values.
        BsonTimestamp maxClusterTime = new BsonTimestamp(-1, -1);
        for (Instant eventTime : new Instant[] {
            Instant.parse("2026-11-29T10:00:00.123456789Z"),
            Instant.ofEpochMilli(-1),
            Instant.EPOCH,
            Instant.MIN,
            Instant.MAX
        }) {
            ChangeEvent event = new ChangeEvent(
                    OperationType.DROP, Namespace.valueOf("a.b"), null, null, eventTime, maxClusterTime);
            assertThat(roundTrip(event)).isEqualTo(event);
        }
    }

    @Test
    void shouldWriteCanonicalExtendedJson() {
        ChangeEvent event = new ChangeEvent(
                OperationType.DELETE,
                Namespace.valueOf("a.b"),
                BsonDocument.parse("{\"_id\": 1}"),
                null,
                T,
                new BsonTimestamp(1_700_000_000, 5));

        String json = new String(serde.serializer().serialize(TOPIC, event), StandardCharsets.UTF_8);

        assertThat(json)
                .isEqualTo("{\"operationType\": \"DELETE\", \"namespace\": \"a.b\", "
                        + "\"documentKey\": {\"_id\": {\"$numberInt\": \"1\"}}, \"fullDocument\": null, "
                        + "\"eventTime\": \"2023-11-14T22:13:20.123Z\", "
                        + "\"clusterTime\": {\"$timestamp\": {\"t\": 1700000000, \"i\": 5}}}");
    }

    @Test
    void shouldMapNullToNull() {
        assertThat(serde.serializer().serialize(TOPIC, null)).isNull();
        assertThat(serde.deserializer().deserialize(TOPIC, null)).isNull();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "not json",
                "[1]",
                "{\"operationType\": \"DELETE\"",
                "{\"namespace\": \"a.b\", \"eventTime\": \"2023-11-14T22:13:20Z\"}",
                "{\"operationType\": \"delete\", \"namespace\": \"a.b\", \"documentKey\": {\"_id\": 1}, "
                        + "\"eventTime\": \"2023-11-14T22:13:20Z\"}",
                "{\"operationType\": \"DELETE\", \"namespace\": \"a.b\", \"eventTime\": \"2023-11-14T22:13:20Z\"}",
                "{\"operationType\": \"DROP\", \"namespace\": \"a.b\", \"eventTime\": 1700000000000}",
                "{\"operationType\": \"DROP\", \"namespace\": \"a.b\", \"eventTime\": \"yesterday\"}",
                "{\"operationType\": \"DROP\", \"namespace\": \"a.b\", \"eventTime\": \"2023-11-14T22:13:20Z\", "
                        + "\"clusterTime\": 5}",
                "{\"operationType\": \"UPDATE\", \"namespace\": \"a.b\", \"documentKey\": \"x\", "
                        + "\"eventTime\": \"2023-11-14T22:13:20Z\"}"
            })
    void shouldRejectCorruptBytes(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("ChangeEvent");
    }

    @Test
    void shouldRejectBinaryGarbage() {
        byte[] bytes = {(byte) 0xC3, 0x01, 0x00, (byte) 0xFF, 0x7B};

        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("ChangeEvent");
    }

    @Test
    void shouldRejectNestingBeyondTheLimitWithoutOverflowingTheStack() {
        String deep = "{\"operationType\": \"DROP\", \"namespace\": \"a.b\", \"fullDocument\": " + "[".repeat(20_000)
                + "]".repeat(20_000) + "}";

        assertThatThrownBy(() -> ChangeEventSerde.fromJson(deep))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("nests deeper than 200");
    }

    @Test
    void shouldRejectAnInvalidNamespace() {
        String nul = "{\"operationType\": \"DROP_DATABASE\", \"namespace\": \"a\\u0000b\", "
                + "\"eventTime\": \"2023-11-14T22:13:20Z\"}";

        assertThatThrownBy(() -> ChangeEventSerde.fromJson(nul))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("Invalid database name");
    }

    @Test
    void shouldReadWhatItWritesAsText() {
        ChangeEvent drop = new ChangeEvent(
                OperationType.DROP, Namespace.valueOf("a.b"), null, null, T, new BsonTimestamp(1_700_000_000, 1));

        String json = new String(serde.serializer().serialize(TOPIC, drop), StandardCharsets.UTF_8);

        assertThat(ChangeEventSerde.fromJson(json)).isEqualTo(drop);
    }
}

package io.ttlstreams.resync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.kafka.connect.source.json.formatter.ExtendedJson;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TopicNamespaceMapping;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.ChangeEventParser;
import io.ttlstreams.event.OperationType;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ResyncEventTest {

    private static final Namespace TOKENS = Namespace.parse("app.tokens");
    private static final BsonTimestamp STAMP = new BsonTimestamp(1_800_000_000, 0);

    static BsonValue[] ids() {
        return new BsonValue[] {
            new BsonObjectId(new ObjectId()),
            new BsonString("token-1"),
            new BsonInt32(7),
            new BsonInt64(1L << 40),
            new BsonBinary(UUID.randomUUID(), UuidRepresentation.STANDARD),
            new BsonDocument("tenant", new BsonString("t1")).append("n", new BsonInt32(7))
        };
    }

    @ParameterizedTest
    @MethodSource("ids")
    void shouldBeKeyedExactlyAsTheSourceConnectorKeysTheDocumentsChangeEvents(BsonValue id) {
        ResyncEvent event = ResyncEvent.of("app.tokens", TOKENS, new BsonDocument("_id", id), STAMP);

        // The connector's record key: its ExtendedJson formatter applied to the change event's documentKey (here on
        // the processor's BSON library, which writes these types as the connector's own does).
        String connectorKey = new BsonDocument("_id", id).toJson(new ExtendedJson().getJsonWriterSettings());
        assertThat(event.key()).isEqualTo(connectorKey);
    }

    @Test
    void shouldKeyADoubleIdAsTheConnectorsDriverWritesItWhenItsExponentIsPositive() {
        ResyncEvent event = ResyncEvent.of("app.tokens", TOKENS, new BsonDocument("_id", new BsonDouble(1.0E7)), STAMP);

        // The connector's driver (4.7) writes Double.toString's form; the processor's (5.x) would write "1.0E+7" and
        // key the resync onto another partition than the document's change events (EmbeddedStackIT runs both).
        assertThat(event.key()).isEqualTo("{\"_id\": {\"$numberDouble\": \"1.0E7\"}}");
    }

    @Test
    void shouldParseAsAResyncOfTheDocumentAtItsStamp() {
        BsonDocument document = new BsonDocument("_id", new BsonString("token-1"))
                .append("expireAt", new BsonDateTime(1_900_000_000_000L));

        ResyncEvent event = ResyncEvent.of("app.tokens", TOKENS, document, STAMP);
        ChangeEvent parsed = new ChangeEventParser(
                        new TopicNamespaceMapping(Map.of(), ""),
                        OperationsOptions.DOCUMENT_KEY_MAX_BYTES_DEFAULT,
                        SourceProfile.MONGODB)
                .parse(event.topic(), event.key(), event.value(), 0L);

        assertThat(event.topic()).isEqualTo("app.tokens");
        assertThat(parsed.operationType()).isEqualTo(OperationType.RESYNC);
        assertThat(parsed.namespace()).isEqualTo(TOKENS);
        assertThat(parsed.documentKey()).isEqualTo(new BsonDocument("_id", new BsonString("token-1")));
        assertThat(parsed.fullDocument()).isEqualTo(document);
        assertThat(parsed.clusterTime()).isEqualTo(STAMP);
        assertThat(parsed.eventTime())
                .as("the end of the stamp's second")
                .isEqualTo(Instant.ofEpochSecond(1_800_000_001));
        assertThat(parsed.documentKeyJson()).isEqualTo(event.key());
    }

    @Test
    void shouldRefuseADocumentReadWithoutItsId() {
        assertThatThrownBy(() -> ResyncEvent.of("app.tokens", TOKENS, new BsonDocument(), STAMP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without its _id");
    }
}

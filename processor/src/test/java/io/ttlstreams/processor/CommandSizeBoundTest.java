package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.CanonicalJson;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

class CommandSizeBoundTest {

    /** The values that grow most from BSON to canonical extended JSON, alone under a one-letter name, and in arrays. */
    private static final List<BsonValue> WORST_CASES = List.of(
            new BsonRegularExpression(""),
            new BsonUndefined(),
            new BsonMinKey(),
            new BsonMaxKey(),
            BsonNull.VALUE,
            BsonBoolean.FALSE,
            new BsonInt32(-2_000_000_000),
            new BsonString("\u0001\u0001\u0001\u0001"),
            new BsonDocument(),
            new BsonArray());

    @Test
    void shouldBoundTheGrowthFromBsonToExtendedJson() {
        for (BsonValue value : WORST_CASES) {
            for (BsonDocument document : List.of(
                    new BsonDocument("a", value), new BsonDocument("a", new BsonArray(List.of(value, value, value))))) {
                int bson = new RawBsonDocument(document, new BsonDocumentCodec())
                        .getByteBuffer()
                        .remaining();
                int json = CanonicalJson.of(document).getBytes(StandardCharsets.UTF_8).length;
                assertThat(json)
                        .as("%s: %d bytes of BSON", CanonicalJson.of(document), bson)
                        .isLessThanOrEqualTo(bson * CommandSizeBound.MAX_JSON_GROWTH);
            }
        }
    }

    @Test
    void shouldKeepRoomForFramingAndSignatureHeaders() {
        assertThat(new CommandSizeBound(1_048_576).maxCommandBytes()).isEqualTo(1_048_576 - 2_048);
    }
}

package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.state.DocumentRef;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.types.ObjectId;
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
                        .isLessThanOrEqualTo(bson * CanonicalJson.MAX_GROWTH);
            }
        }
    }

    /**
     * The bound reads the key's size off the document reference, which writes a common {@code _id} without BSON
     * framing: the key's JSON still grows at most {@link CanonicalJson#MAX_GROWTH} times its part of the
     * reference, for the forms that grow most (empty and escaped strings, the widest integers, binary ids).
     */
    @Test
    void shouldBoundTheGrowthFromACompactReferenceKeyToExtendedJson() {
        Bytes namespace = DocumentRef.collectionPrefix(0, 0);
        int prefix = namespace.get().length;
        List<BsonValue> ids = List.of(
                new BsonString(""),
                new BsonString("\u0001\u0001"),
                new BsonInt32(Integer.MIN_VALUE),
                new BsonInt64(Long.MIN_VALUE),
                new BsonObjectId(new ObjectId()),
                new BsonBinary(BsonBinarySubType.UUID_STANDARD, new byte[16]));
        for (BsonValue id : ids) {
            BsonDocument key = new BsonDocument("_id", id);
            int keyBytes = DocumentRef.of(namespace, key).get().length - prefix;
            int json = CanonicalJson.of(key).getBytes(StandardCharsets.UTF_8).length;
            assertThat(json)
                    .as("%s: %d bytes of reference", CanonicalJson.of(key), keyBytes)
                    .isLessThanOrEqualTo(keyBytes * CanonicalJson.MAX_GROWTH);
        }
    }

    @Test
    void shouldKeepRoomForFramingAndSignatureHeaders() {
        assertThat(new CommandSizeBound(1_048_576).refusal(1))
                .contains("more than the " + (1_048_576 - 2_048) + " a record");
    }
}

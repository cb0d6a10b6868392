package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

class PinnedDateTest {

    @Property
    void shouldWriteTheBytesTheCodecWritesForEveryFieldAndDate(
            @ForAll @StringLength(min = 1, max = 40) String field, @ForAll long millis) {
        if (field.indexOf(0) >= 0) {
            return;
        }
        ByteBuffer codec = codec(new BsonDocument(field, new BsonDocument("$eq", new BsonDateTime(millis))));

        ByteBuffer direct = PinnedDate.condition(field, millis);

        assertThat(direct).isEqualTo(codec);
        assertThat(PinnedDate.fieldLength(direct, millis)).isEqualTo(codec.array().length - 4 - 1 - 18 - 1);
        assertThat(PinnedDate.fieldLength(direct, millis + 1))
                .as("another date is not the base")
                .isZero();
    }

    private static ByteBuffer codec(BsonDocument document) {
        BasicOutputBuffer out = new BasicOutputBuffer(64);
        new BsonDocumentCodec()
                .encode(
                        new BsonBinaryWriter(out),
                        document,
                        EncoderContext.builder().build());
        return ByteBuffer.wrap(out.toByteArray());
    }
}

package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;

class PinnedDateTest {

    @Property
    void shouldWriteTheBytesTheCodecWritesForEveryFieldAndDate(
            @ForAll @StringLength(min = 1, max = 40) String field, @ForAll long millis) {
        if (field.indexOf(0) >= 0) {
            return;
        }
        ByteBuffer codec =
                StoredValues.bson(new BsonDocument(field, new BsonDocument("$eq", new BsonDateTime(millis))));

        ByteBuffer direct = PinnedDate.condition(field, millis);

        assertThat(direct).isEqualTo(codec);
        assertThat(PinnedDate.fieldLength(direct, millis)).isEqualTo(codec.array().length - 4 - 1 - 18 - 1);
        assertThat(PinnedDate.fieldLength(direct, millis + 1))
                .as("another date is not the base")
                .isZero();
    }
}

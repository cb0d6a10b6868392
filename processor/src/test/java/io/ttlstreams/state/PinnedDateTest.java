package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.schema.ScheduleEntry;
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

    @Property
    void shouldNameTheFieldOfExactlyThePinnedBaseWhenAskedForItsField(
            @ForAll(supplier = StoredValues.ScheduleEntries.class) ScheduleEntry entry) {
        long base = entry.getBase().toEpochMilli();

        String field = PinnedDate.fieldOf(entry.getCondition(), base);

        assertThat(field != null).isEqualTo(PinnedDate.fieldLength(entry.getCondition(), base) > 0);
        if (field != null) {
            assertThat(StoredValues.bson(new BsonDocument(field, StoredValues.eq(new BsonDateTime(base)))))
                    .as("the condition is exactly the base pinned under the field named")
                    .isEqualTo(entry.getCondition());
        }
    }

    @Property
    void shouldReadBackTheFieldWhenTheConditionWasWrittenDirectly(
            @ForAll @StringLength(min = 1, max = 40) String field, @ForAll long millis) {
        if (field.indexOf(0) >= 0) {
            return;
        }

        assertThat(PinnedDate.fieldOf(PinnedDate.condition(field, millis), millis))
                .isEqualTo(field);
        assertThat(PinnedDate.fieldOf(PinnedDate.condition(field, millis), millis - 1))
                .isNull();
    }
}

package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.StoredValues;
import java.nio.ByteBuffer;
import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;

/** A command's condition reads the same whether built directly (a pinned base) or decoded from its BSON. */
class ScheduleEntriesTest {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Bytes REF =
            DocumentRef.of(DocumentRef.collectionPrefix(0, 0), new BsonDocument("_id", new BsonString("d1")));

    @Property
    void shouldReadTheConditionAsItsBsonDecodesWhenTheBaseIsPinnedOrNot(
            @ForAll("names") String field,
            @ForAll @LongRange(min = -100_000_000_000_000L, max = 100_000_000_000_000L) long base,
            @ForAll("conditions") int kind) {
        BsonDocument condition = switch (kind) {
            case 0 -> new BsonDocument(field, StoredValues.eq(new BsonDateTime(base)));
            case 1 -> new BsonDocument(field, StoredValues.eq(new BsonDateTime(base + 1)));
            case 2 -> new BsonDocument(field, StoredValues.eq(new BsonInt64(base)));
            case 3 -> new BsonDocument(field, StoredValues.eq(new BsonDateTime(base))).append("$and", new BsonArray());
            default -> new BsonDocument();
        };
        ScheduleEntry entry = entry(base, StoredValues.bson(condition));

        BsonDocument read = ScheduleEntries.conditionFieldsOf(entry);

        assertThat(read).isEqualTo(condition).isEqualTo(ScheduleEntries.conditionOf(entry));
        assertThat(read.toJson()).isEqualTo(condition.toJson());
        DeleteCommand command = ScheduleEntries.command(REF, SESSIONS, entry, base + 5, null);
        BsonDocument filter = new BsonDocument("_id", new BsonString("d1"));
        condition.forEach(filter::append);
        assertThat(command.filter()).isEqualTo(filter);
        assertThat(command.valueJson()).startsWith("{\"_id\": " + CanonicalJson.of(filter) + ", ");
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().ofMinLength(1).ofMaxLength(30).filter(n -> n.indexOf(0) < 0 && !n.equals("_id"));
    }

    @Provide
    Arbitrary<Integer> conditions() {
        return Arbitraries.integers().between(0, 3);
    }

    private static ScheduleEntry entry(long base, ByteBuffer condition) {
        return new ScheduleEntry("sessions", 1L, Instant.ofEpochMilli(base), 60L, false, condition, 0, null, null);
    }
}

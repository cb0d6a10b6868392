package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.processor.DeadLetters;
import io.ttlstreams.processor.TtlMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

/**
 * Issue 23, findings 6 and 8: no document may make a delete command larger than the producer sends. A 600 kB
 * {@code _id} made a 1.2 MB command whose {@code RecordTooLargeException} failed every punctuation of its task, after
 * every restart. Such a document is dead-lettered with its size and never scheduled, and a canary document of the
 * same namespace still gets its command.
 */
class OversizedCommandTest {

    private static final int PRODUCER_LIMIT = 1_048_576;

    private final TopologyFixture fixture = TopologyFixture.sessions();
    private final ChangeEvents events = new ChangeEvents("app.sessions", START);
    private final TestInputTopic<String, String> input = fixture.input("app.sessions");

    private static BsonDocument dueAt10s() {
        return new BsonDocument(
                "expireAt", new BsonDateTime(START.plusSeconds(10).toEpochMilli()));
    }

    private void insert(BsonValue id, BsonDocument document) {
        input.pipeInput(ChangeEvents.key(id), events.insert(id, document));
    }

    private List<String> deletedIds() {
        return fixture.deletes().stream()
                .map(command -> BsonDocument.parse(command.key()).get("_id"))
                .map(id -> id.isString() ? id.asString().getValue() : id.toString())
                .toList();
    }

    private long scheduled() {
        try (var entries = fixture.scheduleStore().all()) {
            long count = 0;
            for (; entries.hasNext(); entries.next()) {
                count++;
            }
            return count;
        }
    }

    private static String error(TestRecord<String, String> letter) {
        return new String(letter.headers().lastHeader(DeadLetters.ERROR_HEADER).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldDeadLetterA600KbIdWithItsSizeWhileTheCanaryExpires() {
        try (fixture) {
            BsonString hugeId = new BsonString("x".repeat(600_000));
            int keyBytes = new RawBsonDocument(new BsonDocument("_id", hugeId), new BsonDocumentCodec())
                    .getByteBuffer()
                    .remaining();
            insert(hugeId, dueAt10s());
            insert(new BsonString("canary"), dueAt10s());

            assertThat(scheduled()).as("only the canary is scheduled").isEqualTo(1L);
            fixture.wallClockAt(Duration.ofSeconds(10));

            assertThat(deletedIds()).containsExactly("canary");
            assertThat(fixture.dlq.readRecordsToList())
                    .singleElement()
                    .satisfies(letter -> assertThat(error(letter))
                            .contains("document key (documentKey) is " + keyBytes + " bytes of BSON")
                            .contains("more than the 16384 bytes " + OperationsOptions.DOCUMENT_KEY_MAX_BYTES_CONFIG));
            assertThat(keyBytes).isEqualTo(600_015);
        }
    }

    @Test
    void shouldDeadLetterAPinnedValueThatWouldMakeTheCommandTooLargeAndDropTheEntryItReplaces() {
        try (fixture) {
            BsonString id = new BsonString("dates");
            insert(id, dueAt10s());
            // MongoDB's TTL reads the earliest date of an array; the condition pins the whole array.
            List<BsonValue> dates = new ArrayList<>();
            for (int i = 0; i < 30_000; i++) {
                dates.add(new BsonDateTime(START.plusSeconds(10 + i).toEpochMilli()));
            }
            input.pipeInput(
                    ChangeEvents.key(id), events.update(id, new BsonDocument("expireAt", new BsonArray(dates))));
            insert(new BsonString("canary"), dueAt10s());

            fixture.wallClockAt(Duration.ofSeconds(10));

            assertThat(deletedIds())
                    .as("the entry of the earlier version pinned a date the document no longer holds")
                    .containsExactly("canary");
            assertThat(fixture.dlq.readRecordsToList()).singleElement().satisfies(letter -> {
                Matcher size = Pattern.compile("its delete command would take (\\d+) bytes, more than the (\\d+)")
                        .matcher(error(letter));
                assertThat(size.find()).as(error(letter)).isTrue();
                assertThat(Integer.parseInt(size.group(2))).isEqualTo(PRODUCER_LIMIT - 2_048);
                assertThat(Integer.parseInt(size.group(1))).isGreaterThan(PRODUCER_LIMIT);
            });
        }
    }

    @Test
    void shouldDropAnOversizedEntryStoredBeforeTheCheckWhenItComesDue() {
        try (fixture) {
            fixture.scheduleDirectly("app.sessions", new BsonString("y".repeat(600_000)), START.plusSeconds(10));
            insert(new BsonString("canary"), dueAt10s());

            fixture.wallClockAt(Duration.ofSeconds(10));

            assertThat(deletedIds()).containsExactly("canary");
            assertThat(scheduled()).as("the canary, awaiting confirmation").isEqualTo(1L);
            assertThat(fixture.metric(TtlMetrics.DEAD_LETTERED)).isEqualTo(1.0);
        }
    }
}

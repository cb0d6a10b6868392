package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.processor.DeadLetters;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.record.internal.AbstractRecords;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * The records that once stopped all expiry of a task (issue 8), each followed by documents that must still expire:
 * JSON nested deeper than a recursive decoder survives, an unparseable event whose dead letter would exceed the
 * producer's limit, garbage on the control topic, a namespace-wide event with an invalid namespace, and (issue 9) a
 * forged document key that would turn the delete filter into a query.
 */
class PoisonRecordTest {

    private static final int PRODUCER_LIMIT = 1_048_576;

    private final TopologyFixture fixture = TopologyFixture.sessions();
    private final ChangeEvents events = new ChangeEvents("app.sessions", START);
    private final TestInputTopic<String, String> input = fixture.input("app.sessions");

    private void insertDueAt10s(String id) {
        BsonString key = new BsonString(id);
        input.pipeInput(
                ChangeEvents.key(key),
                events.insert(
                        key,
                        new BsonDocument(
                                "expireAt",
                                new BsonDateTime(START.plusSeconds(10).toEpochMilli()))));
    }

    /** Inserts "before" and "after" around the poison, and checks that both expire on time and nothing else does. */
    private List<TestRecord<String, String>> assertExpiryGoesOnAround(Runnable poison) {
        try (fixture) {
            insertDueAt10s("before");
            poison.run();
            insertDueAt10s("after");

            fixture.wallClockAt(Duration.ofMillis(9_999));
            assertThat(fixture.deletes()).isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(10));
            assertThat(fixture.deletes())
                    .extracting(
                            c -> BsonDocument.parse(c.key()).getString("_id").getValue())
                    .containsExactlyInAnyOrder("before", "after");
            return fixture.dlq.readRecordsToList();
        }
    }

    /** The text of {@code record}'s last header {@code name}, or null. */
    static String header(TestRecord<String, String> record, String name) {
        return record.headers().lastHeader(name) == null
                ? null
                : new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldDeadLetterEventNestedThousandsOfLevelsDeep() {
        String deep = "{\"operationType\": \"insert\", \"fullDocument\": " + "{\"a\": [".repeat(5_000)
                + "]}".repeat(5_000) + "}";

        List<TestRecord<String, String>> dead = assertExpiryGoesOnAround(() -> input.pipeInput("k", deep));

        assertThat(dead).singleElement().satisfies(letter -> {
            assertThat(letter.value()).isEqualTo(deep);
            assertThat(header(letter, DeadLetters.ERROR_HEADER)).contains("nests deeper than 200 levels");
            assertThat(header(letter, DeadLetters.SOURCE_TOPIC_HEADER)).isEqualTo("app.sessions");
        });
    }

    @Test
    void shouldDeadLetterAnOversizeEventTruncatedToWhatTheProducerSends() {
        String huge = "{\"operationType\": \"insert\", \"junk\": \"" + "x".repeat(PRODUCER_LIMIT);

        List<TestRecord<String, String>> dead = assertExpiryGoesOnAround(() -> input.pipeInput("k", huge));

        assertThat(dead).singleElement().satisfies(letter -> {
            int size = AbstractRecords.estimateSizeInBytesUpperBound(
                    RecordBatch.CURRENT_MAGIC_VALUE,
                    CompressionType.NONE,
                    letter.key().getBytes(StandardCharsets.UTF_8),
                    letter.value().getBytes(StandardCharsets.UTF_8),
                    letter.headers().toArray());
            assertThat(size)
                    .as("what the producer checks against max.request.size")
                    .isLessThanOrEqualTo(PRODUCER_LIMIT);
            assertThat(huge).startsWith(letter.value());
            assertThat(header(letter, DeadLetters.TRUNCATED_HEADER)).isEqualTo("true");
            assertThat(header(letter, DeadLetters.ORIGINAL_VALUE_BYTES_HEADER))
                    .isEqualTo(Integer.toString(huge.length()));
            assertThat(header(letter, DeadLetters.SOURCE_OFFSET_HEADER)).isEqualTo("1");
        });
    }

    @Test
    void shouldDeadLetterWhateverIsNotANamespaceWideEventOnTheControlTopic() {
        TestInputTopic<String, String> control = fixture.input(fixture.config.controlTopic());
        String document = "{\"operationType\": \"DELETE\", \"namespace\": \"app.sessions\", \"documentKey\":"
                + " {\"_id\": \"before\"}, \"fullDocument\": null, \"eventTime\": \"2026-01-01T00:00:00Z\","
                + " \"clusterTime\": null}";

        List<TestRecord<String, String>> dead = assertExpiryGoesOnAround(() -> {
            control.pipeInput("app.sessions", "not json at all");
            control.pipeInput("app.sessions", (String) null);
            control.pipeInput("app.sessions", document);
        });

        assertThat(dead).extracting(TestRecord::value).containsExactly("not json at all", null, document);
        assertThat(header(dead.get(0), DeadLetters.SOURCE_TOPIC_HEADER)).isEqualTo("ttl.control");
        assertThat(header(dead.get(2), DeadLetters.ERROR_HEADER)).contains("namespace-wide events only");
    }

    @Test
    void shouldDeadLetterNamespaceWideEventsWithAnInvalidNamespace() {
        TestInputTopic<String, String> control = fixture.input(fixture.config.controlTopic());
        String dropOfNul = "{\"operationType\": \"dropDatabase\", \"ns\": {\"db\": \"app\\u0000x\"}}";
        String controlOfNul = "{\"operationType\": \"DROP_DATABASE\", \"namespace\": \"app\\u0000x\","
                + " \"documentKey\": null, \"fullDocument\": null, \"eventTime\": \"2026-01-01T00:00:00Z\","
                + " \"clusterTime\": null}";

        List<TestRecord<String, String>> dead = assertExpiryGoesOnAround(() -> {
            input.pipeInput(null, dropOfNul);
            control.pipeInput("app", controlOfNul);
        });

        assertThat(dead).extracting(TestRecord::value).containsExactly(dropOfNul, controlOfNul);
        assertThat(dead)
                .allSatisfy(letter -> assertThat(header(letter, DeadLetters.ERROR_HEADER))
                        .contains("Invalid database name 'app\\u0000x'"));
    }

    @Test
    void shouldDeadLetterAForgedDocumentKeyAndEmitNoCommandForIt() {
        String forged = "{\"operationType\": \"insert\", \"ns\": {\"db\": \"app\", \"coll\": \"sessions\"},"
                + " \"documentKey\": {\"_id\": {\"$exists\": true, \"$ne\": \"n1\"}},"
                + " \"fullDocument\": {\"_id\": \"n2\", \"expireAt\": {\"$date\": \"2026-01-01T00:00:01Z\"}}}";

        List<TestRecord<String, String>> dead = assertExpiryGoesOnAround(() -> input.pipeInput("k", forged));

        assertThat(dead).singleElement().satisfies(letter -> {
            assertThat(letter.value()).isEqualTo(forged);
            assertThat(header(letter, DeadLetters.ERROR_HEADER)).contains("documentKey._id.$exists");
        });
    }
}

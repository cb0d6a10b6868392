package io.ttlstreams.topology;

import static io.ttlstreams.topology.ReadBackTest.CONFIRM_TIMEOUT;
import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.readback.DocumentReadBack;
import io.ttlstreams.readback.MapDocumentReader;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.ExpiryOutcome;
import java.time.Duration;
import org.apache.kafka.streams.TestInputTopic;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A resync racing a delete: read before the document was deleted, processed after the delete event. The index forgets
 * a document once its delete event is applied, so nothing tells the processor that the resync is older than what it
 * already knows, and the deleted document is scheduled again. Its one command matches nothing; without a read, it
 * would be retried until {@code ttl.confirm.max.attempts} and end UNCONFIRMED. With read-back (auto: at the first
 * late confirmation; read-back: at the read delay) the read finds the document gone and confirms it.
 */
class ResyncRaceTest {

    private static final BsonString ID = new BsonString("d1");
    private static final Namespace SESSIONS = Namespace.parse("app.sessions");

    @ParameterizedTest(name = "{0}")
    @CsvSource({"auto, 10000", "read-back, 500"})
    void shouldConfirmByReadADocumentAResyncScheduledAfterItsDeleteWhenReadingBack(String mode, long readAfterMillis) {
        MapDocumentReader mongo = new MapDocumentReader();
        DocumentReadBack readBack = new DocumentReadBack(mongo, 100, 1_000);
        try (TopologyFixture fixture =
                ReadBackTest.fixture(readBack, "ttl.confirm.mode", mode, "ttl.confirm.read.delay.ms", "500")) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            BsonDocument document = new BsonDocument(
                    "expireAt", new BsonDateTime(START.plusSeconds(60).toEpochMilli()));
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, document));
            BsonTimestamp read = events.nextClusterTime();
            input.pipeInput(
                    ChangeEvents.key(ID), events.at(START.plusSeconds(1)).delete(ID));
            input.pipeInput(ChangeEvents.key(ID), events.resync(ID, document, read));

            fixture.wallClockAt(Duration.ofSeconds(60));
            assertThat(fixture.deletes())
                    .as("the one command, which matches nothing")
                    .hasSize(1);
            Duration readAt = Duration.ofSeconds(60).plusMillis(readAfterMillis);
            fixture.wallClockAt(readAt);
            assertThat(readBack.readQueued()).isEqualTo(1);
            fixture.wallClockAt(readAt.plusMillis(100));

            assertThat(fixture.position(SESSIONS, ID)).isNull();
            fixture.wallClockAt(Duration.ofHours(2).plus(CONFIRM_TIMEOUT));
            assertThat(fixture.deletes()).as("no retries").isEmpty();
            assertThat(fixture.audit().readValuesToList())
                    .extracting(ExpiryEvent::getOutcome)
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.CONFIRMED);
            assertThat(fixture.metric(TtlMetrics.UNCONFIRMED)).isZero();
        }
    }
}

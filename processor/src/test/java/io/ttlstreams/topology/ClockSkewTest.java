package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.processor.DeadLetters;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * A MongoDB primary whose clock is a minute off the Connect worker's (whose clock stamps the records, here {@link
 * TopologyFixture#START}): its events' {@code wallTime} and {@code clusterTime} are a minute off their records'
 * timestamps. Measured ({@code SourceClock}, as the health check measures it with {@code hello}), every document is
 * scheduled and none is deleted early; what the window protects stays protected.
 */
class ClockSkewTest {

    private static final long MINUTE = 60_000;
    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace EVENTS = Namespace.parse("app.events");

    /** Field rule "sessions" on app.sessions (expireAt), last-modified rule "events" on app.events (60 s). */
    private static TopologyFixture fixture() {
        return SourceClaimsTest.fixture();
    }

    /** A session expiring 30 s after START (by the application's clock), and an app.events insert, both at START. */
    private static void insertBoth(TopologyFixture fixture, Instant primaryNow) {
        BsonValue id = new BsonString("d1");
        fixture.input("app.sessions")
                .pipeInput(
                        ChangeEvents.key(id),
                        new ChangeEvents("app.sessions", primaryNow)
                                .insert(
                                        id,
                                        new BsonDocument(
                                                "expireAt",
                                                new BsonDateTime(
                                                        START.plusSeconds(30).toEpochMilli()))));
        fixture.input("app.events")
                .pipeInput(
                        ChangeEvents.key(id),
                        new ChangeEvents("app.events", primaryNow).insert(id, new BsonDocument()));
    }

    private static String error(TestRecord<String, String> letter) {
        return new String(letter.headers().lastHeader(DeadLetters.ERROR_HEADER).value(), StandardCharsets.UTF_8);
    }

    /** Each due at its own deadline by the processor's clock: not before, and at it. */
    private static void assertDeletedOnTimeNotEarly(TopologyFixture fixture) {
        BsonValue id = new BsonString("d1");
        assertThat(fixture.position(SESSIONS, id).getDueAt()).isEqualTo(START.plusSeconds(30));
        // Counted from the change on the processor's clock, not from a minute later.
        assertThat(fixture.position(EVENTS, id).getDueAt()).isEqualTo(START.plusSeconds(60));
        fixture.wallClockAt(Duration.ofMillis(29_900));
        assertThat(fixture.deletes()).isEmpty();
        fixture.wallClockAt(Duration.ofSeconds(30));
        assertThat(fixture.deletes()).hasSize(1);
        fixture.wallClockAt(Duration.ofMillis(59_900));
        assertThat(fixture.deletes()).isEmpty();
        fixture.wallClockAt(Duration.ofSeconds(60));
        // With the session's unconfirmed command again, after the confirmation timeout (30 s).
        assertThat(fixture.deletes())
                .extracting(TestRecord::value)
                .filteredOn(value -> value.contains("\"coll\": \"events\""))
                .hasSize(1);
    }

    @Test
    void shouldScheduleEveryDocumentAndDeleteNoneEarlyWhenThePrimaryClockRunsAMinuteFast() {
        try (TopologyFixture fixture = fixture()) {
            fixture.sourceClock.measured(MINUTE);

            insertBoth(fixture, START.plusMillis(MINUTE));

            assertThat(fixture.dlq.readRecordsToList()).isEmpty();
            assertDeletedOnTimeNotEarly(fixture);
        }
    }

    @Test
    void shouldScheduleEveryDocumentAndDeleteNoneEarlyWhenThePrimaryClockRunsAMinuteSlow() {
        try (TopologyFixture fixture = fixture()) {
            fixture.sourceClock.measured(-MINUTE);

            insertBoth(fixture, START.minusMillis(MINUTE));

            assertThat(fixture.dlq.readRecordsToList()).isEmpty();
            assertDeletedOnTimeNotEarly(fixture);
        }
    }

    /** Unmeasured, the window is what it was: a record cannot widen it by claiming a skewed clock. */
    @Test
    void shouldDeadLetterEventsAMinuteAheadWhenMongoDbsClockIsNotMeasured() {
        try (TopologyFixture fixture = fixture()) {
            insertBoth(fixture, START.plusMillis(MINUTE));

            List<TestRecord<String, String>> letters = fixture.dlq.readRecordsToList();
            assertThat(letters).hasSize(2);
            assertThat(error(letters.get(0)))
                    .contains("ttl.event.time.max.future.skew.ms", "MongoDB's clock not measured");
            assertThat(fixture.documentEntries()).isZero();
        }
    }

    /** A drop further ahead than the measured offset plus the skew still never becomes a drop epoch. */
    @Test
    void shouldStillRefuseADropBeyondTheMeasuredOffsetAndTheSkew() {
        try (TopologyFixture fixture = fixture()) {
            fixture.sourceClock.measured(MINUTE);
            insertBoth(fixture, START.plusMillis(MINUTE));

            fixture.input("app.sessions")
                    .pipeInput(null, new ChangeEvents("app.sessions", START.plusSeconds(91)).drop());

            List<TestRecord<String, String>> letters = fixture.dlq.readRecordsToList();
            assertThat(letters).hasSize(1);
            assertThat(error(letters.get(0))).contains("MongoDB's clock measured 60000 ms ahead");
            assertThat(fixture.position(SESSIONS, new BsonString("d1"))).isNotNull();
        }
    }

    /** A connector resuming eight days back: its events are applied, not dead-lettered, and none deletes early. */
    @Test
    void shouldApplyEventsFromASourceResumingFurtherBackThanTheLagBound() {
        try (TopologyFixture fixture = fixture()) {
            insertBoth(fixture, START.minus(Duration.ofDays(8)));

            assertThat(fixture.dlq.readRecordsToList()).isEmpty();
            assertDeletedOnTimeNotEarly(fixture);
        }
    }
}

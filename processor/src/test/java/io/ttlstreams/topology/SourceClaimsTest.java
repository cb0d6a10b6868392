package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.OperationType;
import io.ttlstreams.processor.DeadLetters;
import io.ttlstreams.serde.ChangeEventSerde;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * A source record is a claim: the namespace it names must be its topic's, and the times it gives must be plausible
 * for when it was published, or a writer of one source topic could switch expiry off for another collection, make
 * deadlines early, or push them to 2106.
 */
class SourceClaimsTest {

    /** The largest clusterTime there is: 2106-02-07T06:28:15Z. */
    private static final BsonTimestamp END_OF_TIME = new BsonTimestamp(-1, 1);

    private static final int SESSIONS = 5;

    /** Field rule "sessions" on app.sessions (expireAt), last-modified rule "events" on app.events (60 s). */
    static TopologyFixture fixture() {
        return new TopologyFixture(TestConfigs.settings(
                "ttl.rules", "sessions,events",
                "ttl.rule.events.namespace", "app.events",
                "ttl.rule.events.mode", "last-modified",
                "ttl.rule.events.expire.after.seconds", "60"));
    }

    /** Inserts {@value #SESSIONS} sessions expiring a minute after {@link TopologyFixture#START}. */
    private static void insertSessions(TopologyFixture fixture) {
        ChangeEvents sessions = new ChangeEvents("app.sessions", START);
        TestInputTopic<String, String> input = fixture.input("app.sessions");
        for (int i = 0; i < SESSIONS; i++) {
            BsonValue id = new BsonInt32(i);
            input.pipeInput(
                    ChangeEvents.key(id),
                    sessions.insert(
                            id,
                            new BsonDocument(
                                    "expireAt",
                                    new BsonDateTime(START.plusSeconds(60).toEpochMilli()))));
        }
        assertThat(entries(fixture)).isEqualTo(SESSIONS);
    }

    /** A drop of app.sessions, as the connector shapes it, with {@code clusterTime}. */
    private static String dropOfSessions(BsonTimestamp clusterTime) {
        return new BsonDocument("operationType", new BsonString("drop"))
                .append("clusterTime", clusterTime)
                .append("ns", new BsonDocument("db", new BsonString("app")).append("coll", new BsonString("sessions")))
                .toJson();
    }

    /** The documents scheduled: the index's entries. */
    private static int entries(TopologyFixture fixture) {
        return fixture.documentEntries();
    }

    private static String error(TestRecord<String, String> letter) {
        return new String(letter.headers().lastHeader(DeadLetters.ERROR_HEADER).value(), StandardCharsets.UTF_8);
    }

    private static void assertSessionsExpireOnTime(TopologyFixture fixture) {
        fixture.wallClockAt(Duration.ofMillis(59_900));
        assertThat(fixture.deletes()).isEmpty();
        fixture.wallClockAt(Duration.ofSeconds(60));
        assertThat(fixture.deletes()).hasSize(SESSIONS);
    }

    @Test
    void shouldDeadLetterADropWhenItsNsNamesAnotherCollectionThanItsTopic() {
        try (TopologyFixture fixture = fixture()) {
            insertSessions(fixture);

            fixture.input("app.events").pipeInput(null, dropOfSessions(END_OF_TIME));

            List<TestRecord<String, String>> letters = fixture.dlq.readRecordsToList();
            assertThat(letters).hasSize(1);
            assertThat(error(letters.get(0))).contains("'app.sessions'", "'app.events'");
            assertThat(entries(fixture)).as("nothing cancelled").isEqualTo(SESSIONS);
            assertSessionsExpireOnTime(fixture);
        }
    }

    @Test
    void shouldDeadLetterADropDatabaseOnAnotherCollectionsTopicAtAPlausibleTime() {
        try (TopologyFixture fixture = fixture()) {
            insertSessions(fixture);
            ChangeEvents events = new ChangeEvents("app.events", START);

            fixture.input("app.events")
                    .pipeInput(null, events.at(START.plusSeconds(1)).dropDatabase());

            List<TestRecord<String, String>> letters = fixture.dlq.readRecordsToList();
            assertThat(letters).hasSize(1);
            assertThat(error(letters.get(0))).contains("a dropDatabase on a topic that carries the collection");
            assertThat(entries(fixture)).as("nothing of app.sessions cancelled").isEqualTo(SESSIONS);
            assertSessionsExpireOnTime(fixture);
        }
    }

    @Test
    void shouldDeadLetterADropWhenItsClusterTimeIsImplausibleAndGoOnScheduling() {
        try (TopologyFixture fixture = fixture()) {
            insertSessions(fixture);

            fixture.input("app.sessions").pipeInput(null, dropOfSessions(END_OF_TIME));
            // An hour ahead of its record is as implausible, and would switch expiry off for that hour.
            fixture.input("app.sessions")
                    .pipeInput(
                            null,
                            dropOfSessions(new BsonTimestamp(
                                    (int) START.plusSeconds(3600).getEpochSecond(), 1)));

            List<TestRecord<String, String>> letters = fixture.dlq.readRecordsToList();
            assertThat(letters).hasSize(2);
            assertThat(error(letters.get(0)))
                    .contains("clusterTime 2106-02-07T06:28:15Z", "ttl.event.time.max.future.skew.ms");
            assertThat(entries(fixture)).isEqualTo(SESSIONS);
            // A later real event of the namespace still schedules.
            BsonValue late = new BsonString("late");
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(late),
                            new ChangeEvents("app.sessions", START.plusSeconds(1))
                                    .insert(
                                            late,
                                            new BsonDocument(
                                                    "expireAt",
                                                    new BsonDateTime(START.plusSeconds(60)
                                                            .toEpochMilli()))));
            assertThat(entries(fixture)).isEqualTo(SESSIONS + 1);
            fixture.wallClockAt(Duration.ofSeconds(60));
            assertThat(fixture.deletes()).hasSize(SESSIONS + 1);
        }
    }

    @Test
    void shouldDeadLetterAControlRecordWhenItsClusterTimeIsImplausible() {
        try (TopologyFixture fixture = fixture()) {
            insertSessions(fixture);
            ChangeEvent forged = new ChangeEvent(
                    OperationType.DROP,
                    Namespace.parse("app.sessions"),
                    null,
                    null,
                    Instant.ofEpochSecond(0xFFFF_FFFFL + 1),
                    END_OF_TIME);
            String value =
                    new String(new ChangeEventSerde().serializer().serialize(null, forged), StandardCharsets.UTF_8);

            fixture.input(fixture.config.controlTopic()).pipeInput("app.sessions", value);

            List<TestRecord<String, String>> letters = fixture.dlq.readRecordsToList();
            assertThat(letters).hasSize(1);
            assertThat(error(letters.get(0))).contains("clusterTime 2106-02-07T06:28:15Z");
            assertSessionsExpireOnTime(fixture);
        }
    }

    @Test
    void shouldDeadLetterAResyncWhenItsClusterTimeIsImplausibleAndKeepTheDeadline() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.events", START);
            BsonValue id = new BsonString("e1");
            TestInputTopic<String, String> input = fixture.input("app.events");
            input.pipeInput(ChangeEvents.key(id), events.insert(id, new BsonDocument()));

            input.pipeInput(
                    ChangeEvents.key(id), events.resync(id, new BsonDocument("v", new BsonInt32(2)), END_OF_TIME));

            assertThat(fixture.dlq.readRecordsToList()).hasSize(1);
            assertThat(fixture.position(Namespace.parse("app.events"), id).getDueAt())
                    .isEqualTo(START.plusSeconds(60));
            fixture.wallClockAt(Duration.ofSeconds(60));
            assertThat(fixture.deletes()).hasSize(1);
        }
    }

    /** A wallTime years back no longer dead-letters the event (a source may resume far back), nor advances it. */
    @Test
    void shouldCountAnInsertFromItsRecordTimeWhenItsWallTimeIsYearsBeforeItsRecord() {
        try (TopologyFixture fixture = fixture()) {
            BsonValue id = new BsonString("e1");
            fixture.input("app.events")
                    .pipeInput(
                            ChangeEvents.key(id),
                            new ChangeEvents("app.events", Instant.parse("2020-01-01T00:00:00Z"))
                                    .insert(id, new BsonDocument()));

            assertThat(fixture.dlq.readRecordsToList()).isEmpty();
            assertThat(fixture.position(Namespace.parse("app.events"), id).getDueAt())
                    .isEqualTo(START.plusSeconds(60));
            fixture.wallClockAt(Duration.ofMillis(59_900));
            assertThat(fixture.deletes()).isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(60));
            assertThat(fixture.deletes()).hasSize(1);
        }
    }

    @Test
    void shouldCountAnInsertFromItsRecordTimeWhenItsWallTimeIsEarlier() {
        try (TopologyFixture fixture = fixture()) {
            BsonValue id = new BsonString("e1");
            // Twenty seconds before its record: plausible for a lagging connector, but no reason to delete early.
            fixture.input("app.events")
                    .pipeInput(
                            ChangeEvents.key(id),
                            new ChangeEvents("app.events", START.minusSeconds(20)).insert(id, new BsonDocument()));

            assertThat(fixture.position(Namespace.parse("app.events"), id).getDueAt())
                    .isEqualTo(START.plusSeconds(60));
            fixture.wallClockAt(Duration.ofMillis(59_900));
            assertThat(fixture.deletes()).isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(60));
            assertThat(fixture.deletes()).hasSize(1);
        }
    }
}

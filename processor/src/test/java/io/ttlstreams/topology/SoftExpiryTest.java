package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.processor.TtlMetrics;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * Soft expiry ({@code ttl.rule.<name>.action=mark}): at the deadline a mark command, confirmed by the change stream
 * showing the mark; a marked document never marked again; with a grace period, deleted after it unless un-marked.
 */
class SoftExpiryTest {

    private static final BsonString ID = new BsonString("d1");
    private static final String EXPIRED = "ttl.expired";
    private static final Namespace SESSIONS = Namespace.parse("app.sessions");

    private static TopologyFixture fixture(String... extra) {
        return new TopologyFixture(TopologyFixture.with(
                TopologyFixture.sessionsSettings(
                        "ttl.rule.sessions.action", "mark",
                        "ttl.rule.sessions.mark.field", "expiredAt",
                        "ttl.expired.topic", EXPIRED),
                extra));
    }

    private static BsonDocument dueIn(Duration offset) {
        return new BsonDocument("expireAt", new BsonDateTime(START.plus(offset).toEpochMilli()));
    }

    private static BsonDocument marked(Duration dueIn, Duration markedAt) {
        return dueIn(dueIn)
                .append("expiredAt", new BsonDateTime(START.plus(markedAt).toEpochMilli()));
    }

    private static DeleteCommand only(List<TestRecord<String, String>> commands) {
        assertThat(commands).hasSize(1);
        return DeleteCommand.parse(commands.get(0).key(), commands.get(0).value());
    }

    /** Inserts d1 due at 1 s, lets its mark go out and confirms it with the mark's update event. */
    private static void markedAtOneSecond(TopologyFixture fixture, ChangeEvents events) {
        fixture.input("app.sessions").pipeInput(ChangeEvents.key(ID), events.insert(ID, dueIn(Duration.ofSeconds(1))));
        fixture.wallClockAt(Duration.ofSeconds(1));
        DeleteCommand mark = only(fixture.deletes());
        assertThat(mark.isMark()).isTrue();
        fixture.input("app.sessions")
                .pipeInput(
                        ChangeEvents.key(ID),
                        events.at(START.plusMillis(1_100))
                                .update(ID, marked(Duration.ofSeconds(1), Duration.ofSeconds(1))));
    }

    @Test
    void shouldMarkAtTheDeadlineUnderTheDeletesConditionsAndNeverAgainWhenTheMarkIsConfirmed() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), events.insert(ID, dueIn(Duration.ofSeconds(1))));
            fixture.wallClockAt(Duration.ofSeconds(1));

            DeleteCommand mark = only(fixture.deletes());
            assertThat(mark.markField()).isEqualTo("expiredAt");
            assertThat(mark.filter())
                    .isEqualTo(BsonDocument.parse("{\"_id\": \"d1\", \"expireAt\": {\"$eq\": {\"$date\": "
                            + START.plusSeconds(1).toEpochMilli() + "}}, \"expiredAt\": {\"$exists\": false}}"));
            assertThat(BsonDocument.parse(mark.valueJson()).getDocument("update"))
                    .isEqualTo(BsonDocument.parse("{\"$set\": {\"expiredAt\": {\"$date\": "
                            + START.plusSeconds(1).toEpochMilli() + "}}}"));

            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            events.at(START.plusMillis(1_100))
                                    .update(ID, marked(Duration.ofSeconds(1), Duration.ofSeconds(1))));

            assertThat(fixture.metric(TtlMetrics.MARKED)).isEqualTo(1);
            assertThat(fixture.metric(TtlMetrics.CONFIRMED)).isEqualTo(1);
            BsonDocument record = BsonDocument.parse(
                    fixture.output(EXPIRED).readRecordsToList().get(0).value());
            assertThat(record.getString("type").getValue()).isEqualTo("EXPIRED");
            assertThat(record.getString("action").getValue()).isEqualTo("mark");
            assertThat(fixture.position(SESSIONS, ID)).as("nothing scheduled").isNull();
            fixture.wallClockAt(Duration.ofHours(1));
            assertThat(fixture.deletes())
                    .as("never marked again, never deleted")
                    .isEmpty();
        }
    }

    @Test
    void shouldNotScheduleADocumentThatArrivesMarked() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), events.insert(ID, marked(Duration.ofSeconds(1), Duration.ZERO)));
            fixture.wallClockAt(Duration.ofMinutes(10));

            assertThat(fixture.deletes()).isEmpty();
            assertThat(fixture.position(SESSIONS, ID)).isNull();
        }
    }

    @Test
    void shouldDeleteAMarkedDocumentAfterItsGracePeriodPinningTheMark() {
        try (TopologyFixture fixture = fixture("ttl.rule.sessions.delete.after.seconds", "10")) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            markedAtOneSecond(fixture, events);

            fixture.wallClockAt(Duration.ofMillis(10_900));
            assertThat(fixture.deletes()).as("not before the grace period ends").isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(11));
            DeleteCommand delete = only(fixture.deletes());
            assertThat(delete.isMark()).isFalse();
            assertThat(delete.filter().getDocument("expiredAt"))
                    .isEqualTo(BsonDocument.parse(
                            "{\"$eq\": {\"$date\": " + START.plusSeconds(1).toEpochMilli() + "}}"));

            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            events.at(START.plusSeconds(11)).delete(ID));
            List<BsonDocument> records = fixture.output(EXPIRED).readValuesToList().stream()
                    .map(BsonDocument::parse)
                    .toList();
            assertThat(records).extracting(r -> r.getString("type").getValue()).containsExactly("EXPIRED", "PURGED");
        }
    }

    @Test
    void shouldScheduleAgainAndNotDeleteADocumentUnmarkedDuringItsGracePeriod() {
        try (TopologyFixture fixture = fixture("ttl.rule.sessions.delete.after.seconds", "10")) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            markedAtOneSecond(fixture, events);

            // The application takes it back: mark removed, a new deadline.
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            events.at(START.plusSeconds(5)).update(ID, dueIn(Duration.ofHours(1))));
            fixture.wallClockAt(Duration.ofMinutes(30));
            assertThat(fixture.deletes())
                    .as("not deleted after the grace period")
                    .isEmpty();

            fixture.wallClockAt(Duration.ofHours(1));
            assertThat(only(fixture.deletes()).isMark())
                    .as("marked at its new deadline")
                    .isTrue();
        }
    }
}

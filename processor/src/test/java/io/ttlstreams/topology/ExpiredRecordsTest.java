package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.processor.TtlMetrics;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * The expired records ({@code ttl.expired.topic}): one per confirmed expiry, with the document's pre-image where its
 * rule asks for it; none for a delete no command caused, nor for a renewed document.
 */
class ExpiredRecordsTest {

    private static final String TOPIC = "ttl.expired";
    private static final BsonString ID = new BsonString("d1");
    private static final BsonString MARKER = new BsonString("marker");

    private static TopologyFixture fixture(String... extra) {
        return new TopologyFixture(TopologyFixture.with(
                TopologyFixture.sessionsSettings(
                        "ttl.expired.topic", TOPIC, "ttl.rule.sessions.expired.document", "pre-image"),
                extra));
    }

    private static BsonDocument session(Duration dueIn, String user) {
        return new BsonDocument("expireAt", new BsonDateTime(START.plus(dueIn).toEpochMilli()))
                .append("user", new BsonString(user));
    }

    private static List<TestRecord<String, String>> expired(TopologyFixture fixture) {
        return fixture.output(TOPIC).readRecordsToList();
    }

    /** The {@code _id}s of the documents the expired records published so far are about, in order. */
    private static List<BsonValue> expiredIds(TopologyFixture fixture) {
        return expired(fixture).stream()
                .map(r -> BsonDocument.parse(r.key()).getDocument("documentKey").get("_id"))
                .toList();
    }

    /** Inserts {@link #ID}, a session due in 1 s, and lets the wall clock reach its deadline: its command goes out. */
    private static void commandSent(TopologyFixture fixture, ChangeEvents events) {
        send(fixture, events.insert(ID, session(Duration.ofSeconds(1), "ann")));
        fixture.wallClockAt(Duration.ofSeconds(1));
    }

    /** Sends a change event of document {@link #ID}. */
    private static void send(TopologyFixture fixture, String event) {
        fixture.input("app.sessions").pipeInput(ChangeEvents.key(ID), event);
    }

    /** Inserts {@code id} due at {@code dueIn}, lets its command go out and confirms it by a delete with pre-image. */
    private static void expire(TopologyFixture fixture, ChangeEvents events, BsonValue id, Duration dueIn) {
        fixture.input("app.sessions").pipeInput(ChangeEvents.key(id), events.insert(id, session(dueIn, "u")));
        fixture.wallClockAt(dueIn);
        fixture.input("app.sessions")
                .pipeInput(
                        ChangeEvents.key(id), events.at(START.plus(dueIn)).deleteWithPreImage(id, session(dueIn, "u")));
    }

    @Test
    void shouldPublishOneRecordWithTheDocumentBeforeItsDeleteWhenTheDeleteIsConfirmed() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            commandSent(fixture, events);
            assertThat(fixture.deletes()).hasSize(1);
            assertThat(expired(fixture)).as("nothing before the confirmation").isEmpty();

            BsonDocument before = session(Duration.ofSeconds(1), "ann");
            send(fixture, events.at(START.plusMillis(1_250)).deleteWithPreImage(ID, before));

            List<TestRecord<String, String>> records = expired(fixture);
            assertThat(records).hasSize(1);
            assertThat(BsonDocument.parse(records.get(0).key()))
                    .isEqualTo(BsonDocument.parse(
                            "{\"namespace\": \"app.sessions\", \"documentKey\": {\"_id\": \"d1\"}}"));
            BsonDocument value = BsonDocument.parse(records.get(0).value());
            assertThat(value.getInt32("version").getValue()).isEqualTo(1);
            assertThat(value.getString("type").getValue()).isEqualTo("EXPIRED");
            assertThat(value.getString("cause").getValue()).isEqualTo("ttl");
            assertThat(value.getString("namespace").getValue()).isEqualTo("app.sessions");
            assertThat(value.getDocument("documentKey")).isEqualTo(new BsonDocument("_id", ID));
            assertThat(value.getString("rule").getValue()).isEqualTo("sessions");
            assertThat(value.getString("deadline").getValue())
                    .isEqualTo(START.plusSeconds(1).toString());
            assertThat(value.getString("confirmedAt").getValue())
                    .isEqualTo(START.plusMillis(1_250).toString());
            assertThat(value.getString("confirmedBy").getValue()).isEqualTo("change-stream");
            assertThat(value.getNumber("lateMillis").longValue()).isEqualTo(250);
            assertThat(value.getNumber("attempts").intValue()).isEqualTo(1);
            assertThat(value.getString("documentState").getValue()).isEqualTo("pre-image");
            BsonDocument document = new BsonDocument("_id", ID);
            before.forEach(document::append);
            assertThat(value.getDocument("document")).isEqualTo(document);
            assertThat(fixture.metric(TtlMetrics.EXPIRED_RECORDS)).isEqualTo(1);

            fixture.wallClockAt(Duration.ofMinutes(5));
            assertThat(expired(fixture)).as("exactly once").isEmpty();
        }
    }

    @Test
    void shouldPublishNothingWhenTheApplicationDeletesADocumentBeforeItsDeadline() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            send(fixture, events.insert(ID, session(Duration.ofSeconds(10), "ann")));
            send(fixture, events.deleteWithPreImage(ID, session(Duration.ofSeconds(10), "ann")));

            expire(fixture, events, MARKER, Duration.ofSeconds(20));

            assertThat(expiredIds(fixture))
                    .as("only the marker, which came due after the application's delete")
                    .containsExactly(MARKER);
        }
    }

    @Test
    void shouldPublishNothingWhenThePreImageHoldsValuesTheCommandWouldNotHaveMatched() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            commandSent(fixture, events);
            assertThat(fixture.deletes()).hasSize(1);

            // Renewed, then deleted by the application: the renewal's event is not here yet, the pre-image says so.
            send(fixture, events.at(START.plusSeconds(2)).deleteWithPreImage(ID, session(Duration.ofHours(1), "ann")));
            expire(fixture, events, MARKER, Duration.ofSeconds(20));

            assertThat(expiredIds(fixture)).containsExactly(MARKER);
            assertThat(fixture.metric(TtlMetrics.DELETES_NOT_CAUSED)).isEqualTo(1);
        }
    }

    @Test
    void shouldPublishNothingForARenewedDocumentWhenTheApplicationDeletesItLater() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            commandSent(fixture, events);
            send(fixture, events.at(START.plusSeconds(1)).update(ID, session(Duration.ofHours(1), "ann")));
            send(fixture, events.at(START.plusSeconds(2)).delete(ID));
            expire(fixture, events, MARKER, Duration.ofSeconds(20));

            assertThat(expiredIds(fixture)).containsExactly(MARKER);
        }
    }

    @Test
    void shouldSayThePreImageIsMissingWhenTheDeleteEventCarriesNone() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            commandSent(fixture, events);
            send(fixture, events.at(START.plusSeconds(1)).delete(ID));

            BsonDocument value = BsonDocument.parse(expired(fixture).get(0).value());
            assertThat(value.getString("documentState").getValue()).isEqualTo("no-pre-image");
            assertThat(value.isNull("document")).isTrue();
        }
    }

    @Test
    void shouldSayTheDocumentWasTooLargeWhenThePipelineReplacedThePreImageByItsMarker() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            commandSent(fixture, events);
            BsonDocument ruleFields = new BsonDocument(
                    "expireAt", new BsonDateTime(START.plusSeconds(1).toEpochMilli()));
            send(fixture, events.at(START.plusMillis(1_250)).deleteWithPreImageMarker(ID, ruleFields));

            List<TestRecord<String, String>> records = expired(fixture);
            assertThat(records).hasSize(1);
            BsonDocument value = BsonDocument.parse(records.get(0).value());
            assertThat(value.getString("documentState").getValue()).isEqualTo("too-large");
            assertThat(value.isNull("document")).isTrue();
            assertThat(value.getString("confirmedBy").getValue()).isEqualTo("change-stream");
            assertThat(fixture.metric(TtlMetrics.DELETES_NOT_CAUSED)).isZero();
        }
    }

    @Test
    void shouldPublishNothingWhenTheMarkerHoldsValuesTheCommandWouldNotHaveMatched() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            commandSent(fixture, events);

            // The marker keeps the fields the rules read: renewed, then deleted by the application, as with a
            // pre-image.
            BsonDocument renewed = new BsonDocument(
                    "expireAt", new BsonDateTime(START.plus(Duration.ofHours(1)).toEpochMilli()));
            send(fixture, events.at(START.plusSeconds(2)).deleteWithPreImageMarker(ID, renewed));
            expire(fixture, events, MARKER, Duration.ofSeconds(20));

            assertThat(expiredIds(fixture)).containsExactly(MARKER);
            assertThat(fixture.metric(TtlMetrics.DELETES_NOT_CAUSED)).isEqualTo(1);
        }
    }

    @Test
    void shouldSayTheDocumentWasTooLargeWhenItsRecordWouldExceedWhatTheProducerSends() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            commandSent(fixture, events);
            // A pre-image the pipeline did not bound (a connector registered by hand), over the producer's 1 MiB.
            BsonDocument before = session(Duration.ofSeconds(1), "x".repeat(1_100_000));
            send(fixture, events.at(START.plusMillis(1_250)).deleteWithPreImage(ID, before));

            List<TestRecord<String, String>> records = expired(fixture);
            assertThat(records).hasSize(1);
            BsonDocument value = BsonDocument.parse(records.get(0).value());
            assertThat(value.getString("documentState").getValue()).isEqualTo("too-large");
            assertThat(value.isNull("document")).isTrue();
            assertThat(records.get(0).value().length()).isLessThan(2_048);
        }
    }

    @Test
    void shouldCarryNoDocumentWhenTheRuleAsksForNone() {
        try (TopologyFixture fixture = fixture("ttl.rule.sessions.expired.document", "none")) {
            expire(fixture, new ChangeEvents("app.sessions", START), ID, Duration.ofSeconds(1));

            BsonDocument value = BsonDocument.parse(expired(fixture).get(0).value());
            assertThat(value.getString("documentState").getValue()).isEqualTo("not-requested");
            assertThat(value.isNull("document")).isTrue();
        }
    }
}

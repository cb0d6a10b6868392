package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.readback.DocumentReadBack;
import io.ttlstreams.readback.MapDocumentReader;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.state.ScheduleKey.Timeline;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * Issue 23, "ground truth wins": a delete command that is not confirmed in time makes the scheduler read the document
 * back from MongoDB (here a {@link MapDocumentReader}; the tests run the read-back's reads themselves, so they decide
 * when answers arrive) and schedule what the document actually holds.
 */
class ReadBackTest {

    private static final BsonString ID = new BsonString("d1");
    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(10);

    private final MapDocumentReader mongo = new MapDocumentReader();
    private final DocumentReadBack readBack = new DocumentReadBack(mongo, 100, 1_000);

    /** A MongoDB to read, as far as the configuration is concerned: the tests read through {@link #mongo}. */
    static final String MONGODB_URI = "mongodb://mongo.invalid:27017";

    private TopologyFixture fixture(String... extra) {
        return fixture(readBack, extra);
    }

    /** The sessions rule, audited, confirmed within {@link #CONFIRM_TIMEOUT}, reading through {@code readBack}. */
    static TopologyFixture fixture(DocumentReadBack readBack, String... extra) {
        String[] settings = new String[extra.length + 6];
        settings[0] = "ttl.audit.topic";
        settings[1] = "ttl.audit";
        settings[2] = "ttl.confirm.timeout.ms";
        settings[3] = Long.toString(CONFIRM_TIMEOUT.toMillis());
        settings[4] = "ttl.mongodb.uri";
        settings[5] = MONGODB_URI;
        System.arraycopy(extra, 0, settings, 6, extra.length);
        return new TopologyFixture(TopologyFixture.sessionsSettings(settings), Optional.of(readBack));
    }

    private static BsonDocument expiringAt(Duration offset) {
        return new BsonDocument("expireAt", new BsonDateTime(START.plus(offset).toEpochMilli()));
    }

    /** Inserts the document, due one second after {@code START}, and runs the clock to its deadline. */
    private static void insertDueAtOneSecond(TopologyFixture fixture) {
        fixture.input("app.sessions")
                .pipeInput(
                        ChangeEvents.key(ID),
                        new ChangeEvents("app.sessions", START).insert(ID, expiringAt(Duration.ofSeconds(1))));
        fixture.wallClockAt(Duration.ofSeconds(1));
    }

    /**
     * Runs the clock to {@code at}, has the read-back answer the reads queued by then, and runs the clock 100 ms on,
     * where the scheduler applies the answers.
     */
    private void readAndApply(TopologyFixture fixture, Duration at) {
        fixture.wallClockAt(at);
        readBack.readQueued();
        fixture.wallClockAt(at.plusMillis(100));
    }

    private static BsonDocument stored(BsonDocument fields) {
        BsonDocument document = new BsonDocument("_id", ID);
        fields.forEach(document::append);
        return document;
    }

    private static List<ExpiryOutcome> outcomes(TopologyFixture fixture) {
        return fixture.audit().readValuesToList().stream()
                .map(ExpiryEvent::getOutcome)
                .toList();
    }

    private static IndexEntry position(TopologyFixture fixture) {
        return fixture.position(SESSIONS, ID);
    }

    private static BsonDocument filterOf(TestRecord<String, String> record) {
        return DeleteCommand.parse(record.key(), record.value()).filter();
    }

    private static BsonValue pinnedExpireAt(TestRecord<String, String> record) {
        return filterOf(record).getDocument("expireAt").get("$eq");
    }

    private static double metric(TopologyFixture fixture, String counter) {
        return fixture.metric(counter);
    }

    @Test
    void shouldScheduleTheRealDeadlineWhenAForgedEventsCommandMissed() {
        try (TopologyFixture fixture = fixture()) {
            Duration real = Duration.ofSeconds(60);
            mongo.put(SESSIONS, stored(expiringAt(real)));
            // A source record claiming a past expireAt the document never held.
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            new ChangeEvents("app.sessions", START).insert(ID, expiringAt(Duration.ofSeconds(-10))));
            fixture.wallClockAt(Duration.ofMillis(100));
            List<TestRecord<String, String>> forged = fixture.deletes();
            assertThat(forged).hasSize(1);
            assertThat(pinnedExpireAt(forged.get(0)))
                    .isEqualTo(new BsonDateTime(START.minusSeconds(10).toEpochMilli()));

            fixture.wallClockAt(Duration.ofMillis(100).plus(CONFIRM_TIMEOUT));
            assertThat(fixture.deletes())
                    .as("read back instead of emitted again")
                    .isEmpty();
            assertThat(readBack.readQueued()).as("one look-up").isEqualTo(1);
            fixture.wallClockAt(Duration.ofMillis(200).plus(CONFIRM_TIMEOUT));

            assertThat(position(fixture).getTimeline()).isEqualTo(Timeline.DEADLINES.ordinal());
            assertThat(position(fixture).getDueAt()).isEqualTo(START.plus(real));
            fixture.wallClockAt(real.minusMillis(100));
            assertThat(fixture.deletes()).as("never before the real deadline").isEmpty();
            fixture.wallClockAt(real);
            List<TestRecord<String, String>> due = fixture.deletes();
            assertThat(due).hasSize(1);
            assertThat(pinnedExpireAt(due.get(0)))
                    .isEqualTo(new BsonDateTime(START.plus(real).toEpochMilli()));
            assertThat(outcomes(fixture))
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.SUPERSEDED, ExpiryOutcome.EMITTED);
            assertThat(metric(fixture, TtlMetrics.READ_BACKS)).isEqualTo(1);
            assertThat(metric(fixture, TtlMetrics.RESCHEDULED_BY_READ)).isEqualTo(1);
            assertThat(metric(fixture, TtlMetrics.UNCONFIRMED)).isZero();
        }
    }

    @Test
    void shouldConfirmTheDeleteWhenTheReadFindsTheDocumentGone() {
        try (TopologyFixture fixture = fixture("ttl.confirm.mode", "auto")) {
            insertDueAtOneSecond(fixture);
            assertThat(fixture.deletes()).hasSize(1);
            // The sink deleted it; its delete event was lost.

            readAndApply(fixture, Duration.ofSeconds(1).plus(CONFIRM_TIMEOUT));

            assertThat(position(fixture)).as("confirmed: nothing left").isNull();
            List<ExpiryEvent> audit = fixture.audit().readValuesToList();
            assertThat(audit)
                    .extracting(ExpiryEvent::getOutcome)
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.CONFIRMED);
            assertThat(audit.get(1).getConfirmedLagMillis())
                    .as("counted to the punctuation that applied the read")
                    .isEqualTo(CONFIRM_TIMEOUT.toMillis() + 100);
            assertThat(metric(fixture, TtlMetrics.CONFIRMED)).isEqualTo(1);
            assertThat(metric(fixture, TtlMetrics.CONFIRMED_BY_READ)).isEqualTo(1);
            fixture.wallClockAt(Duration.ofHours(2));
            assertThat(fixture.deletes()).as("never emitted again").isEmpty();
            assertThat(metric(fixture, TtlMetrics.UNCONFIRMED)).isZero();
            assertThat(mongo.lookUps()).as("one read per confirmed delete").hasSize(1);
        }
    }

    @Test
    void shouldEmitAgainAsWithoutReadBackWhenMongoCannotBeRead() {
        try (TopologyFixture fixture = fixture("ttl.confirm.max.attempts", "2")) {
            mongo.failing(true);
            insertDueAtOneSecond(fixture);
            TestRecord<String, String> first = fixture.deletes().get(0);

            readAndApply(fixture, Duration.ofSeconds(11));
            List<TestRecord<String, String>> again = fixture.deletes();
            assertThat(again).hasSize(1);
            assertThat(filterOf(again.get(0))).as("same filter, same command").isEqualTo(filterOf(first));
            assertThat(metric(fixture, TtlMetrics.REEMITTED)).isEqualTo(1);
            assertThat(metric(fixture, TtlMetrics.READ_BACKS_FAILED)).isEqualTo(1);

            readAndApply(fixture, Duration.ofMillis(31_100));
            assertThat(position(fixture))
                    .as("given up after the last attempt, as without read-back")
                    .isNull();
            assertThat(outcomes(fixture))
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.EMITTED, ExpiryOutcome.UNCONFIRMED);
            assertThat(metric(fixture, TtlMetrics.UNCONFIRMED)).isEqualTo(1);
        }
    }

    @Test
    void shouldEmitAgainWhenAReadGoesUnansweredForAConfirmationTimeout() {
        try (TopologyFixture fixture = fixture()) {
            insertDueAtOneSecond(fixture);
            fixture.deletes();

            fixture.wallClockAt(Duration.ofSeconds(11));
            assertThat(fixture.deletes()).isEmpty();
            // No read runs: the reader is stuck, or its answer was lost.
            fixture.wallClockAt(Duration.ofSeconds(21));

            assertThat(fixture.deletes())
                    .as("emitted again after one more timeout")
                    .hasSize(1);
            assertThat(metric(fixture, TtlMetrics.READ_BACKS_FAILED)).isEqualTo(1);
            assertThat(position(fixture).getDueAt())
                    .as("the doubled wait of the second attempt")
                    .isEqualTo(START.plusSeconds(41));
        }
    }

    @Test
    void shouldEmitAgainWhenTheDocumentStillHoldsTheValuesItsCommandPins() {
        try (TopologyFixture fixture = fixture()) {
            mongo.put(SESSIONS, stored(expiringAt(Duration.ofSeconds(1))));
            insertDueAtOneSecond(fixture);
            TestRecord<String, String> first = fixture.deletes().get(0);

            readAndApply(fixture, Duration.ofSeconds(11));

            List<TestRecord<String, String>> again = fixture.deletes();
            assertThat(again).hasSize(1);
            assertThat(filterOf(again.get(0))).isEqualTo(filterOf(first));
            assertThat(metric(fixture, TtlMetrics.REEMITTED)).isEqualTo(1);
            assertThat(metric(fixture, TtlMetrics.READ_BACKS_FAILED)).isZero();
            assertThat(position(fixture).getTimeline()).isEqualTo(Timeline.CONFIRMATIONS.ordinal());
        }
    }

    @Test
    void shouldEmitAtOnceWhenTheDocumentHoldsAnotherDeadlineAlreadyDue() {
        try (TopologyFixture fixture = fixture()) {
            mongo.put(SESSIONS, stored(expiringAt(Duration.ofSeconds(2))));
            insertDueAtOneSecond(fixture);
            fixture.deletes();

            readAndApply(fixture, Duration.ofSeconds(11));

            List<TestRecord<String, String>> real = fixture.deletes();
            assertThat(real)
                    .as("due already: out in the run that applied the read")
                    .hasSize(1);
            assertThat(pinnedExpireAt(real.get(0)))
                    .isEqualTo(new BsonDateTime(START.plusSeconds(2).toEpochMilli()));
            assertThat(outcomes(fixture))
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.SUPERSEDED, ExpiryOutcome.EMITTED);
        }
    }

    @Test
    void shouldHoldAMovedDeadlineAlreadyDueWhenTheGuardsLimitIsSpent() {
        try (TopologyFixture fixture = fixture("ttl.guard.max.due.on.arrival", "1")) {
            BsonString other = new BsonString("d0");
            // One document due on arrival spends the rule's limit of one.
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(other),
                            new ChangeEvents("app.sessions", START).insert(other, expiringAt(Duration.ofHours(-1))));
            mongo.put(SESSIONS, stored(expiringAt(Duration.ofHours(-2))));
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            new ChangeEvents("app.sessions", START).insert(ID, expiringAt(Duration.ofSeconds(1))));
            fixture.wallClockAt(Duration.ofSeconds(1));
            assertThat(fixture.deletes()).as("d0 within the limit, d1 organic").hasSize(2);

            fixture.wallClockAt(Duration.ofSeconds(11));
            readBack.readQueued();
            fixture.wallClockAt(Duration.ofMillis(11_100));

            assertThat(fixture.deletes())
                    .as("the read's deadline was due on arrival, past the limit")
                    .isEmpty();
            assertThat(position(fixture).getTimeline()).isEqualTo(Timeline.AWAITING_APPROVAL.ordinal());
            assertThat(position(fixture).getDueAt()).isEqualTo(START.minus(Duration.ofHours(2)));
            assertThat(metric(fixture, TtlMetrics.HELD_FOR_APPROVAL)).isEqualTo(1);
            assertThat(metric(fixture, TtlMetrics.RESCHEDULED_BY_READ)).isEqualTo(1);
        }
    }

    @Test
    void shouldUnscheduleWhenTheDocumentReadNoLongerExpires() {
        try (TopologyFixture fixture = fixture()) {
            mongo.put(SESSIONS, stored(new BsonDocument("v", new BsonInt32(2))));
            insertDueAtOneSecond(fixture);
            fixture.deletes();

            readAndApply(fixture, Duration.ofSeconds(11));

            assertThat(position(fixture)).isNull();
            fixture.wallClockAt(Duration.ofHours(2));
            assertThat(fixture.deletes()).isEmpty();
            assertThat(outcomes(fixture)).containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.SUPERSEDED);
            assertThat(metric(fixture, TtlMetrics.UNCONFIRMED)).isZero();
        }
    }

    @Test
    void shouldDropAnAnswerForAnEntryAChangeEventMovedMeanwhile() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(Duration.ofSeconds(1))));
            fixture.wallClockAt(Duration.ofSeconds(1));
            fixture.deletes();
            fixture.wallClockAt(Duration.ofSeconds(11));
            readBack.readQueued();

            // The answer ("gone") waits in the inbox while a renewal arrives.
            input.pipeInput(
                    ChangeEvents.key(ID),
                    events.at(START.plusSeconds(11)).update(ID, expiringAt(Duration.ofSeconds(100))));
            fixture.wallClockAt(Duration.ofMillis(11_100));

            assertThat(position(fixture).getDueAt()).isEqualTo(START.plusSeconds(100));
            assertThat(metric(fixture, TtlMetrics.CONFIRMED_BY_READ)).isZero();
        }
    }

    private TopologyFixture idleFixture(String... extra) {
        Map<String, String> settings = new HashMap<>(Map.of(
                "ttl.rules", "idle",
                "ttl.rule.idle.namespace", "app.sessions",
                "ttl.rule.idle.mode", "last-modified",
                "ttl.rule.idle.expire.after.seconds", "5",
                "ttl.confirm.timeout.ms", Long.toString(CONFIRM_TIMEOUT.toMillis()),
                "ttl.mongodb.uri", MONGODB_URI));
        for (int i = 0; i < extra.length; i += 2) {
            settings.put(extra[i], extra[i + 1]);
        }
        return new TopologyFixture(settings, Optional.of(readBack));
    }

    @Test
    void shouldOnlyEmitAgainForALastModifiedRuleWithoutWitnessAsTheReadCannotTellARenewal() {
        try (TopologyFixture fixture = idleFixture()) {
            // Present, maybe renewed: nothing the read returns says when it last changed.
            mongo.put(SESSIONS, stored(new BsonDocument()));
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            new ChangeEvents("app.sessions", START).insert(ID, new BsonDocument()));
            fixture.wallClockAt(Duration.ofSeconds(5));
            TestRecord<String, String> first = fixture.deletes().get(0);

            readAndApply(fixture, Duration.ofSeconds(5).plus(CONFIRM_TIMEOUT));

            List<TestRecord<String, String>> again = fixture.deletes();
            assertThat(again)
                    .as("today's retry, no earlier and no other command")
                    .hasSize(1);
            assertThat(filterOf(again.get(0))).isEqualTo(filterOf(first));
            assertThat(fixture.metric(TtlMetrics.RESCHEDULED_BY_READ)).isZero();
        }
    }

    @Test
    void shouldCountALastModifiedDeadlineFromTheReadWhenTheWitnessChanged() {
        try (TopologyFixture fixture = idleFixture("ttl.rule.idle.modified.field", "version")) {
            mongo.put(SESSIONS, stored(new BsonDocument("version", new BsonInt32(2))));
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            new ChangeEvents("app.sessions", START)
                                    .insert(ID, new BsonDocument("version", new BsonInt32(1))));
            fixture.wallClockAt(Duration.ofSeconds(5));
            fixture.deletes();

            fixture.wallClockAt(Duration.ofSeconds(5).plus(CONFIRM_TIMEOUT));
            readBack.readQueued();
            Duration applied = Duration.ofMillis(5_100).plus(CONFIRM_TIMEOUT);
            fixture.wallClockAt(applied);

            assertThat(position(fixture).getDueAt())
                    .as("5 s from when the read was applied, after the renewal it saw")
                    .isEqualTo(START.plus(applied).plusSeconds(5));
            fixture.wallClockAt(applied.plusSeconds(5));
            List<TestRecord<String, String>> renewed = fixture.deletes();
            assertThat(renewed).hasSize(1);
            assertThat(filterOf(renewed.get(0)).getDocument("version"))
                    .isEqualTo(new BsonDocument("$eq", new BsonInt32(2)));
        }
    }

    @Test
    void shouldReadNothingAndEmitAsBeforeWithoutReadBack() {
        try (TopologyFixture fixture = TopologyFixture.sessions("ttl.confirm.timeout.ms", "10000")) {
            insertDueAtOneSecond(fixture);
            fixture.wallClockAt(Duration.ofSeconds(11));
            assertThat(fixture.deletes()).hasSize(2);
            assertThat(fixture.metric(TtlMetrics.READ_BACKS)).isZero();
        }
    }

    @Test
    void shouldReadBackAtTheReadDelayAndConfirmWithoutADeleteEventInReadBackMode() {
        try (TopologyFixture fixture = fixture("ttl.confirm.mode", "read-back", "ttl.confirm.read.delay.ms", "500")) {
            insertDueAtOneSecond(fixture);
            assertThat(fixture.deletes()).hasSize(1);
            assertThat(readBack.readQueued())
                    .as("nothing asked before the read delay")
                    .isZero();

            fixture.wallClockAt(Duration.ofMillis(1_500));
            assertThat(readBack.readQueued())
                    .as("read at the delay, not at the confirm timeout")
                    .isEqualTo(1);
            fixture.wallClockAt(Duration.ofMillis(1_600));

            assertThat(position(fixture)).as("confirmed by the read").isNull();
            List<ExpiryEvent> audit = fixture.audit().readValuesToList();
            assertThat(audit)
                    .extracting(ExpiryEvent::getOutcome)
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.CONFIRMED);
            assertThat(audit.get(1).getConfirmedLagMillis()).isEqualTo(600);
            assertThat(metric(fixture, TtlMetrics.CONFIRMED_BY_READ)).isEqualTo(1);
            fixture.wallClockAt(Duration.ofHours(2));
            assertThat(fixture.deletes()).isEmpty();
            assertThat(mongo.lookUps()).hasSize(1);
        }
    }

    @Test
    void shouldReadAgainWithoutEmittingOrGivingUpWhileMongoCannotBeReadInReadBackMode() {
        try (TopologyFixture fixture = fixture(
                "ttl.confirm.mode", "read-back", "ttl.confirm.read.delay.ms", "500", "ttl.confirm.max.attempts", "2")) {
            mongo.failing(true);
            insertDueAtOneSecond(fixture);
            assertThat(fixture.deletes()).hasSize(1);
            Duration at = Duration.ofMillis(1_500);
            for (int read = 0; read < 5; read++) {
                fixture.wallClockAt(at);
                assertThat(readBack.readQueued()).isEqualTo(1);
                at = at.plusMillis(100);
                fixture.wallClockAt(at);
                at = at.plus(CONFIRM_TIMEOUT);
            }
            assertThat(fixture.deletes()).as("nothing emitted while reads fail").isEmpty();
            assertThat(metric(fixture, TtlMetrics.UNCONFIRMED)).isZero();
            assertThat(metric(fixture, TtlMetrics.READ_BACKS_FAILED)).isEqualTo(5);
            assertThat(position(fixture).getTimeline()).isEqualTo(Timeline.CONFIRMATIONS.ordinal());

            mongo.failing(false);
            readAndApply(fixture, at);
            assertThat(position(fixture))
                    .as("gone, confirmed once MongoDB answers")
                    .isNull();
            assertThat(outcomes(fixture)).containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.CONFIRMED);
        }
    }

    @Test
    void shouldEmitAgainAtTheDoubledReadDelayWhenTheDocumentStillMatchesInReadBackMode() {
        try (TopologyFixture fixture = fixture("ttl.confirm.mode", "read-back", "ttl.confirm.read.delay.ms", "500")) {
            mongo.put(SESSIONS, stored(expiringAt(Duration.ofSeconds(1))));
            insertDueAtOneSecond(fixture);
            TestRecord<String, String> first = fixture.deletes().get(0);
            readAndApply(fixture, Duration.ofMillis(1_500));

            List<TestRecord<String, String>> again = fixture.deletes();
            assertThat(again)
                    .as("the sink has not applied it yet: the same command")
                    .hasSize(1);
            assertThat(filterOf(again.get(0))).isEqualTo(filterOf(first));
            assertThat(position(fixture).getDueAt())
                    .as("read again after twice the delay")
                    .isEqualTo(START.plusMillis(2_600));
        }
    }
}

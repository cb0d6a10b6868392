package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.processor.GuardDecision;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.HeldCount;
import io.ttlstreams.state.ScheduleQueries;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/**
 * The blast-radius guard: documents due on arrival (their deadline passed before the schedule learnt of them) flow up
 * to their rule's limit; past it they are held until an operator approves or rejects them, while deadlines the
 * schedule knew in advance keep expiring.
 */
class BlastRadiusTest {

    private static final int LIMIT = 5;

    private static TopologyFixture fixture(String... extra) {
        // No delete event comes back in a test driver: a long confirmation wait keeps commands from being re-sent.
        return new TopologyFixture(TopologyFixture.with(
                TopologyFixture.sessionsSettings(
                        "ttl.guard.max.due.on.arrival", Integer.toString(LIMIT),
                        "ttl.audit.topic", "ttl.audit",
                        "ttl.confirm.timeout.ms", "3600000"),
                extra));
    }

    /** Inserts documents {@code from..to-1} whose expireAt lies {@code offset} after START. */
    private static void insert(TopologyFixture fixture, int from, int to, Duration offset) {
        ChangeEvents events = new ChangeEvents("app.sessions", START);
        TestInputTopic<String, String> input = fixture.input("app.sessions");
        for (int i = from; i < to; i++) {
            BsonInt32 id = new BsonInt32(i);
            input.pipeInput(
                    ChangeEvents.key(id),
                    events.insert(
                            id,
                            new BsonDocument(
                                    "expireAt",
                                    new BsonDateTime(START.plus(offset).toEpochMilli()))));
        }
    }

    private static void decide(TopologyFixture fixture, boolean approve, String id) {
        fixture.input(fixture.config.controlTopic())
                .pipeInput((String) null, new GuardDecision("sessions", approve, id).toJson());
    }

    private static List<Integer> deletedIds(TopologyFixture fixture) {
        return fixture.deletes().stream()
                .map(TestRecord::key)
                .map(key -> BsonDocument.parse(key).getInt32("_id").getValue())
                .toList();
    }

    private static List<ExpiryOutcome> outcomes(TopologyFixture fixture) {
        return fixture.audit().readValuesToList().stream()
                .map(ExpiryEvent::getOutcome)
                .toList();
    }

    /** The schedule's holds of the sessions rule: its count and deadline bounds, zero when it holds none. */
    private static HeldCount state(TopologyFixture fixture) {
        return ScheduleQueries.holds(fixture.taskStore()).stream()
                .filter(hold -> hold.key.equals("sessions"))
                .map(hold -> hold.value)
                .findFirst()
                .orElse(new HeldCount(0L, Instant.EPOCH, Instant.EPOCH));
    }

    @Test
    void shouldHoldNothingWhenDueOnArrivalDocumentsStayUnderTheLimit() {
        try (TopologyFixture fixture = fixture()) {
            insert(fixture, 0, LIMIT, Duration.ofHours(-1));

            fixture.wallClockAt(Duration.ofSeconds(1));

            assertThat(deletedIds(fixture)).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
            assertThat(fixture.metric(TtlMetrics.HELD_FOR_APPROVAL)).isZero();
        }
    }

    @Test
    void shouldHoldAMassPastTheLimitWhileOrganicDeadlinesOfTheSameRuleExpire() {
        try (TopologyFixture fixture = fixture()) {
            insert(fixture, 100, 103, Duration.ofSeconds(10)); // organic: known before they come due
            insert(fixture, 0, 20, Duration.ofHours(-1)); // due on arrival: a mass

            fixture.wallClockAt(Duration.ofSeconds(1));
            assertThat(deletedIds(fixture)).as("the limit's worth flows").containsExactly(0, 1, 2, 3, 4);
            fixture.wallClockAt(Duration.ofMinutes(5));

            assertThat(deletedIds(fixture)).as("organic ones expire on time").containsExactlyInAnyOrder(100, 101, 102);
            assertThat(fixture.metric(TtlMetrics.HELD_FOR_APPROVAL)).isEqualTo(15);
            assertThat(outcomes(fixture))
                    .filteredOn(ExpiryOutcome.HELD_FOR_APPROVAL::equals)
                    .hasSize(15);
            HeldCount state = state(fixture);
            assertThat(state.getCount()).isEqualTo(15);
            assertThat(state.getEarliest()).isEqualTo(START.minus(Duration.ofHours(1)));
            assertThat(state.getLatest()).isEqualTo(START.minus(Duration.ofHours(1)));

            // Later arrivals of the tripped rule are held too, even after the window has passed.
            insert(fixture, 20, 21, Duration.ofHours(-1));
            fixture.wallClockAt(Duration.ofMinutes(6));
            assertThat(fixture.deletes()).isEmpty();
            assertThat(state(fixture).getCount()).isEqualTo(16);
        }
    }

    @Test
    void shouldReleaseHeldEntriesOnceWhenApproved() {
        try (TopologyFixture fixture = fixture()) {
            insert(fixture, 0, 20, Duration.ofHours(-1));
            fixture.wallClockAt(Duration.ofSeconds(1));
            assertThat(deletedIds(fixture)).hasSize(LIMIT);
            outcomes(fixture);

            decide(fixture, true, "approval-1");
            fixture.wallClockAt(Duration.ofSeconds(2));

            assertThat(deletedIds(fixture)).hasSize(15).doesNotContain(0, 1, 2, 3, 4);
            assertThat(outcomes(fixture))
                    .filteredOn(ExpiryOutcome.APPROVED::equals)
                    .hasSize(15);
            assertThat(fixture.metric(TtlMetrics.APPROVED)).isEqualTo(15);
            assertThat(state(fixture).getCount()).isZero();

            // The same decision again, as a redelivery or a second run of the command, changes nothing.
            insert(fixture, 20, 40, Duration.ofHours(-1));
            fixture.wallClockAt(Duration.ofSeconds(3));
            assertThat(deletedIds(fixture)).as("a fresh window").hasSize(LIMIT);
            decide(fixture, true, "approval-1");
            fixture.wallClockAt(Duration.ofSeconds(4));
            assertThat(fixture.deletes()).isEmpty();
            assertThat(state(fixture).getCount()).isEqualTo(15);
        }
    }

    @Test
    void shouldCancelHeldEntriesUntilTheirDocumentChangesWhenRejected() {
        try (TopologyFixture fixture = fixture()) {
            insert(fixture, 0, 20, Duration.ofHours(-1));
            fixture.wallClockAt(Duration.ofSeconds(1));
            assertThat(deletedIds(fixture)).hasSize(LIMIT);
            outcomes(fixture);

            decide(fixture, false, "rejection-1");
            fixture.wallClockAt(Duration.ofMinutes(5));

            assertThat(fixture.deletes()).isEmpty();
            assertThat(outcomes(fixture)).containsOnly(ExpiryOutcome.REJECTED).hasSize(15);
            assertThat(fixture.metric(TtlMetrics.REJECTED)).isEqualTo(15);
            assertThat(state(fixture).getCount()).isZero();
            assertThat(fixture.position(Namespace.parse("app.sessions"), new BsonInt32(7)))
                    .as("a rejected entry leaves the schedule")
                    .isNull();

            // The document's next change evaluates it again, like any other.
            ChangeEvents events = new ChangeEvents("app.sessions", START.plus(Duration.ofMinutes(5)));
            BsonInt32 id = new BsonInt32(7);
            fixture.input("app.sessions", START.plus(Duration.ofMinutes(5)))
                    .pipeInput(
                            ChangeEvents.key(id),
                            events.update(
                                    id,
                                    new BsonDocument("expireAt", new BsonDateTime(START.toEpochMilli()))
                                            .append("note", new BsonString("renewed"))));
            fixture.wallClockAt(Duration.ofMinutes(6));
            assertThat(deletedIds(fixture)).containsExactly(7);
        }
    }

    @Test
    void shouldReevaluateAHeldEntryWhenItsDocumentChanges() {
        try (TopologyFixture fixture = fixture()) {
            insert(fixture, 0, 10, Duration.ofHours(-1));
            fixture.wallClockAt(Duration.ofSeconds(1));
            fixture.deletes();
            assertThat(state(fixture).getCount()).isEqualTo(5);

            ChangeEvents events = new ChangeEvents("app.sessions", START.plusSeconds(1));
            BsonInt32 renewed = new BsonInt32(9);
            fixture.input("app.sessions", START.plusSeconds(1))
                    .pipeInput(
                            ChangeEvents.key(renewed),
                            events.update(
                                    renewed,
                                    new BsonDocument(
                                            "expireAt",
                                            new BsonDateTime(
                                                    START.plusSeconds(30).toEpochMilli()))));
            fixture.wallClockAt(Duration.ofSeconds(30));

            assertThat(deletedIds(fixture)).containsExactly(9);
            assertThat(state(fixture).getCount()).isEqualTo(4);
        }
    }

    @Test
    void shouldKeepHeldEntriesAcrossARestartUntilApproved() {
        TopologyFixture before = fixture();
        insert(before, 0, 20, Duration.ofHours(-1));
        before.wallClockAt(Duration.ofSeconds(1));
        assertThat(deletedIds(before)).hasSize(LIMIT);

        try (TopologyFixture after = before.restarted()) {
            after.wallClockAt(Duration.ofMinutes(5));
            assertThat(after.deletes()).as("still held after the restart").isEmpty();
            assertThat(state(after).getCount()).isEqualTo(15);

            decide(after, true, "after-restart");
            after.wallClockAt(Duration.ofMinutes(6));
            assertThat(deletedIds(after)).hasSize(15);
        }
    }

    @Test
    void shouldNotGuardARuleWhoseLimitIsZero() {
        try (TopologyFixture fixture = fixture("ttl.rule.sessions.guard.max.due.on.arrival", "0")) {
            insert(fixture, 0, 20, Duration.ofHours(-1));
            fixture.wallClockAt(Duration.ofSeconds(1));

            assertThat(deletedIds(fixture)).hasSize(20);
            assertThat(fixture.metric(TtlMetrics.HELD_FOR_APPROVAL)).isZero();
        }
    }

    @Test
    void shouldHoldWhatAShortenedOffsetMakesDueAtOnceUntilApprovedWhileOrganicDeadlinesExpire() {
        TopologyFixture before = fixture("ttl.rule.sessions.expire.after.seconds", "3600");
        insert(before, 0, 20, Duration.ofMinutes(-10)); // due at START + 50 min under the old offset
        insert(before, 100, 101, Duration.ofMinutes(10)); // due at START + 10 min under the new one: organic
        before.wallClockAt(Duration.ofSeconds(1));
        assertThat(before.deletes()).isEmpty();

        try (TopologyFixture after = before.restarted("ttl.rule.sessions.expire.after.seconds", "0")) {
            after.wallClockAt(Duration.ofSeconds(2));
            assertThat(deletedIds(after)).as("the limit's worth flows").hasSize(LIMIT);
            assertThat(state(after).getCount()).isEqualTo(15);

            after.wallClockAt(Duration.ofMinutes(10));
            assertThat(deletedIds(after)).as("organic, on time").containsExactly(100);

            decide(after, true, "offset-approved");
            after.wallClockAt(Duration.ofMinutes(11));
            assertThat(deletedIds(after)).hasSize(15);
        }
    }

    @Test
    void shouldDeadLetterAMalformedDecisionAndGoOnWhenOneReachesTheControlTopic() {
        try (TopologyFixture fixture = fixture()) {
            fixture.input(fixture.config.controlTopic())
                    .pipeInput((String) null, "{\"guardDecision\": {\"rule\": \"sessions\", \"decision\": \"all\"}}");
            insert(fixture, 0, 1, Duration.ofHours(-1));
            fixture.wallClockAt(Duration.ofSeconds(1));

            assertThat(fixture.dlq.readRecordsToList()).hasSize(1);
            assertThat(deletedIds(fixture)).containsExactly(0);
        }
    }
}

package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.processor.ScheduleEntries;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.RuleVersion;
import io.ttlstreams.state.EntryState;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.state.ScheduleKey.Timeline;
import io.ttlstreams.state.ScheduleStores;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * What happens to a document's expiry after its deadline passes (the command awaits the change stream's delete
 * event, is retried, or given up) and when the rules change under a scheduled document (removed, offset changed,
 * reshaped), plus resyncs, dry runs and events that change nothing.
 */
class ExpiryLifecycleTest {

    private static final BsonString ID = new BsonString("d1");
    private static final Namespace SESSIONS = Namespace.parse("app.sessions");

    private static BsonDocument expiringAt(Duration offset) {
        return new BsonDocument("expireAt", new BsonDateTime(START.plus(offset).toEpochMilli()));
    }

    private static TopologyFixture fixture(String... extra) {
        return new TopologyFixture(TopologyFixture.with(
                TopologyFixture.sessionsSettings("ttl.audit.topic", "ttl.audit", "ttl.confirm.timeout.ms", "10000"),
                extra));
    }

    private static DeleteCommand withIssueTime(DeleteCommand command, Duration offset) {
        return new DeleteCommand(
                command.documentKey(),
                command.filter(),
                command.namespace(),
                command.rule(),
                command.deadlineMillis(),
                OptionalLong.of(START.plus(offset).toEpochMilli()));
    }

    private static List<ExpiryOutcome> outcomes(TopologyFixture fixture) {
        return fixture.audit().readValuesToList().stream()
                .map(ExpiryEvent::getOutcome)
                .toList();
    }

    private static IndexEntry position(TopologyFixture fixture, BsonValue id) {
        return fixture.position(SESSIONS, id);
    }

    private static void insertDueAt(TopologyFixture fixture, ChangeEvents events, Duration offset) {
        fixture.input("app.sessions").pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(offset)));
    }

    @Test
    void shouldConfirmTheDeleteWhenTheChangeStreamReportsIt() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            insertDueAt(fixture, events, Duration.ofSeconds(1));
            fixture.wallClockAt(Duration.ofMillis(999));
            assertThat(fixture.deletes()).as("not before its deadline").isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(1));
            assertThat(fixture.deletes()).hasSize(1);
            assertThat(fixture.metric(TtlMetrics.EMITTED)).isEqualTo(1);
            assertThat(fixture.scheduled("app.sessions", ID)).hasValueSatisfying(entry -> {
                assertThat(entry.state()).isEqualTo("awaiting-confirmation");
                assertThat(entry.attempts()).isEqualTo(1);
            });

            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            events.at(START.plusMillis(1_250)).delete(ID));

            assertThat(position(fixture, ID)).as("confirmed: nothing left").isNull();
            assertThat(fixture.scheduleStore().approximateNumEntries()).isZero();
            List<ExpiryEvent> audit = fixture.audit().readValuesToList();
            assertThat(audit)
                    .extracting(ExpiryEvent::getOutcome)
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.CONFIRMED);
            assertThat(audit.get(1).getConfirmedLagMillis()).isEqualTo(250L);
            assertThat(fixture.metric(TtlMetrics.CONFIRMED)).isEqualTo(1);
            assertThat(fixture.metrics
                            .registry()
                            .get(TtlMetrics.meterName(TtlMetrics.CONFIRMED_LAG))
                            .timer()
                            .max(TimeUnit.MILLISECONDS))
                    .isEqualTo(250);
            fixture.wallClockAt(Duration.ofMinutes(5));
            assertThat(fixture.deletes()).as("never emitted again").isEmpty();
        }
    }

    @Test
    void shouldWriteNoScheduleOrIndexRecordAndOneTaskRecordForAPunctuationThatEmitsMany() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            for (int id = 0; id < 10; id++) {
                fixture.input("app.sessions")
                        .pipeInput(
                                ChangeEvents.key(new BsonInt32(id)),
                                events.insert(new BsonInt32(id), expiringAt(Duration.ofSeconds(1))));
            }
            assertThat(fixture.changelog(ScheduleStores.SCHEDULE)).hasSize(10);
            assertThat(fixture.changelog(ScheduleStores.INDEX))
                    .as("ten entries")
                    .hasSize(10);
            assertThat(fixture.changelog(ScheduleStores.TASK))
                    .as("the namespace dictionary's record of app.sessions")
                    .hasSize(1);

            fixture.wallClockAt(Duration.ofSeconds(1));

            assertThat(fixture.deletes()).hasSize(10);
            assertThat(fixture.changelog(ScheduleStores.SCHEDULE))
                    .as("no entry moved")
                    .isEmpty();
            assertThat(fixture.changelog(ScheduleStores.INDEX))
                    .as("no entry moved")
                    .isEmpty();
            assertThat(fixture.changelog(ScheduleStores.TASK))
                    .as("the emitted position's checkpoint")
                    .hasSize(1);
            assertThat(fixture.scheduled("app.sessions", new BsonInt32(7)))
                    .hasValueSatisfying(entry -> assertThat(entry.state()).isEqualTo("awaiting-confirmation"));
        }
    }

    @Test
    void shouldAwaitTheFirstConfirmationAcrossARestartAndEmitAgainOnlyAfterTheTimeout() {
        TopologyFixture before = fixture();
        insertDueAt(before, new ChangeEvents("app.sessions", START), Duration.ofSeconds(1));
        before.wallClockAt(Duration.ofSeconds(1));
        assertThat(before.deletes()).hasSize(1);

        try (TopologyFixture after = before.restarted()) {
            after.wallClockAt(Duration.ofMillis(10_900));
            assertThat(after.deletes())
                    .as("neither emitted again at once nor before the 10 s timeout")
                    .isEmpty();
            assertThat(after.scheduled("app.sessions", ID)).hasValueSatisfying(entry -> {
                assertThat(entry.state()).isEqualTo("awaiting-confirmation");
                assertThat(entry.attempts()).isEqualTo(1);
            });
            after.wallClockAt(Duration.ofSeconds(11));
            assertThat(after.deletes()).hasSize(1);
            assertThat(after.metric(TtlMetrics.REEMITTED)).isEqualTo(1);

            after.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID), new ChangeEvents("app.sessions", START.plusSeconds(12)).delete(ID));
            assertThat(after.scheduled("app.sessions", ID)).as("confirmed").isEmpty();
            List<ExpiryEvent> audit = after.audit().readValuesToList();
            assertThat(audit)
                    .extracting(ExpiryEvent::getOutcome)
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.CONFIRMED);
            assertThat(audit.get(0).getAttempt()).as("the second command").isEqualTo(2);
            after.wallClockAt(Duration.ofMinutes(5));
            assertThat(after.deletes()).as("never emitted again").isEmpty();
        }
    }

    @Test
    void shouldEmitTheSameCommandAgainWhenNoConfirmationComesInTime() {
        try (TopologyFixture fixture = fixture()) {
            insertDueAt(fixture, new ChangeEvents("app.sessions", START), Duration.ofSeconds(1));
            fixture.wallClockAt(Duration.ofSeconds(1));
            TestRecord<String, String> first = fixture.deletes().get(0);

            fixture.wallClockAt(Duration.ofMillis(10_900));
            assertThat(fixture.deletes()).as("within the 10 s timeout").isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(11));
            List<TestRecord<String, String>> again = fixture.deletes();

            assertThat(again).hasSize(1);
            assertThat(again.get(0).key()).isEqualTo(first.key());
            assertThat(DeleteCommand.parse(again.get(0).key(), again.get(0).value()))
                    .as("same command, issued anew")
                    .isEqualTo(withIssueTime(DeleteCommand.parse(first.key(), first.value()), Duration.ofSeconds(11)));
            assertThat(fixture.metric(TtlMetrics.REEMITTED)).isEqualTo(1);
            fixture.wallClockAt(Duration.ofMillis(30_900));
            assertThat(fixture.deletes()).as("the second wait doubles to 20 s").isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(31));
            assertThat(fixture.deletes()).hasSize(1);
        }
    }

    @Test
    void shouldGiveUpAfterTheLastAttemptCountingAndAuditingIt() {
        try (TopologyFixture fixture = fixture("ttl.confirm.max.attempts", "2")) {
            insertDueAt(fixture, new ChangeEvents("app.sessions", START), Duration.ofSeconds(1));
            fixture.wallClockAt(Duration.ofSeconds(1));
            fixture.wallClockAt(Duration.ofSeconds(11));
            fixture.wallClockAt(Duration.ofSeconds(31));

            assertThat(fixture.deletes()).as("two attempts").hasSize(2);
            assertThat(position(fixture, ID)).as("given up").isNull();
            assertThat(fixture.metric(TtlMetrics.UNCONFIRMED)).isEqualTo(1);
            List<ExpiryEvent> audit = fixture.audit().readValuesToList();
            assertThat(audit)
                    .extracting(ExpiryEvent::getOutcome)
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.EMITTED, ExpiryOutcome.UNCONFIRMED);
            assertThat(audit).extracting(ExpiryEvent::getAttempt).containsExactly(1, 2, 2);
            fixture.wallClockAt(Duration.ofHours(1));
            assertThat(fixture.deletes()).isEmpty();
        }
    }

    @Test
    void shouldSpendNoAttemptAndEmitNothingAgainWhileTheSinkDoesNotWrite() {
        try (TopologyFixture fixture = fixture("ttl.confirm.max.attempts", "2")) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            insertDueAt(fixture, events, Duration.ofSeconds(1));
            fixture.wallClockAt(Duration.ofSeconds(1));
            assertThat(fixture.deletes()).as("the first command").hasSize(1);

            // MongoDB cannot be written for far longer than the two attempts' schedule (10 s, then 20 s).
            fixture.sinkWriting.set(false);
            for (int second = 11; second <= 600; second += 10) {
                fixture.wallClockAt(Duration.ofSeconds(second));
            }
            assertThat(fixture.deletes())
                    .as("nothing emitted again while the sink fails")
                    .isEmpty();
            assertThat(position(fixture, ID))
                    .as("still awaiting its confirmation")
                    .isNotNull();
            assertThat(fixture.metric(TtlMetrics.UNCONFIRMED + "-total")).isZero();

            fixture.sinkWriting.set(true);
            fixture.wallClockAt(Duration.ofSeconds(610));
            assertThat(fixture.deletes())
                    .as("the second attempt, once the sink writes")
                    .hasSize(1);
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), new ChangeEvents("app.sessions", START.plusSeconds(2)).delete(ID));
            assertThat(position(fixture, ID)).as("confirmed").isNull();
            assertThat(outcomes(fixture))
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.EMITTED, ExpiryOutcome.CONFIRMED);
        }
    }

    @Test
    void shouldLetARenewalSupersedeACommandAwaitingConfirmation() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            insertDueAt(fixture, events, Duration.ofSeconds(1));
            fixture.wallClockAt(Duration.ofSeconds(1));
            assertThat(fixture.deletes()).hasSize(1);

            // The sink's filter missed (expireAt changed): the renewal's event arrives instead of a delete.
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), events.update(ID, expiringAt(Duration.ofSeconds(60))));

            assertThat(position(fixture, ID).getTimeline()).isEqualTo(Timeline.DEADLINES.ordinal());
            assertThat(position(fixture, ID).getDueAt()).isEqualTo(START.plusSeconds(60));
            fixture.wallClockAt(Duration.ofSeconds(59));
            assertThat(fixture.deletes())
                    .as("no retry of the superseded command")
                    .isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(60));
            assertThat(fixture.deletes()).hasSize(1);
            assertThat(outcomes(fixture))
                    .containsExactly(ExpiryOutcome.EMITTED, ExpiryOutcome.SUPERSEDED, ExpiryOutcome.EMITTED);
        }
    }

    @Test
    void shouldWriteNothingForAnUpdateThatChangesNothingButAlwaysForAnInsert() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(Duration.ofSeconds(30))));
            int changelogRecords = fixture.changelogRecords();

            BsonDocument sameDeadline = expiringAt(Duration.ofSeconds(30)).append("views", new BsonInt32(7));
            input.pipeInput(ChangeEvents.key(ID), events.update(ID, sameDeadline));
            assertThat(fixture.changelogRecords()).as("no-op update").isEqualTo(changelogRecords);
            assertThat(fixture.metric(TtlMetrics.UNCHANGED)).isEqualTo(1);

            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, sameDeadline));
            assertThat(fixture.changelogRecords()).as("an insert is written").isGreaterThan(changelogRecords);

            input.pipeInput(ChangeEvents.key(ID), events.update(ID, expiringAt(Duration.ofSeconds(31))));
            assertThat(position(fixture, ID).getDueAt()).isEqualTo(START.plusSeconds(31));
        }
    }

    @Test
    void shouldEmitNothingInADryRunButAuditIt() {
        try (TopologyFixture fixture = fixture("ttl.dry.run", "true")) {
            insertDueAt(fixture, new ChangeEvents("app.sessions", START), Duration.ofSeconds(1));
            fixture.wallClockAt(Duration.ofMinutes(2));

            assertThat(fixture.deletes()).isEmpty();
            assertThat(outcomes(fixture)).containsExactly(ExpiryOutcome.DRY_RUN);
            assertThat(fixture.metric(TtlMetrics.DRY_RUN)).isEqualTo(1);
            assertThat(position(fixture, ID)).isNull();
        }
    }

    @Test
    void shouldIgnoreAResyncOlderThanTheLatestChangeApplied() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            BsonTimestamp readBeforeRenewal = events.nextClusterTime();
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(Duration.ofSeconds(60))));

            input.pipeInput(
                    ChangeEvents.key(ID), events.resync(ID, expiringAt(Duration.ofSeconds(5)), readBeforeRenewal));

            assertThat(position(fixture, ID).getDueAt()).isEqualTo(START.plusSeconds(60));
            assertThat(fixture.metric(TtlMetrics.RESYNC_STALE)).isEqualTo(1);
            input.pipeInput(
                    ChangeEvents.key(ID),
                    events.resync(ID, expiringAt(Duration.ofSeconds(5)), events.nextClusterTime()));
            assertThat(position(fixture, ID).getDueAt())
                    .as("a newer resync applies")
                    .isEqualTo(START.plusSeconds(5));
        }
    }

    @Test
    void shouldScheduleADocumentOnlyAResyncReported() {
        try (TopologyFixture fixture = fixture()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            events.resync(ID, expiringAt(Duration.ofSeconds(-30)), events.nextClusterTime()));

            fixture.wallClockAt(Duration.ofMillis(100));
            assertThat(fixture.deletes()).as("already passed: due at once").hasSize(1);
        }
    }

    @Test
    void shouldNeverLetAResyncMoveALastModifiedDeadlineEarlier() {
        try (TopologyFixture fixture = new TopologyFixture(TopologyFixture.eventsSettings(
                "ttl.rule.events.expire.after.seconds", "60", "ttl.rule.events.modified.field", "updatedAt"))) {
            ChangeEvents events = new ChangeEvents("app.events", START.plusSeconds(100));
            fixture.wallClockAt(Duration.ofSeconds(100));
            TestInputTopic<String, String> input = fixture.input("app.events", START.plusSeconds(100));
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, new BsonDocument()));

            // A resync whose document says it was last modified long before the insert's change.
            BsonDocument older = new BsonDocument("updatedAt", new BsonDateTime(START.toEpochMilli()));
            input.pipeInput(ChangeEvents.key(ID), events.resync(ID, older, events.nextClusterTime()));

            assertThat(fixture.position(Namespace.parse("app.events"), ID).getDueAt())
                    .isEqualTo(START.plusSeconds(160));
        }
    }

    // --- Rules that changed while documents were scheduled (a restart with another configuration) ---

    /** The rules before the restart: "sessions" on expireAt, 10 s after its date, and "carts" on app.carts. */
    private static TtlStreamsConfig before() {
        return TestConfigs.config(
                "bootstrap.servers", "unused:9092",
                "ttl.rules", "sessions,carts",
                "ttl.rule.sessions.expire.after.seconds", "10",
                "ttl.rule.carts.namespace", "app.carts",
                "ttl.rule.carts.field", "expireAt");
    }

    /**
     * Puts into the fixture's stores what a task running {@link #before()} left: one entry per id, due 10 s after
     * START + {@code dateOffset}, and the rule versions it was reconciled with.
     */
    private static void scheduledBefore(TopologyFixture fixture, Namespace namespace, Duration dateOffset, int... ids) {
        TtlStreamsConfig before = before();
        ExpirySchedule schedule =
                new ExpirySchedule(fixture.scheduleStore(), fixture.indexStore(), fixture.taskStore());
        for (int id : ids) {
            BsonDocument key = new BsonDocument("_id", new BsonInt64(id));
            BsonDocument document =
                    key.clone().append("expireAt", expiringAt(dateOffset).get("expireAt"));
            ExpiryDecision decision = before.rules().evaluate(namespace, document, START);
            TtlRule rule = before.rules().rule(decision.rule()).orElseThrow();
            schedule.schedule(
                    schedule.namespaces().ref(namespace, key),
                    null,
                    EntryState.SCHEDULED,
                    decision.deadline().toEpochMilli(),
                    ScheduleEntries.of(decision, rule),
                    null);
        }
        KeyValueStore<String, RuleVersion> versions = fixture.driver.getKeyValueStore(ScheduleStores.RULE_VERSIONS);
        for (TtlRule rule : before.rules().rules()) {
            versions.put(rule.name(), new RuleVersion(rule.shape(), rule.expireAfterSeconds()));
        }
    }

    private static TopologyFixture after(String... settings) {
        return new TopologyFixture(
                TopologyFixture.with(TopologyFixture.sessionsSettings("ttl.audit.topic", "ttl.audit"), settings));
    }

    @Test
    void shouldCancelEveryEntryOfARemovedRuleAndNeverEmitIt() {
        try (TopologyFixture fixture = after("ttl.rule.sessions.expire.after.seconds", "10")) {
            Namespace carts = Namespace.parse("app.carts");
            scheduledBefore(fixture, carts, Duration.ofSeconds(5), 1, 2, 3);

            fixture.wallClockAt(Duration.ofMillis(100));
            assertThat(fixture.scheduleStore().approximateNumEntries())
                    .as("walked and cancelled")
                    .isZero();
            fixture.wallClockAt(Duration.ofMinutes(1));

            assertThat(fixture.deletes()).isEmpty();
            assertThat(fixture.metric(TtlMetrics.RULE_REMOVED)).isEqualTo(3);
            assertThat(outcomes(fixture))
                    .containsOnly(ExpiryOutcome.RULE_REMOVED)
                    .hasSize(3);
            assertThat(fixture.driver
                            .<String, RuleVersion>getKeyValueStore(ScheduleStores.RULE_VERSIONS)
                            .get("carts"))
                    .as("the walk recorded the current rules")
                    .isNull();
        }
    }

    @Test
    void shouldMoveDeadlinesWhenOnlyTheOffsetChangedCountingFromTheStoredBase() {
        // Dates at START+60s: due at START+70s under the old 10 s offset.
        try (TopologyFixture shortened = after("ttl.rule.sessions.expire.after.seconds", "0")) {
            scheduledBefore(shortened, SESSIONS, Duration.ofSeconds(60), 1);
            shortened.wallClockAt(Duration.ofMillis(100));
            assertThat(shortened.deletes()).isEmpty();
            shortened.wallClockAt(Duration.ofSeconds(60));
            assertThat(shortened.deletes()).as("due at the date itself now").hasSize(1);
            assertThat(shortened.metric(TtlMetrics.RESCHEDULED)).isEqualTo(1);
        }
        try (TopologyFixture lengthened = after("ttl.rule.sessions.expire.after.seconds", "30")) {
            scheduledBefore(lengthened, SESSIONS, Duration.ofSeconds(60), 1);
            lengthened.wallClockAt(Duration.ofSeconds(70));
            assertThat(lengthened.deletes()).as("not at the old deadline").isEmpty();
            lengthened.wallClockAt(Duration.ofSeconds(90));
            assertThat(lengthened.deletes()).hasSize(1);
        }
        try (TopologyFixture passed = after("ttl.rule.sessions.expire.after.seconds", "0")) {
            scheduledBefore(passed, SESSIONS, Duration.ofSeconds(-5), 1);
            passed.wallClockAt(Duration.ofMillis(100));
            assertThat(passed.deletes())
                    .as("the shortened offset made it due at once")
                    .hasSize(1);
        }
    }

    @Test
    void shouldHoldEntriesWhoseRuleChangedShapeUntilTheirDocumentIsEvaluatedAgain() {
        try (TopologyFixture fixture = after(
                "ttl.rule.sessions.expire.after.seconds", "10", "ttl.rule.sessions.partial.filter", "{\"x\": 1}")) {
            scheduledBefore(fixture, SESSIONS, Duration.ofSeconds(1), 1, 2);
            fixture.wallClockAt(Duration.ofMinutes(5));

            assertThat(fixture.deletes()).as("held, not emitted").isEmpty();
            assertThat(fixture.metric(TtlMetrics.HELD)).isEqualTo(2);
            assertThat(fixture.position(SESSIONS, new BsonInt64(1)).getTimeline())
                    .isEqualTo(Timeline.HELD.ordinal());

            // A resync re-evaluates document 1 under the new rule: it matches the filter and is long due.
            ChangeEvents events = new ChangeEvents("app.sessions", START.plusSeconds(300));
            BsonDocument matching = expiringAt(Duration.ofSeconds(1)).append("x", new BsonInt32(1));
            fixture.input("app.sessions", START.plusSeconds(300))
                    .pipeInput(
                            ChangeEvents.key(new BsonInt64(1)),
                            events.resync(new BsonInt64(1), matching, events.nextClusterTime()));
            fixture.wallClockAt(Duration.ofMinutes(6));

            List<TestRecord<String, String>> commands = fixture.deletes();
            assertThat(commands).hasSize(1);
            assertThat(BsonDocument.parse(commands.get(0).key())).isEqualTo(new BsonDocument("_id", new BsonInt64(1)));
            assertThat(BsonDocument.parse(commands.get(0).value())
                            .getDocument("_id")
                            .getArray("$and"))
                    .as("the new rule's filter")
                    .containsExactly(BsonDocument.parse("{\"x\": 1}"));
        }
    }
}

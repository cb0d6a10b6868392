package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.processor.DeadLetters;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.schema.ExpiryEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.UuidRepresentation;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TtlTopologyTest {

    private static final BsonString ID = new BsonString("d1");

    private static BsonDocument expiringAt(Duration offset) {
        return new BsonDocument("expireAt", date(offset));
    }

    private static BsonDateTime date(Duration offset) {
        return new BsonDateTime(START.plus(offset).toEpochMilli());
    }

    /** A value pinned as a literal, as every value taken from a document appears in a delete filter. */
    private static BsonDocument eq(BsonValue value) {
        return new BsonDocument("$eq", value);
    }

    private static BsonDocument filterOf(TestRecord<String, String> command) {
        return BsonDocument.parse(command.value()).getDocument("_id");
    }

    @Test
    void shouldNeitherScheduleNorDeleteButCountEpochSecondsWhenTheRuleReadsMillis() {
        try (TopologyFixture fixture = TopologyFixture.sessions("ttl.rule.sessions.field.format", "epoch-millis")) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            // 1767225600 is 2026-01-01 in seconds, but 1970-01-21 as milliseconds: due at once, and meant by nobody.
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(ID),
                            events.insert(ID, new BsonDocument("expireAt", new BsonInt64(1_767_225_600L))));

            fixture.wallClockAt(Duration.ofMinutes(1));

            assertThat(fixture.deletes()).isEmpty();
            assertThat(fixture.metric(TtlMetrics.IMPLAUSIBLE)).isEqualTo(1);
            assertThat(fixture.documentEntries()).isZero();
        }
    }

    @Test
    void shouldDeleteWhenDeadlinePassesAndNotBefore() {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(Duration.ofSeconds(10))));
            assertThat(fixture.metric(TtlMetrics.SCHEDULED)).isEqualTo(1);

            fixture.wallClockAt(Duration.ofMillis(9_900));
            assertThat(fixture.deletes()).isEmpty();

            fixture.wallClockAt(Duration.ofMillis(10_000));
            List<TestRecord<String, String>> commands = fixture.deletes();
            assertThat(commands).hasSize(1);
            TestRecord<String, String> command = commands.get(0);
            assertThat(BsonDocument.parse(command.key())).isEqualTo(new BsonDocument("_id", ID));
            BsonDocument value = BsonDocument.parse(command.value());
            assertThat(value.getDocument("_id"))
                    .isEqualTo(new BsonDocument("_id", ID).append("expireAt", eq(date(Duration.ofSeconds(10)))));
            assertThat(value.getDocument("ns"))
                    .isEqualTo(BsonDocument.parse("{\"db\": \"app\", \"coll\": \"sessions\"}"));
            assertThat(value.getString("rule").getValue()).isEqualTo("sessions");
            assertThat(command.timestamp()).isEqualTo(START.plusSeconds(10).toEpochMilli());
            assertThat(fixture.scheduled("app.sessions", ID))
                    .as("awaiting confirmation")
                    .hasValueSatisfying(entry -> {
                        assertThat(entry.state()).isEqualTo("awaiting-confirmation");
                        assertThat(entry.attempts()).isEqualTo(1);
                    });

            fixture.wallClockAt(Duration.ofSeconds(20));
            assertThat(fixture.deletes()).as("each deadline fires once").isEmpty();
        }
    }

    @Test
    void shouldExpireDocumentWhoseDeadlineIsBehindWhereTheLastPunctuationStopped() {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(Duration.ofSeconds(10))));
            fixture.wallClockAt(Duration.ofSeconds(10));
            assertThat(fixture.deletes()).hasSize(1);

            // Already expired when it arrives: behind the scan position the last punctuation left.
            BsonString late = new BsonString("late");
            input.pipeInput(ChangeEvents.key(late), events.insert(late, expiringAt(Duration.ofSeconds(1))));
            fixture.wallClockAt(Duration.ofMillis(10_100));
            assertThat(fixture.deletes())
                    .extracting(c -> BsonDocument.parse(c.key()).get("_id"))
                    .containsExactly(late);
        }
    }

    @Test
    void shouldRescheduleWhenRenewedBeforeDeadline() {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(Duration.ofSeconds(10))));
            input.pipeInput(ChangeEvents.key(ID), events.update(ID, expiringAt(Duration.ofSeconds(30))));

            fixture.wallClockAt(Duration.ofSeconds(29));
            assertThat(fixture.deletes()).as("the old deadline is gone").isEmpty();

            fixture.wallClockAt(Duration.ofSeconds(30));
            List<TestRecord<String, String>> commands = fixture.deletes();
            assertThat(commands).hasSize(1);
            assertThat(filterOf(commands.get(0)).get("expireAt")).isEqualTo(eq(date(Duration.ofSeconds(30))));
        }
    }

    @Test
    void shouldRescheduleEarlierWhenShortened() {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(Duration.ofSeconds(30))));
            input.pipeInput(ChangeEvents.key(ID), events.replace(ID, expiringAt(Duration.ofSeconds(5))));

            fixture.wallClockAt(Duration.ofSeconds(5));
            assertThat(fixture.deletes()).hasSize(1);
            fixture.wallClockAt(Duration.ofSeconds(30));
            assertThat(fixture.deletes()).isEmpty();
        }
    }

    static Stream<Arguments> cancellations() {
        return Stream.of(
                Arguments.of("delete", (CancelEvent) (events) -> events.delete(ID)),
                Arguments.of("ttl field removed", (CancelEvent)
                        (events) -> events.update(ID, new BsonDocument("v", new BsonInt32(2)))),
                Arguments.of("ttl field no longer a date", (CancelEvent)
                        (events) -> events.update(ID, new BsonDocument("expireAt", new BsonString("tomorrow")))),
                Arguments.of("document gone before updateLookup", (CancelEvent)
                        (events) -> events.updateOfVanishedDocument(ID)));
    }

    interface CancelEvent {
        String event(ChangeEvents events);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cancellations")
    void shouldCancelWhenDocumentNoLongerExpires(String what, CancelEvent cancel) {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(Duration.ofSeconds(10))));
            input.pipeInput(ChangeEvents.key(ID), cancel.event(events));

            fixture.wallClockAt(Duration.ofMinutes(5));
            assertThat(fixture.deletes()).isEmpty();
            assertThat(fixture.scheduleStore().approximateNumEntries()).isZero();
            assertThat(fixture.metric(TtlMetrics.CANCELLED)).isEqualTo(1);
        }
    }

    @Test
    void shouldExpireArrayOnItsEarliestDateAndFilterOnTheWholeArray() {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            BsonArray dates = new BsonArray(
                    List.of(date(Duration.ofSeconds(50)), new BsonString("x"), date(Duration.ofSeconds(20))));
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), events.insert(ID, new BsonDocument("expireAt", dates)));

            fixture.wallClockAt(Duration.ofSeconds(20));
            List<TestRecord<String, String>> commands = fixture.deletes();
            assertThat(commands).hasSize(1);
            assertThat(filterOf(commands.get(0)).get("expireAt")).isEqualTo(eq(dates));
        }
    }

    @Test
    void shouldFilterOnNestedFieldForDottedPath() {
        try (TopologyFixture fixture = TopologyFixture.sessions(
                "ttl.rule.sessions.field", "session.expiresAt", "ttl.rule.sessions.expire.after.seconds", "5")) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            BsonDocument doc = new BsonDocument(
                    "session",
                    new BsonDocument("user", new BsonString("u")).append("expiresAt", date(Duration.ofSeconds(10))));
            fixture.input("app.sessions").pipeInput(ChangeEvents.key(ID), events.insert(ID, doc));

            fixture.wallClockAt(Duration.ofMillis(14_999));
            assertThat(fixture.deletes()).isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(15));
            BsonDocument filter = filterOf(fixture.deletes().get(0));
            assertThat(filter)
                    .isEqualTo(
                            new BsonDocument("_id", ID).append("session.expiresAt", eq(date(Duration.ofSeconds(10)))));
        }
    }

    @Test
    void shouldAddPartialFilterToConditionAndUnscheduleWhenItStopsMatching() {
        try (TopologyFixture fixture =
                TopologyFixture.sessions("ttl.rule.sessions.partial.filter", "{\"status\": \"closed\"}")) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            BsonString open = new BsonString("open-doc");
            BsonString closed = new BsonString("closed-doc");
            input.pipeInput(
                    ChangeEvents.key(open),
                    events.insert(open, expiringAt(Duration.ofSeconds(10)).append("status", new BsonString("open"))));
            input.pipeInput(
                    ChangeEvents.key(closed),
                    events.insert(
                            closed, expiringAt(Duration.ofSeconds(10)).append("status", new BsonString("closed"))));
            BsonString reopened = new BsonString("reopened-doc");
            input.pipeInput(
                    ChangeEvents.key(reopened),
                    events.insert(
                            reopened, expiringAt(Duration.ofSeconds(10)).append("status", new BsonString("closed"))));
            input.pipeInput(
                    ChangeEvents.key(reopened),
                    events.update(
                            reopened, expiringAt(Duration.ofSeconds(10)).append("status", new BsonString("open"))));

            fixture.wallClockAt(Duration.ofSeconds(10));
            List<TestRecord<String, String>> commands = fixture.deletes();
            assertThat(commands)
                    .extracting(c -> BsonDocument.parse(c.key()).get("_id"))
                    .containsExactly(closed);
            assertThat(filterOf(commands.get(0)).getArray("$and"))
                    .containsExactly(BsonDocument.parse("{\"status\": \"closed\"}"));
        }
    }

    @Test
    void shouldLetEarliestRuleWinAndRecordIt() {
        try (TopologyFixture fixture = new TopologyFixture(Map.of(
                "ttl.rules", "hard,idle",
                "ttl.rule.hard.namespace", "app.sessions",
                "ttl.rule.hard.field", "expireAt",
                "ttl.rule.idle.namespace", "app.*",
                "ttl.rule.idle.mode", "last-modified",
                "ttl.rule.idle.expire.after.seconds", "60",
                "ttl.source.topics", "app.sessions"))) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            BsonString soon = new BsonString("soon");
            BsonString late = new BsonString("late");
            input.pipeInput(ChangeEvents.key(soon), events.insert(soon, expiringAt(Duration.ofSeconds(10))));
            input.pipeInput(ChangeEvents.key(late), events.insert(late, expiringAt(Duration.ofHours(1))));

            fixture.wallClockAt(Duration.ofSeconds(60));
            List<TestRecord<String, String>> commands = fixture.deletes();
            assertThat(commands).hasSize(2);
            assertThat(commands)
                    .extracting(
                            c -> BsonDocument.parse(c.value()).getString("rule").getValue())
                    .containsExactly("hard", "idle");
            assertThat(filterOf(commands.get(1))).isEqualTo(new BsonDocument("_id", late));
        }
    }

    static Stream<Arguments> documentTtls() {
        return Stream.of(
                Arguments.of(new BsonDouble(20.0), Duration.ofSeconds(20)),
                Arguments.of(new BsonInt32(20), Duration.ofSeconds(20)),
                Arguments.of(new BsonInt64(20), Duration.ofSeconds(20)),
                Arguments.of(new BsonDouble(20.5), Duration.ofSeconds(10)),
                Arguments.of(new BsonInt64(2147483649L), Duration.ofSeconds(10)),
                Arguments.of(new BsonInt32(-1), null));
    }

    @ParameterizedTest(name = "ttl {0} -> {1}")
    @MethodSource("documentTtls")
    void shouldApplyPerDocumentTtlOverrideLikeCosmosDb(BsonValue ttl, Duration expected) {
        try (TopologyFixture fixture = new TopologyFixture(Map.of(
                "ttl.rules", "events",
                "ttl.rule.events.namespace", "app.events",
                "ttl.rule.events.mode", "last-modified",
                "ttl.rule.events.expire.after.seconds", "10",
                "ttl.rule.events.document.ttl.field", "ttl"))) {
            ChangeEvents events = new ChangeEvents("app.events", START);
            fixture.input("app.events")
                    .pipeInput(ChangeEvents.key(ID), events.insert(ID, new BsonDocument("ttl", ttl)));

            if (expected == null) {
                fixture.wallClockAt(Duration.ofDays(365));
                assertThat(fixture.deletes()).isEmpty();
                return;
            }
            fixture.wallClockAt(expected.minusMillis(1));
            assertThat(fixture.deletes()).isEmpty();
            fixture.wallClockAt(expected);
            List<TestRecord<String, String>> commands = fixture.deletes();
            assertThat(commands).hasSize(1);
            assertThat(filterOf(commands.get(0))).isEqualTo(new BsonDocument("_id", ID).append("ttl", eq(ttl)));
        }
    }

    @Test
    void shouldRenewLastModifiedDeadlineOnEveryChange() {
        try (TopologyFixture fixture = new TopologyFixture(Map.of(
                "ttl.rules", "events",
                "ttl.rule.events.namespace", "app.events",
                "ttl.rule.events.mode", "last-modified",
                "ttl.rule.events.expire.after.seconds", "10"))) {
            ChangeEvents events = new ChangeEvents("app.events", START);
            TestInputTopic<String, String> input = fixture.input("app.events");
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, new BsonDocument("v", new BsonInt32(1))));
            input.pipeInput(
                    ChangeEvents.key(ID),
                    events.at(START.plusSeconds(8)).update(ID, new BsonDocument("v", new BsonInt32(2))));

            fixture.wallClockAt(Duration.ofSeconds(17));
            assertThat(fixture.deletes()).isEmpty();
            fixture.wallClockAt(Duration.ofSeconds(18));
            assertThat(fixture.deletes()).hasSize(1);
        }
    }

    static Stream<BsonValue> idTypes() {
        return Stream.of(
                new BsonObjectId(new ObjectId("6566f1a2b3c4d5e6f7a8b9c0")),
                new BsonString("plain"),
                new BsonInt32(42),
                new BsonInt64(1L << 40),
                new BsonBinary(UUID.fromString("0b7c3b0e-2f0c-4b5c-9a53-0d1f2e3c4b5a"), UuidRepresentation.STANDARD),
                new BsonDocument("tenant", new BsonString("t1")).append("n", new BsonInt32(7)));
    }

    @ParameterizedTest
    @MethodSource("idTypes")
    void shouldRoundTripEveryIdTypeIntoTheDeleteCommand(BsonValue id) {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            fixture.input("app.sessions").pipeInput(ChangeEvents.key(id), events.insert(id, expiringAt(Duration.ZERO)));

            fixture.wallClockAt(Duration.ofSeconds(1));
            TestRecord<String, String> command = fixture.deletes().get(0);
            assertThat(BsonDocument.parse(command.key()).get("_id")).isEqualTo(id);
            assertThat(filterOf(command).get("_id")).isEqualTo(id);
        }
    }

    @Test
    void shouldCancelWholeNamespaceOnDropButKeepDocumentsOfRecreatedCollection() {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            for (int i = 0; i < 5; i++) {
                BsonString id = new BsonString("old-" + i);
                input.pipeInput(ChangeEvents.key(id), events.insert(id, expiringAt(Duration.ofSeconds(10))));
            }
            String staleEvent = events.insert(new BsonString("stale"), expiringAt(Duration.ofSeconds(10)));
            input.pipeInput(null, events.drop());
            BsonString fresh = new BsonString("fresh");
            input.pipeInput(ChangeEvents.key(fresh), events.insert(fresh, expiringAt(Duration.ofSeconds(10))));
            // An event older than the drop, arriving late (from another partition): not scheduled.
            input.pipeInput(ChangeEvents.key(new BsonString("stale")), staleEvent);

            fixture.wallClockAt(Duration.ofSeconds(10));
            assertThat(fixture.deletes())
                    .extracting(c -> BsonDocument.parse(c.key()).get("_id"))
                    .containsExactly(fresh);
            assertThat(fixture.metric(TtlMetrics.STALE)).isEqualTo(1);
            // Each of the five documents the drop took out counts, not the drop.
            assertThat(fixture.metric(TtlMetrics.CANCELLED)).isEqualTo(5);
        }
    }

    @Test
    void shouldOrderClusterTimesAcross2038AsUnsigned() {
        // BSON timestamps count seconds as an unsigned 32-bit number: from 2038-01-19 their 64-bit value is
        // negative as a signed long, and must still order after every earlier one.
        Instant before2038 = Instant.parse("2038-01-18T00:00:00Z");
        Instant after2038 = Instant.parse("2038-01-20T00:00:00Z");
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            // Both published just after the drop, with the clock there: times far from the records' are implausible.
            Instant published = after2038.plusSeconds(1);
            fixture.wallClockAt(Duration.between(START, published));
            TestInputTopic<String, String> input = fixture.input("app.sessions", published);
            BsonString late = new BsonString("late");
            String olderThanTheDrop = new ChangeEvents("app.sessions", before2038)
                    .insert(late, new BsonDocument("expireAt", new BsonDateTime(START.toEpochMilli())));
            input.pipeInput(null, new ChangeEvents("app.sessions", after2038).drop());

            input.pipeInput(ChangeEvents.key(late), olderThanTheDrop);

            assertThat(fixture.metric(TtlMetrics.STALE)).isEqualTo(1);
            fixture.wallClockAt(Duration.between(START, published.plusSeconds(1)));
            assertThat(fixture.deletes()).isEmpty();
            assertThat(fixture.dlq.readRecordsToList()).isEmpty();
        }
    }

    @Test
    void shouldCancelEveryCollectionOfDroppedDatabaseOnly() {
        try (TopologyFixture fixture = new TopologyFixture(Map.of(
                "ttl.rules", "app,apple",
                "ttl.rule.app.namespace", "app.*",
                "ttl.rule.app.field", "expireAt",
                "ttl.rule.apple.namespace", "apple.x",
                "ttl.rule.apple.field", "expireAt",
                // "app": the database's own topic, where the source connector publishes a dropDatabase.
                "ttl.source.topics", "app.a,app.b,apple.x,app"))) {
            ChangeEvents a = new ChangeEvents("app.a", START);
            ChangeEvents b = new ChangeEvents("app.b", START);
            ChangeEvents apple = new ChangeEvents("apple.x", START);
            fixture.input("app.a").pipeInput(ChangeEvents.key(ID), a.insert(ID, expiringAt(Duration.ofSeconds(10))));
            fixture.input("app.b").pipeInput(ChangeEvents.key(ID), b.insert(ID, expiringAt(Duration.ofSeconds(10))));
            fixture.input("apple.x")
                    .pipeInput(ChangeEvents.key(ID), apple.insert(ID, expiringAt(Duration.ofSeconds(10))));
            fixture.input("app").pipeInput(null, a.at(START.plusSeconds(1)).dropDatabase());

            fixture.wallClockAt(Duration.ofSeconds(10));
            assertThat(fixture.deletes())
                    .extracting(c -> BsonDocument.parse(c.value())
                            .getDocument("ns")
                            .getString("db")
                            .getValue())
                    .containsExactly("apple");
        }
    }

    @Test
    void shouldTakeNamespaceFromTopicWhenEventHasNoNs() {
        try (TopologyFixture fixture = TopologyFixture.sessions("ttl.source.topic.prefix", "mongo")) {
            BsonDocument event = BsonDocument.parse(
                    new ChangeEvents("app.sessions", START).insert(ID, expiringAt(Duration.ofSeconds(1))));
            event.remove("ns");
            fixture.input("mongo.app.sessions").pipeInput(ChangeEvents.key(ID), event.toJson());

            fixture.wallClockAt(Duration.ofSeconds(1));
            assertThat(fixture.deletes()).hasSize(1);
        }
    }

    @Test
    void shouldRouteMalformedEventsToDeadLetterTopicAndKeepGoing() {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            input.pipeInput("k1", "{not json");
            input.pipeInput("k2", "{\"operationType\": \"insert\", \"fullDocument\": {\"expireAt\": 1}}");
            input.pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(Duration.ofSeconds(1))));

            List<TestRecord<String, String>> dead = fixture.dlq.readRecordsToList();
            assertThat(dead)
                    .extracting(TestRecord::value)
                    .containsExactly(
                            "{not json", "{\"operationType\": \"insert\", \"fullDocument\": {\"expireAt\": 1}}");
            Headers headers = dead.get(1).headers();
            assertThat(header(headers, DeadLetters.SOURCE_TOPIC_HEADER)).isEqualTo("app.sessions");
            assertThat(header(headers, DeadLetters.SOURCE_PARTITION_HEADER)).isEqualTo("0");
            assertThat(header(headers, DeadLetters.SOURCE_OFFSET_HEADER)).isEqualTo("1");
            assertThat(header(headers, DeadLetters.ERROR_HEADER)).containsIgnoringCase("id");
            assertThat(dead.get(0).key()).isEqualTo("k1");

            fixture.wallClockAt(Duration.ofSeconds(1));
            assertThat(fixture.deletes()).as("processing continued").hasSize(1);
            assertThat(fixture.metric(TtlMetrics.DEAD_LETTERED)).isEqualTo(2.0);
        }
    }

    @Test
    void shouldDrainBacklogOverSeveralBoundedPunctuations() {
        try (TopologyFixture fixture = TopologyFixture.sessions("ttl.punctuate.max.entries", "2000")) {
            int total = 20_000;
            // Filled straight into the stores: piping 100k events would test parsing, not punctuation.
            for (int i = 0; i < total; i++) {
                fixture.scheduleDirectly("app.sessions", new BsonInt32(i), START.plusMillis(i % 1000));
            }
            int punctuations = 0;
            int drained = 0;
            long previousDeadline = Long.MIN_VALUE;
            while (drained < total) {
                punctuations++;
                fixture.wallClockAt(Duration.ofSeconds(1).plusMillis(100L * punctuations));
                List<TestRecord<String, String>> batch = fixture.deletes();
                assertThat(batch).hasSizeLessThanOrEqualTo(2_000).isNotEmpty();
                for (TestRecord<String, String> command : batch) {
                    long deadline = BsonDocument.parse(command.value())
                            .getDateTime("deadline")
                            .getValue();
                    assertThat(deadline).as("oldest deadlines first").isGreaterThanOrEqualTo(previousDeadline);
                    previousDeadline = deadline;
                }
                drained += batch.size();
            }
            assertThat(punctuations).isEqualTo(10);
            assertThat(drained).isEqualTo(total);
        }
    }

    @Test
    void shouldStopPunctuationWhenTimeBudgetIsSpent() {
        try (TopologyFixture fixture = TopologyFixture.sessions("ttl.punctuate.max.duration.ms", "50")) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            for (int i = 0; i < 1_000; i++) {
                BsonInt32 id = new BsonInt32(i);
                input.pipeInput(ChangeEvents.key(id), events.insert(id, expiringAt(Duration.ZERO)));
            }
            // Each clock read advances 30 ms: the clock is read at the start and every 64 entries,
            // so the 50 ms budget is spent after the second check, at 128 entries.
            fixture.nanosPerClockRead.set(Duration.ofMillis(30).toNanos());
            fixture.wallClockAt(Duration.ofMillis(100));
            int first = fixture.deletes().size();
            assertThat(first).isEqualTo(128);
            fixture.nanosPerClockRead.set(0);
            fixture.wallClockAt(Duration.ofMillis(200));
            assertThat(first + fixture.deletes().size())
                    .as("the rest stayed due and went next")
                    .isEqualTo(1_000);
        }
    }

    @Test
    void shouldThrottleDeletesPerSecondAndKeepTheRestDue() {
        try (TopologyFixture fixture = TopologyFixture.sessions("ttl.max.deletes.per.second", "5")) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            for (int i = 0; i < 12; i++) {
                BsonInt32 id = new BsonInt32(i);
                input.pipeInput(ChangeEvents.key(id), events.insert(id, expiringAt(Duration.ZERO)));
            }
            fixture.wallClockAt(Duration.ofMillis(100));
            assertThat(fixture.deletes())
                    .as("the window starts empty: five at once")
                    .hasSize(5);
            fixture.wallClockAt(Duration.ofMillis(1_000));
            assertThat(fixture.deletes())
                    .as("nothing more within the second of the first five")
                    .isEmpty();
            fixture.wallClockAt(Duration.ofMillis(1_100));
            assertThat(fixture.deletes()).as("a second after the first five").hasSize(5);
            fixture.wallClockAt(Duration.ofMillis(2_100));
            assertThat(fixture.deletes()).as("the rest stayed due").hasSize(2);
        }
    }

    @Test
    void shouldWriteAuditEventForEveryDeleteCommand() {
        try (TopologyFixture fixture = TopologyFixture.sessions("ttl.audit.topic", "ttl.audit")) {
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            fixture.input("app.sessions")
                    .pipeInput(ChangeEvents.key(ID), events.insert(ID, expiringAt(Duration.ofSeconds(2))));

            fixture.wallClockAt(Duration.ofMillis(2_050));
            List<ExpiryEvent> audit = fixture.audit().readValuesToList();
            assertThat(audit).hasSize(1);
            ExpiryEvent event = audit.get(0);
            assertThat(event.getNamespace()).isEqualTo("app.sessions");
            assertThat(event.getRule()).isEqualTo("sessions");
            assertThat(event.getDeadline()).isEqualTo(START.plusSeconds(2));
            assertThat(event.getEmittedAt()).isEqualTo(Instant.parse("2026-01-01T00:00:02.050Z"));
            assertThat(BsonDocument.parse(event.getDocumentKey())).isEqualTo(new BsonDocument("_id", ID));
        }
    }

    private static String header(Headers headers, String name) {
        return new String(headers.lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}

package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.UnscheduledNote;
import io.ttlstreams.state.ScheduleQueries;
import io.ttlstreams.state.UnscheduledNotes;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.streams.TestInputTopic;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * "Why is this document not scheduled?": the scheduler remembers, per document and in a bounded store, the reason its
 * latest change event gave it no deadline, as {@code explain} gives it, and forgets it once the document is
 * scheduled or gone.
 */
class UnscheduledNotesTest {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final BsonDateTime LATER =
            new BsonDateTime(START.plusSeconds(3600).toEpochMilli());

    private static TopologyFixture fixture() {
        return TopologyFixture.sessions(
                "ttl.rule.sessions.partial.filter", "{\"kind\": \"temp\"}",
                "ttl.rule.sessions.field.format", "epoch-seconds");
    }

    private static Optional<UnscheduledNote> note(TopologyFixture fixture, String id) {
        return fixture.ref(SESSIONS, new BsonString(id))
                .flatMap(ref -> UnscheduledNotes.find(fixture.notesStore(), ref));
    }

    private static Optional<String> reason(TopologyFixture fixture, String id) {
        return note(fixture, id).map(UnscheduledNote::getReason);
    }

    private static void insert(TestInputTopic<String, String> input, ChangeEvents events, String id, BsonDocument doc) {
        input.pipeInput(ChangeEvents.key(new BsonString(id)), events.insert(new BsonString(id), doc));
    }

    /** A document of the rule's partial filter, {@code kind: "temp"}, with {@code expireAt: value}. */
    private static BsonDocument expireAt(BsonValue value) {
        return temp().append("expireAt", value);
    }

    /** A document of the rule's partial filter, without expireAt. */
    private static BsonDocument temp() {
        return new BsonDocument("kind", new BsonString("temp"));
    }

    @Test
    void shouldGiveTheRulesReasonForEachUnscheduledDocumentWhenItsEventArrives() {
        try (TopologyFixture fixture = fixture()) {
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            insert(input, events, "string-date", expireAt(new BsonString("2026-01-02")));
            insert(input, events, "missing", temp().append("other", new BsonInt32(1)));
            insert(
                    input,
                    events,
                    "filtered",
                    new BsonDocument("expireAt", LATER).append("kind", new BsonString("keep")));
            insert(input, events, "implausible", expireAt(new BsonInt32(5)));
            insert(input, events, "scheduled", expireAt(LATER));
            input.pipeInput(
                    ChangeEvents.key(new BsonString("vanished")),
                    events.updateOfVanishedDocument(new BsonString("vanished")));

            assertThat(reason(fixture, "string-date"))
                    .hasValueSatisfying(
                            reason -> assertThat(reason).contains("field expireAt is a string, not a date"));
            assertThat(reason(fixture, "missing"))
                    .hasValueSatisfying(reason -> assertThat(reason).contains("field expireAt is missing"));
            assertThat(reason(fixture, "filtered"))
                    .hasValueSatisfying(reason ->
                            assertThat(reason).contains("partial filter").contains("does not match"));
            assertThat(reason(fixture, "implausible")).isPresent();
            assertThat(reason(fixture, "vanished"))
                    .hasValueSatisfying(reason -> assertThat(reason).contains("carries no full document"));
            assertThat(note(fixture, "missing").orElseThrow().getOperation()).isEqualTo("insert");
            assertThat(note(fixture, "missing").orElseThrow().getSince()).isEqualTo(START);
            assertThat(reason(fixture, "scheduled")).isEmpty();
            assertThat(reason(fixture, "never-inserted")).isEmpty();
            // explain gives the same sentence: the very evaluation, on the document as the processor saw it.
            assertThat(reason(fixture, "missing"))
                    .hasValue(fixture.config
                            .rules()
                            .evaluate(
                                    SESSIONS,
                                    new BsonDocument("_id", new BsonString("missing"))
                                            .append("kind", new BsonString("temp"))
                                            .append("other", new BsonInt32(1)),
                                    START)
                            .reason());
        }
    }

    @Test
    void shouldForgetTheReasonWhenTheDocumentIsScheduledOrDeleted() {
        try (TopologyFixture fixture = fixture()) {
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            insert(input, events, "fixed", expireAt(new BsonString("2026-01-02")));
            insert(input, events, "gone", temp());
            assertThat(reason(fixture, "fixed")).isPresent();
            assertThat(reason(fixture, "gone")).isPresent();

            input.pipeInput(
                    ChangeEvents.key(new BsonString("fixed")), events.update(new BsonString("fixed"), expireAt(LATER)));
            input.pipeInput(ChangeEvents.key(new BsonString("gone")), events.delete(new BsonString("gone")));

            assertThat(reason(fixture, "fixed")).isEmpty();
            assertThat(ScheduleQueries.find(
                            fixture.indexStore(),
                            fixture.scheduleStore(),
                            fixture.taskStore(),
                            SESSIONS,
                            new BsonDocument("_id", new BsonString("fixed")),
                            rule -> OptionalLong.empty()))
                    .isPresent();
            assertThat(reason(fixture, "gone")).isEmpty();
        }
    }

    @Test
    void shouldKeepAtMostTheSlotsWhenManyMoreDocumentsAreUnscheduled() {
        try (TopologyFixture fixture = fixture()) {
            TestInputTopic<String, String> input = fixture.input("app.sessions");
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            int documents = UnscheduledNotes.SLOTS * 2;
            for (int i = 0; i < documents; i++) {
                insert(input, events, "d" + i, temp());
            }

            long notes;
            try (var all = fixture.notesStore().all()) {
                notes = java.util.stream.StreamSupport.stream(
                                java.util.Spliterators.spliteratorUnknownSize(all, 0), false)
                        .count();
            }
            assertThat(notes).isGreaterThan(UnscheduledNotes.SLOTS / 2).isLessThanOrEqualTo(UnscheduledNotes.SLOTS);
            // The latest document's note is there, whichever it displaced.
            assertThat(reason(fixture, "d" + (documents - 1))).isPresent();
        }
    }

    @Test
    void shouldKeepTheReasonsWhenTheTaskRestartsFromItsChangelog() {
        TopologyFixture fixture = fixture();
        TestInputTopic<String, String> input = fixture.input("app.sessions");
        ChangeEvents events = new ChangeEvents("app.sessions", START);
        insert(input, events, "missing", temp());
        // A second event with the same reason writes nothing: the note says the same.
        input.pipeInput(ChangeEvents.key(new BsonString("missing")), events.update(new BsonString("missing"), temp()));

        try (TopologyFixture restarted = fixture.restarted()) {
            assertThat(reason(restarted, "missing"))
                    .hasValueSatisfying(reason -> assertThat(reason).contains("field expireAt is missing"));
            assertThat(note(restarted, "missing").orElseThrow().getOperation()).isEqualTo("insert");
        }
    }
}

package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.state.ScheduleKey.Timeline;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScheduleQueriesTest {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final Namespace EVENTS = Namespace.parse("app.events");

    @TempDir
    Path stateDir;

    private StoreHarness harness;
    private KeyValueStore<Bytes, ScheduleEntry> schedule;
    private KeyValueStore<Bytes, IndexEntry> index;
    private KeyValueStore<Bytes, TaskRecord> task;

    @BeforeEach
    void openStores() {
        harness = new StoreHarness(stateDir, ScheduleStores.schedule(), ScheduleStores.index(), ScheduleStores.task());
        schedule = harness.store(ScheduleStores.SCHEDULE);
        index = harness.store(ScheduleStores.INDEX);
        task = harness.store(ScheduleStores.TASK);
    }

    @AfterEach
    void closeStores() {
        harness.close();
    }

    private void schedule(Namespace namespace, int id, long deadline) {
        schedule(namespace, id, Timeline.DEADLINES, deadline);
    }

    private void schedule(Namespace namespace, int id, Timeline timeline, long deadline) {
        BsonDocument key = new BsonDocument("_id", new BsonInt32(id));
        ScheduleEntry entry = new ScheduleEntry(
                "r-" + namespace.collection(),
                1L,
                Instant.ofEpochMilli(deadline),
                0L,
                true,
                ByteBuffer.wrap(new byte[] {5, 0, 0, 0, 0}),
                timeline == Timeline.CONFIRMATIONS ? 1 : 0,
                null,
                null);
        ExpirySchedule expiry = new ExpirySchedule(schedule, index, task);
        expiry.put(expiry.namespaces().ref(namespace, key), null, timeline, deadline, entry, null);
    }

    @Test
    void shouldFindAScheduledDocumentAndNothingForOthers() {
        schedule(SESSIONS, 1, 5_000);

        assertThat(ScheduleQueries.find(
                        index,
                        schedule,
                        task,
                        SESSIONS,
                        new BsonDocument("_id", new BsonInt32(1)),
                        rule -> OptionalLong.empty()))
                .hasValueSatisfying(found -> {
                    assertThat(found.deadline()).isEqualTo(Instant.ofEpochMilli(5_000));
                    assertThat(found.rule()).isEqualTo("r-sessions");
                    assertThat(found.state()).isEqualTo("scheduled");
                });
        assertThat(ScheduleQueries.find(
                        index,
                        schedule,
                        task,
                        EVENTS,
                        new BsonDocument("_id", new BsonInt32(1)),
                        rule -> OptionalLong.empty()))
                .isEmpty();
        assertThat(ScheduleQueries.find(
                        index,
                        schedule,
                        task,
                        SESSIONS,
                        new BsonDocument("_id", new BsonString("1")),
                        rule -> OptionalLong.empty()))
                .isEmpty();
    }

    @Test
    void shouldCountUpcomingExpiriesPerBucketWithinTheRange() {
        schedule(SESSIONS, 1, 999); // before the range
        schedule(SESSIONS, 2, 1_000);
        schedule(SESSIONS, 3, 1_999);
        schedule(EVENTS, 4, 2_500);
        schedule(SESSIONS, 5, 4_000); // at the exclusive end

        assertThat(ScheduleQueries.upcoming(task, schedule, 1_000, 4_000, 1_000, Optional.empty(), 100))
                .isEqualTo(
                        new ScheduleQueries.Histogram(new java.util.TreeMap<>(Map.of(1_000L, 2L, 2_000L, 1L)), true));
        assertThat(ScheduleQueries.upcoming(task, schedule, 1_000, 4_000, 1_000, Optional.of(EVENTS), 100)
                        .counts())
                .containsExactly(Map.entry(2_000L, 1L));
        assertThat(ScheduleQueries.upcoming(task, schedule, 1_000, 4_000, 1_000, Optional.empty(), 2)
                        .complete())
                .isFalse();
    }

    @Test
    void shouldCountDueAndAwaitedEntriesSeparately() {
        schedule(SESSIONS, 1, 1_000);
        schedule(SESSIONS, 2, 2_000);
        schedule(SESSIONS, 3, 9_000);
        schedule(SESSIONS, 4, Timeline.CONFIRMATIONS, 500);
        schedule(EVENTS, 5, Timeline.CONFIRMATIONS, 99_000);

        assertThat(ScheduleQueries.due(task, schedule, 2_000, 100).due()).isEqualTo(2);
        assertThat(ScheduleQueries.awaitingConfirmation(task, schedule, 100)).isEqualTo(2);
        assertThat(ScheduleQueries.find(
                        index,
                        schedule,
                        task,
                        SESSIONS,
                        new BsonDocument("_id", new BsonInt32(4)),
                        rule -> OptionalLong.empty()))
                .hasValueSatisfying(found -> assertThat(found.state()).isEqualTo("awaiting-confirmation"));
    }

    @Test
    void shouldCountTheDueBacklogAndItsOldestDeadline() {
        schedule(SESSIONS, 1, 1_500);
        schedule(EVENTS, 2, 1_000);
        schedule(SESSIONS, 3, 2_000); // due exactly at now
        schedule(SESSIONS, 4, 2_001); // not yet

        assertThat(ScheduleQueries.due(task, schedule, 2_000, 100))
                .isEqualTo(new ScheduleQueries.Backlog(3, true, OptionalLong.of(1_000)));
        assertThat(ScheduleQueries.due(task, schedule, 999, 100)).isEqualTo(ScheduleQueries.Backlog.NONE);
        assertThat(ScheduleQueries.due(task, schedule, 2_000, 2))
                .as("a capped scan says so")
                .isEqualTo(new ScheduleQueries.Backlog(2, false, OptionalLong.of(1_000)));
    }

    @Test
    void shouldAddBacklogsOfSeveralPartitions() {
        ScheduleQueries.Backlog one = new ScheduleQueries.Backlog(2, true, OptionalLong.of(5_000));
        ScheduleQueries.Backlog other = new ScheduleQueries.Backlog(1, false, OptionalLong.of(4_000));

        assertThat(one.plus(other)).isEqualTo(new ScheduleQueries.Backlog(3, false, OptionalLong.of(4_000)));
        assertThat(ScheduleQueries.Backlog.NONE.plus(one)).isEqualTo(one);
        assertThat(one.plus(ScheduleQueries.Backlog.NONE)).isEqualTo(one);
    }
}

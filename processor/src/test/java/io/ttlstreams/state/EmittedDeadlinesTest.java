package io.ttlstreams.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.schema.TaskRecord;
import io.ttlstreams.state.ScheduleKey.Timeline;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A first delete command leaves its entry where it is ({@link ExpirySchedule#awaitFirstConfirmation}): the entry reads as
 * awaiting confirmation from the emitted position's checkpoint, its overdue first confirmation is found by a range,
 * nothing put later reads as emitted, and all of it survives a restart (a new {@link ExpirySchedule} over the stores).
 */
class EmittedDeadlinesTest {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");

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

    private static Bytes ref(int id) {
        return DocumentRef.of(DocumentRef.collectionPrefix(0, 0), new BsonDocument("_id", new BsonInt32(id)));
    }

    private static ScheduleEntry entry(long deadline) {
        return new ScheduleEntry(
                "sessions",
                1L,
                Instant.ofEpochMilli(deadline),
                0L,
                false,
                ByteBuffer.wrap(new byte[] {5, 0, 0, 0, 0}),
                0,
                null,
                null);
    }

    private ExpirySchedule restarted() {
        return new ExpirySchedule(schedule, index, task);
    }

    private static void put(ExpirySchedule expiry, int id, long deadline) {
        expiry.put(ref(id), null, Timeline.DEADLINES, deadline, entry(deadline), null);
    }

    /** Runs a deadline scan at {@code now} that emits every due entry in place; returns their keys. */
    private static List<Bytes> emitDue(ExpirySchedule expiry, long now) {
        List<Bytes> emitted = new ArrayList<>();
        try (KeyValueIterator<Bytes, ScheduleEntry> due = expiry.due(Timeline.DEADLINES, now)) {
            while (due.hasNext()) {
                Bytes key = due.next().key;
                expiry.awaitFirstConfirmation(key, now);
                expiry.passed(key);
                emitted.add(key);
            }
        }
        expiry.drained(Timeline.DEADLINES, now);
        expiry.deadlineScanEnded();
        return emitted;
    }

    private static List<KeyValue<Bytes, ScheduleEntry>> firstConfirmationsDue(ExpirySchedule expiry, long emittedBy) {
        List<KeyValue<Bytes, ScheduleEntry>> due = new ArrayList<>();
        KeyValueIterator<Bytes, ScheduleEntry> scan = expiry.firstConfirmationsDue(emittedBy);
        if (scan == null) {
            return due;
        }
        try (KeyValueIterator<Bytes, ScheduleEntry> overdue = scan) {
            overdue.forEachRemaining(due::add);
        }
        return due;
    }

    /** The documents whose first confirmation is overdue, in the order found. */
    private static List<Bytes> overdue(ExpirySchedule expiry, long emittedBy) {
        return firstConfirmationsDue(expiry, emittedBy).stream()
                .map(next -> ScheduleKey.documentRefOf(next.key))
                .toList();
    }

    /** The document's entry awaits confirmation, as it stands after {@code attempts} commands, the first at {@code at}. */
    private static void assertAwaiting(ExpirySchedule expiry, int id, int attempts, long at) {
        DocumentEntry found = expiry.find(ref(id));
        assertThat(found.state().awaitsConfirmation()).isTrue();
        ScheduleEntry asItStands = expiry.entryOf(found);
        assertThat(asItStands.getAttempts()).isEqualTo(attempts);
        assertThat(asItStands.getFirstEmittedAt()).isEqualTo(Instant.ofEpochMilli(at));
    }

    private long stored(KeyValueStore<Bytes, ?> store) {
        long count = 0;
        try (KeyValueIterator<Bytes, ?> all = store.all()) {
            for (; all.hasNext(); all.next()) {
                count++;
            }
        }
        return count;
    }

    @Test
    void shouldWriteOneCheckpointAndMoveNothingWhenEmittingInPlace() {
        ExpirySchedule expiry = restarted();
        put(expiry, 1, 1_000);
        put(expiry, 2, 1_500);
        put(expiry, 3, 9_000);

        assertThat(emitDue(expiry, 2_000)).hasSize(2);

        assertThat(stored(schedule)).as("the entries stay where they were").isEqualTo(3);
        assertThat(stored(index)).as("three documents").isEqualTo(3);
        assertThat(stored(task)).as("one checkpoint").isEqualTo(1);
        for (int id : new int[] {1, 2}) {
            assertThat(ScheduleKey.timelineOf(expiry.find(ref(id)).key())).isEqualTo(Timeline.DEADLINES);
            assertAwaiting(expiry, id, 1, 2_000);
        }
        assertThat(expiry.find(ref(3)).state()).isEqualTo(EntryState.SCHEDULED);
        assertThat(emitDue(expiry, 2_000)).as("each deadline emitted once").isEmpty();
    }

    @Test
    void shouldFindFirstConfirmationsOverdueOnlyOnceTheirWaitHasPassedSinceTheirEmission() {
        ExpirySchedule expiry = restarted();
        put(expiry, 1, 1_000);
        put(expiry, 2, 2_500);
        emitDue(expiry, 2_000);
        emitDue(expiry, 3_000);

        assertThat(firstConfirmationsDue(expiry, 1_999))
                .as("nothing emitted that early")
                .isEmpty();
        assertThat(overdue(expiry, 2_999)).containsExactly(ref(1));
        assertAwaiting(expiry, 1, 1, 2_000);
        assertThat(overdue(expiry, 3_000)).containsExactly(ref(1), ref(2));
    }

    @Test
    void shouldPutADeadlineAtOrBeforeTheEmittedPositionJustAfterItSoThatItIsEmittedNext() {
        ExpirySchedule expiry = restarted();
        put(expiry, 5, 1_000);
        emitDue(expiry, 2_000);

        put(expiry, 1, 500);

        assertThat(expiry.find(ref(1)).state()).as("never read as emitted").isEqualTo(EntryState.SCHEDULED);
        assertThat(expiry.find(ref(1)).dueAt())
                .as("later than its deadline, never earlier")
                .isEqualTo(1_001);
        assertThat(emitDue(expiry, 2_001))
                .extracting(ScheduleKey::documentRefOf)
                .containsExactly(ref(1));
    }

    @Test
    void shouldResumeFromTheCheckpointAfterARestart() {
        ExpirySchedule before = restarted();
        put(before, 1, 1_000);
        put(before, 2, 5_000);
        emitDue(before, 2_000);

        ExpirySchedule after = restarted();

        assertAwaiting(after, 1, 1, 2_000);
        assertThat(emitDue(after, 6_000))
                .as("not emitted again: only the next deadline")
                .extracting(ScheduleKey::documentRefOf)
                .containsExactly(ref(2));
        assertThat(overdue(after, 2_000)).containsExactly(ref(1));
    }

    @Test
    void shouldDropTheCheckpointsOnceEveryEntryTheyCoveredLeft() {
        ExpirySchedule expiry = restarted();
        put(expiry, 1, 1_000);
        put(expiry, 2, 1_100);
        emitDue(expiry, 2_000);
        expiry.remove(expiry.find(ref(1)));

        for (KeyValue<Bytes, ScheduleEntry> overdue : firstConfirmationsDue(expiry, 2_000)) {
            ScheduleEntry asItStands = expiry.entryOf(expiry.find(ScheduleKey.documentRefOf(overdue.key)));
            expiry.move(overdue.key, Timeline.CONFIRMATIONS, 50_000, ExpirySchedule.emitted(asItStands, 12_000));
            expiry.passed(overdue.key);
        }
        expiry.firstConfirmationsDrained(2_000);

        assertThat(stored(index)).as("one document").isEqualTo(1);
        assertThat(stored(task)).as("no checkpoint").isZero();
        assertAwaiting(expiry, 2, 2, 2_000);
        assertAwaiting(restarted(), 2, 2, 2_000);
    }

    @Test
    void shouldRefuseAnIndexHoldingARecordOfAnEarlierBuildWhenTheTaskStarts() {
        put(restarted(), 1, 5_000);
        // A checkpoint as builds before the task store wrote it: in the index, under a key beginning with 0.
        Bytes checkpoint = Bytes.wrap(new byte[] {0, 3, 0, 0});
        index.put(checkpoint, new IndexEntry(0, Instant.ofEpochMilli(1_000), null, 0L));

        assertThatThrownBy(() -> restarted().namespaces())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("first byte 0")
                .hasMessageContaining("Reset the application's state");
        assertThatThrownBy(() -> restarted().due(Timeline.DEADLINES, 10_000))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Reset the application's state");

        index.delete(checkpoint);
        assertThat(restarted().namespaces().find(SESSIONS, new BsonDocument("_id", new BsonInt32(1))))
                .as("references alone: accepted")
                .isEmpty();
    }

    /** One drain at {@code now} handling up to {@code budget} entries: what it handed over, in order, as kind:id. */
    private static List<String> drainDue(ExpirySchedule expiry, long now, long firstEmittedBy, int budget) {
        List<String> handed = new ArrayList<>();
        expiry.drainDue(now, firstEmittedBy, new ExpirySchedule.DueHandler() {
            @Override
            public boolean more() {
                return handed.size() < budget;
            }

            @Override
            public void deadlinePassed(DocumentEntry due, ScheduleEntry entry) {
                handed.add("deadline:" + idOf(due.key()));
                expiry.firstCommandOut(due, now);
            }

            @Override
            public void confirmationOverdue(DocumentEntry due, ScheduleEntry entry) {
                handed.add("confirmation:" + idOf(due.key()) + "@" + entry.getAttempts());
                expiry.moveTo(due, EntryState.AWAITING_CONFIRMATION, now + 10_000, ExpirySchedule.emitted(entry, now));
            }
        });
        return handed;
    }

    private static int idOf(Bytes scheduleKey) {
        return DocumentRef.idKeyOf(ScheduleKey.documentRefOf(scheduleKey))
                .getInt32("_id")
                .getValue();
    }

    @Test
    void shouldHandOverDeadlinesThenOverdueFirstConfirmationsThenConfirmationsAndGoOnWhereABudgetStoppedWhenDrained() {
        ExpirySchedule expiry = restarted();
        put(expiry, 1, 1_000);
        put(expiry, 2, 1_500);
        put(expiry, 4, 9_000);
        expiry.put(ref(3), null, Timeline.CONFIRMATIONS, 1_200, entry(1_000), null);

        assertThat(drainDue(expiry, 2_000, 0, 10)).containsExactly("deadline:1", "deadline:2", "confirmation:3@0");
        assertThat(drainDue(expiry, 3_000, 2_000, 1))
                .as("first confirmations overdue, as they stand, within the budget")
                .containsExactly("confirmation:1@1");
        assertThat(drainDue(restarted(), 3_000, 2_000, 10))
                .as("after a restart too, where the last drain stopped")
                .containsExactly("confirmation:2@1");
        assertThat(drainDue(expiry, 3_000, 2_000, 10))
                .as("each entry handed over once")
                .isEmpty();
        assertThat(expiry.find(ref(4)).state()).isEqualTo(EntryState.SCHEDULED);
    }
}

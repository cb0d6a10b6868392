package io.ttlstreams.processor;

import static io.ttlstreams.processor.SchedulerParts.SESSIONS;
import static io.ttlstreams.processor.SchedulerParts.document;
import static io.ttlstreams.processor.SchedulerParts.ref;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.OperationType;
import io.ttlstreams.schema.IndexEntry;
import io.ttlstreams.state.ScheduleKey.Timeline;
import java.time.Instant;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EventApplierTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant EXPIRE_AT = NOW.plusSeconds(60);

    private final SchedulerParts parts = new SchedulerParts();
    private final EventApplier applier = applierOverTheParts();

    /** An applier over {@link #parts}' stores, sensors and context, as a task (re)started on them builds it. */
    private EventApplier applierOverTheParts() {
        return parts.applier();
    }

    @BeforeEach
    void setClock() {
        parts.context.setCurrentSystemTimeMs(NOW.toEpochMilli());
    }

    private static ChangeEvent event(OperationType type, String id, BsonDocument document, int clusterSeconds) {
        return new ChangeEvent(
                type,
                SESSIONS,
                new BsonDocument("_id", new BsonString(id)),
                document,
                NOW,
                new BsonTimestamp(clusterSeconds, 1));
    }

    private void apply(ChangeEvent event) {
        applier.apply(event, NOW.toEpochMilli());
    }

    @Test
    void shouldScheduleTheDocumentAtItsDeadlineWhenInserted() {
        apply(event(OperationType.INSERT, "d1", document("d1", EXPIRE_AT), 100));

        IndexEntry position = parts.schedule.position(ref("d1"));
        assertThat(position).isNotNull();
        assertThat(Timeline.of(position.getTimeline())).isEqualTo(Timeline.DEADLINES);
        assertThat(position.getDueAt()).isEqualTo(EXPIRE_AT);
        assertThat(parts.total(TtlMetrics.SCHEDULED)).isEqualTo(1);
    }

    @Test
    void shouldWriteNothingWhenAnUpdateLeavesTheEntryAsItWas() {
        apply(event(OperationType.INSERT, "d1", document("d1", EXPIRE_AT), 100));
        apply(event(OperationType.UPDATE, "d1", document("d1", EXPIRE_AT), 101));

        assertThat(parts.total(TtlMetrics.SCHEDULED)).isEqualTo(1);
        assertThat(parts.total(TtlMetrics.UNCHANGED)).isEqualTo(1);
    }

    @Test
    void shouldCancelTheEntryWhenTheDocumentIsDeleted() {
        apply(event(OperationType.INSERT, "d1", document("d1", EXPIRE_AT), 100));
        apply(event(OperationType.DELETE, "d1", null, 101));

        assertThat(parts.schedule.position(ref("d1"))).isNull();
        assertThat(parts.total(TtlMetrics.CANCELLED)).isEqualTo(1);
    }

    @Test
    void shouldCancelTheNamespaceAndSkipItsOlderEventsWhenTheCollectionIsDropped() {
        apply(event(OperationType.INSERT, "d1", document("d1", EXPIRE_AT), 100));
        BsonTimestamp dropTime = new BsonTimestamp(200, 1);
        apply(new ChangeEvent(OperationType.DROP, SESSIONS, null, null, NOW, dropTime));

        assertThat(parts.schedule.position(ref("d1"))).isNull();
        assertThat(parts.namespaceEpochs.get(SESSIONS.toString())).isEqualTo(dropTime.getValue());

        // An event from before the drop, arriving late from another partition, is not scheduled again.
        apply(event(OperationType.INSERT, "d2", document("d2", EXPIRE_AT), 150));

        assertThat(parts.schedule.position(ref("d2"))).isNull();
        assertThat(parts.total(TtlMetrics.STALE)).isEqualTo(1);
    }

    @Test
    void shouldRememberDropsAcrossRestartsWhenTheEpochsStoreHoldsThem() {
        parts.namespaceEpochs.put(SESSIONS.toString(), new BsonTimestamp(200, 1).getValue());
        EventApplier restarted = applierOverTheParts();

        restarted.apply(event(OperationType.INSERT, "d1", document("d1", EXPIRE_AT), 150), NOW.toEpochMilli());

        assertThat(parts.schedule.position(ref("d1"))).isNull();
        assertThat(parts.total(TtlMetrics.STALE)).isEqualTo(1);
    }
}

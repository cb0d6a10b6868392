package io.ttlstreams.processor;

import static io.ttlstreams.processor.SchedulerParts.SESSIONS;
import static io.ttlstreams.processor.SchedulerParts.document;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.OperationType;
import java.time.Instant;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the topology specification cannot show: the event applier builds its drops from the {@code namespace-epochs}
 * store when a task starts, where Kafka Streams has restored it ({@code TopologyTestDriver} initialises the processors
 * before a test can restore anything). Scheduling, cancelling and drops themselves are TtlTopologyTest's and
 * ExpiryLifecycleTest's.
 */
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
    void shouldRememberDropsAcrossRestartsWhenTheEpochsStoreHoldsThem() {
        parts.namespaceEpochs.put(SESSIONS.toString(), new BsonTimestamp(200, 1).getValue());
        EventApplier restarted = applierOverTheParts();

        restarted.apply(event(OperationType.INSERT, "d1", document("d1", EXPIRE_AT), 150), NOW.toEpochMilli());

        assertThat(parts.schedule.find(parts.ref("d1"))).isNull();
        assertThat(parts.total(TtlMetrics.STALE)).isEqualTo(1);
    }
}

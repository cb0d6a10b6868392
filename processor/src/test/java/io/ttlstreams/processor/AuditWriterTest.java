package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.topology.TtlTopology;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedForward;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

class AuditWriterTest {

    private static final Instant DEADLINE = Instant.parse("2026-01-01T00:00:00Z");
    private static final long NOW = DEADLINE.plusSeconds(5).toEpochMilli();

    @Test
    void shouldForwardTheOutcomeToTheAuditSinkWhenAuditIsEnabled() {
        SchedulerParts parts = new SchedulerParts("ttl.audit.topic", "ttl.audit");
        ScheduleEntry entry = parts.entry("d1", DEADLINE);

        parts.audit.write(parts.ref("d1"), entry, ExpiryOutcome.CONFIRMED, NOW, 2, 5_000L);

        assertThat(parts.context.forwarded()).hasSize(1);
        CapturedForward<? extends String, ?> forward = parts.context.forwarded().get(0);
        assertThat(forward.childName()).contains(TtlTopology.AUDIT_SINK);
        assertThat(forward.record().key()).isEqualTo(CanonicalJson.of(new BsonDocument("_id", new BsonString("d1"))));
        assertThat(forward.record().timestamp()).isEqualTo(NOW);
        ExpiryEvent event = (ExpiryEvent) forward.record().value();
        assertThat(event.getNamespace()).isEqualTo("app.sessions");
        assertThat(event.getRule()).isEqualTo("sessions");
        assertThat(event.getDeadline()).isEqualTo(DEADLINE);
        assertThat(event.getOutcome()).isEqualTo(ExpiryOutcome.CONFIRMED);
        assertThat(event.getAttempt()).isEqualTo(2);
        assertThat(event.getConfirmedLagMillis()).isEqualTo(5_000L);
    }

    @Test
    void shouldForwardNothingWhenAuditIsDisabled() {
        SchedulerParts parts = new SchedulerParts();

        parts.audit.write(parts.ref("d1"), parts.entry("d1", DEADLINE), ExpiryOutcome.EMITTED, NOW, 1, null);

        assertThat(parts.context.forwarded()).isEmpty();
    }
}

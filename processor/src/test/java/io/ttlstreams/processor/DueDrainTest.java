package io.ttlstreams.processor;

import static io.ttlstreams.processor.SchedulerParts.ref;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.state.ScheduleKey.Timeline;
import io.ttlstreams.topology.TtlTopology;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DueDrainTest {

    private static final Instant DEADLINE = Instant.parse("2026-01-01T00:00:00Z");

    private static DueDrain drainOf(SchedulerParts parts) {
        RuleReconciler reconciler = new RuleReconciler(parts.task, parts.ruleVersions, parts.guard);
        return new DueDrain(parts.task, Optional.empty(), reconciler, parts.guard, TtlTopology.DELETES_SINK);
    }

    private static void scheduled(SchedulerParts parts, String id) {
        parts.schedule.put(ref(id), null, Timeline.DEADLINES, DEADLINE.toEpochMilli(), parts.entry(id, DEADLINE), null);
    }

    private static List<Object> commands(SchedulerParts parts) {
        return parts.context.forwarded().stream()
                .filter(forward -> forward.childName().equals(Optional.of(TtlTopology.DELETES_SINK)))
                .map(forward -> forward.record().value())
                .map(Object.class::cast)
                .toList();
    }

    @Test
    void shouldEmitTheCommandAndAwaitConfirmationWhenTheDeadlinePasses() {
        SchedulerParts parts = new SchedulerParts();
        scheduled(parts, "d1");
        DueDrain drain = drainOf(parts);

        drain.punctuate(DEADLINE.toEpochMilli() - 1);
        assertThat(commands(parts)).isEmpty();

        drain.punctuate(DEADLINE.toEpochMilli());

        assertThat(commands(parts)).hasSize(1).first().isInstanceOf(DeleteCommand.class);
        assertThat(Timeline.of(parts.schedule.position(ref("d1")).getTimeline()))
                .isEqualTo(Timeline.CONFIRMATIONS);
        assertThat(parts.total(TtlMetrics.EMITTED)).isEqualTo(1);
    }

    @Test
    void shouldEmitTheCommandAgainWhenNoConfirmationComesInTime() {
        SchedulerParts parts = new SchedulerParts();
        scheduled(parts, "d1");
        DueDrain drain = drainOf(parts);
        long emittedAt = DEADLINE.toEpochMilli();
        drain.punctuate(emittedAt);

        drain.punctuate(emittedAt + parts.settings.confirmWaitMillis(1));

        assertThat(commands(parts)).hasSize(2);
        assertThat(parts.total(TtlMetrics.REEMITTED)).isEqualTo(1);
    }

    @Test
    void shouldDropTheEntryWithoutACommandWhenInDryRun() {
        SchedulerParts parts = new SchedulerParts("ttl.dry.run", "true");
        scheduled(parts, "d1");

        drainOf(parts).punctuate(DEADLINE.toEpochMilli());

        assertThat(commands(parts)).isEmpty();
        assertThat(parts.schedule.position(ref("d1"))).isNull();
        assertThat(parts.total(TtlMetrics.DRY_RUN)).isEqualTo(1);
    }
}

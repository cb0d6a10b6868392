package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.schema.RuleVersion;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.EntryState;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RuleReconcilerTest {

    private static final Instant DEADLINE = Instant.parse("2026-01-01T00:00:00Z");
    private static final long NOW = DEADLINE.toEpochMilli();

    private final SchedulerParts parts = new SchedulerParts();
    private final RuleReconciler reconciler = parts.reconciler();

    @Test
    void shouldRecordTheRulesWhenNoneWereRecorded() {
        reconciler.goOn(NOW, 0, Long.MAX_VALUE);

        RuleVersion sessions = parts.ruleVersions.get("sessions");
        assertThat(sessions).isNotNull();
        assertThat(sessions.getShape())
                .isEqualTo(parts.settings
                        .config()
                        .rules()
                        .rule("sessions")
                        .orElseThrow()
                        .shape());
    }

    @Test
    void shouldKeepADueEntryWhenItsRuleIsUnchanged() {
        ScheduleEntry entry = parts.entry("d1", DEADLINE);
        parts.schedule.schedule(parts.ref("d1"), null, EntryState.SCHEDULED, NOW, entry, null);

        ScheduleEntry kept = reconciler.current(parts.schedule.find(parts.ref("d1")), entry, NOW);

        assertThat(kept).isEqualTo(entry);
        assertThat(parts.schedule.find(parts.ref("d1"))).isNotNull();
    }

    @Test
    void shouldCancelADueEntryWhenItsRuleIsGone() {
        ScheduleEntry entry = ScheduleEntry.newBuilder(parts.entry("d1", DEADLINE))
                .setRule("gone")
                .build();
        parts.schedule.schedule(parts.ref("d1"), null, EntryState.SCHEDULED, NOW, entry, null);

        ScheduleEntry kept = reconciler.current(parts.schedule.find(parts.ref("d1")), entry, NOW);

        assertThat(kept).isNull();
        assertThat(parts.schedule.find(parts.ref("d1"))).isNull();
        assertThat(parts.total(TtlMetrics.RULE_REMOVED)).isEqualTo(1);
    }

    @Test
    void shouldHoldRatherThanMoveAnEntryOfTheDefaultTtlWhenTheDefaultBecomesMinusOne() {
        String[] lastModified = {
            "ttl.rule.sessions.field", "",
            "ttl.rule.sessions.mode", "last-modified",
            "ttl.rule.sessions.document.ttl.field", "ttl",
            "ttl.rule.sessions.expire.after.seconds", ""
        };
        lastModified[7] = "3600";
        // Scheduled under a default of an hour: the document has no ttl of its own.
        ScheduleEntry entry = new SchedulerParts(lastModified).entry("d1", DEADLINE.minusSeconds(3600));
        assertThat(entry.getOffsetFromRule()).isTrue();
        lastModified[7] = "-1";
        SchedulerParts noDefault = new SchedulerParts(lastModified);
        RuleReconciler reconciler = noDefault.reconciler();
        noDefault.schedule.schedule(noDefault.ref("d1"), null, EntryState.SCHEDULED, NOW, entry, null);

        ScheduleEntry due = reconciler.current(noDefault.schedule.find(noDefault.ref("d1")), entry, NOW - 10_000);

        assertThat(due).as("not moved by -1 s, nor emitted").isNull();
        assertThat(noDefault.schedule.find(noDefault.ref("d1")).state())
                .as("held for its document: without a ttl of its own it no longer expires")
                .isEqualTo(EntryState.HELD);
    }
}

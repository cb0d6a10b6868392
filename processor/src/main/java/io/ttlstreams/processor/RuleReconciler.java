package io.ttlstreams.processor;

import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.schema.RuleVersion;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentEntry;
import io.ttlstreams.state.EntryState;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.state.ScheduleStores;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles the expiry schedule with changed rules: each entry about to be sent, and, after a restart with changed
 * rules, the whole schedule in a walk.
 *
 * <p>An entry of a removed rule is cancelled, one whose rule changed shape is held until its document is evaluated
 * again, and one whose rule changed only its offset gets its deadline recomputed from its stored base. The walk goes
 * over the whole schedule, a bounded slice per punctuation, and does the same for entries not yet due.
 */
final class RuleReconciler implements RuleCheck {

    private static final Logger LOG = LoggerFactory.getLogger(RuleReconciler.class);

    private final SchedulerSettings settings;
    private final ExpirySchedule schedule;
    private final KeyValueStore<String, RuleVersion> ruleVersions;
    private final Admission guard;
    private final Outcomes outcomes;
    private final TaskId task;
    /**
     * Whether the first punctuation is still to compare the rules with those the schedule was reconciled with: there,
     * inside a transaction, rather than in the processor's init, which runs before the task's first transaction.
     */
    private boolean rulesToCompare = true;
    /** What reconciling with the current rules did, per rule, since the last summary was logged. */
    private final Map<String, RuleChanges> ruleChanges = new TreeMap<>();

    RuleReconciler(
            SchedulerSettings settings,
            ExpirySchedule schedule,
            KeyValueStore<String, RuleVersion> ruleVersions,
            Admission guard,
            Outcomes outcomes,
            TaskId task) {
        this.settings = settings;
        this.schedule = schedule;
        this.ruleVersions = ruleVersions;
        this.guard = guard;
        this.outcomes = outcomes;
        this.task = task;
    }

    /**
     * At the first punctuation, compares the rules with those the schedule was reconciled with; then goes on with the
     * walk, if one is pending, within a budget of its own.
     *
     * @param startedNanos when the punctuation started, on the settings' nano clock
     * @param maxNanos how long the punctuation may take ({@link PunctuationTimeShare})
     */
    void goOn(long now, long startedNanos, long maxNanos) {
        if (rulesToCompare) {
            rulesToCompare = false;
            compareRules();
        }
        if (schedule.walking()) {
            walk(
                    now,
                    new PunctuationBudget(
                            settings.config().punctuateMaxEntries(), startedNanos, maxNanos, settings.nanoClock()));
        }
    }

    /** What the current rules make of an entry computed under possibly older ones. */
    private record Reconciliation(Kind kind, long offsetSeconds) {
        enum Kind {
            /** The rule is as it was. */
            KEEP,
            /** The rule is gone: the entry goes, and no command. */
            CANCEL,
            /** The rule changed in a way that needs the document: the entry waits for an event or a resync. */
            HOLD,
            /** Only the rule's expire.after.seconds changed: the deadline moves, counted from the same base. */
            MOVE
        }

        static final Reconciliation KEEP = new Reconciliation(Kind.KEEP, 0);
        static final Reconciliation CANCEL = new Reconciliation(Kind.CANCEL, 0);
        static final Reconciliation HOLD = new Reconciliation(Kind.HOLD, 0);
    }

    private Reconciliation reconcile(ScheduleEntry entry) {
        Optional<TtlRule> rule = settings.config().rules().rule(entry.getRule());
        if (rule.isEmpty()) {
            return Reconciliation.CANCEL;
        }
        // The shape computed once per rule set: TtlRule#shape is a SHA-256, 9% of a punctuation's CPU per due entry.
        if (settings.config().rules().shape(rule.get()) != entry.getRuleShape()) {
            return Reconciliation.HOLD;
        }
        if (entry.getOffsetFromRule() && rule.get().hasNoDefault()) {
            // Its document had no TTL of its own, which now means it does not expire: never moved by -1 seconds.
            return Reconciliation.HOLD;
        }
        if (entry.getOffsetFromRule() && rule.get().expireAfterSeconds() != entry.getOffsetSeconds()) {
            return new Reconciliation(Reconciliation.Kind.MOVE, rule.get().expireAfterSeconds());
        }
        return Reconciliation.KEEP;
    }

    /**
     * A due entry against the current rules: one of the deadlines timeline is reconciled as {@link
     * #reconcileDeadline} does for an emission; a confirmation awaited for a rule that is gone is cancelled.
     */
    @Override
    public ScheduleEntry current(DocumentEntry due, ScheduleEntry entry, long now) {
        if (due.state() == EntryState.SCHEDULED) {
            return reconcileDeadline(due, entry, now, true);
        }
        if (settings.config().rules().rule(entry.getRule()).isEmpty()) {
            ruleRemoved(due, entry, now);
            return null;
        }
        return entry;
    }

    /**
     * Reconciles a {@link EntryState#SCHEDULED} entry, found by a scan, with the current rules. Returns the entry still
     * due at {@code now}, possibly with a recomputed deadline, when the caller is to emit it ({@code emitting}: it
     * stays where it is, for the caller to move); null when it left (cancelled, held) or moved to another time.
     * Without {@code emitting} (the walk), a recomputed deadline always moves the entry, to an earlier time too.
     */
    private ScheduleEntry reconcileDeadline(DocumentEntry due, ScheduleEntry entry, long now, boolean emitting) {
        Reconciliation reconciliation = reconcile(entry);
        switch (reconciliation.kind()) {
            case CANCEL -> {
                ruleRemoved(due, entry, now);
                return null;
            }
            case HOLD -> {
                schedule.moveTo(due, EntryState.HELD, ScheduleEntries.deadlineOf(entry), entry);
                outcomes.count(TtlMetrics.HELD);
                changesOf(entry.getRule()).held++;
                return null;
            }
            case MOVE -> {
                ScheduleEntry moved = ScheduleEntries.withOffset(entry, reconciliation.offsetSeconds());
                OptionalLong movedDeadline = deadlineUnlessBeyondTime(due, moved);
                if (movedDeadline.isEmpty()) {
                    return null;
                }
                long deadline = movedDeadline.getAsLong();
                outcomes.count(TtlMetrics.RESCHEDULED);
                RuleChanges changes = changesOf(entry.getRule());
                changes.moved++;
                if (deadline <= now) {
                    changes.dueAtOnce++;
                    if (emitting) {
                        // Its old deadline had passed too: it would have expired anyway, so the guard has no say.
                        return moved;
                    }
                }
                // Due on arrival only when the shortened offset made it so: one already due stays as it was.
                EntryState admitted = due.dueAt() > now
                        ? guard.admit(due.documentRef(), moved, deadline, now, now)
                        : EntryState.SCHEDULED;
                schedule.moveTo(due, admitted, deadline, moved);
                return null;
            }
            default -> {
                return entry;
            }
        }
    }

    /** Removes an entry whose rule is gone: counted and audited. */
    private void ruleRemoved(DocumentEntry removed, ScheduleEntry entry, long now) {
        schedule.remove(removed);
        outcomes.ruleRemoved(removed.documentRef(), entry, now);
        changesOf(entry.getRule()).cancelled++;
    }

    /**
     * Compares the rules with those the schedule was last reconciled with ({@link ScheduleStores#RULE_VERSIONS}): a
     * removed rule, or a changed shape or offset, starts a walk over the schedule; otherwise the current rules are
     * recorded (an added rule changes no existing entry).
     */
    private void compareRules() {
        boolean changed = false;
        try (KeyValueIterator<String, RuleVersion> versions = ruleVersions.all()) {
            while (versions.hasNext() && !changed) {
                KeyValue<String, RuleVersion> version = versions.next();
                changed = settings.config()
                        .rules()
                        .rule(version.key)
                        .map(rule -> !version.value.equals(new RuleVersion(rule.shape(), rule.expireAfterSeconds())))
                        .orElse(true);
            }
        }
        if (changed) {
            schedule.startWalk();
            LOG.info("Task {}: the rules changed since the schedule was last reconciled; reconciling it", task);
        } else {
            recordRuleVersions();
        }
    }

    /**
     * Walks the whole schedule, a budget's worth per punctuation, reconciling each entry with the current rules, so
     * that a shortened offset makes documents due now rather than at their old deadline, and entries of removed or
     * reshaped rules leave the deadlines timeline before they come due. Logs a summary per rule when done.
     */
    private void walk(long now, PunctuationBudget run) {
        boolean done = schedule.walk(run::left, (walked, entry) -> {
            walkOver(walked, entry, now);
            run.handled();
        });
        if (done) {
            recordRuleVersions();
            ruleChanges.forEach((rule, changes) -> LOG.info("Task {}: rule {} {}", task, rule, changes));
            ruleChanges.clear();
        }
    }

    private void walkOver(DocumentEntry walked, ScheduleEntry entry, long now) {
        EntryState state = walked.state();
        if (state == EntryState.SCHEDULED) {
            reconcileDeadline(walked, entry, now, false);
            return;
        }
        Reconciliation reconciliation = reconcile(entry);
        if (reconciliation.kind() == Reconciliation.Kind.CANCEL) {
            ruleRemoved(walked, entry, now);
        } else if (state == EntryState.HELD && reconciliation.kind() != Reconciliation.Kind.HOLD) {
            // The rule is back to the shape the entry was computed under: it needs no document after all.
            ScheduleEntry back = reconciliation.kind() == Reconciliation.Kind.MOVE
                    ? ScheduleEntries.withOffset(entry, reconciliation.offsetSeconds())
                    : entry;
            deadlineUnlessBeyondTime(walked, back)
                    .ifPresent(deadline -> schedule.moveTo(
                            walked, guard.admit(walked.documentRef(), back, deadline, now, now), deadline, back));
        }
    }

    /**
     * The deadline of {@code entry}, whose offset the current rule set; empty, with {@code current} cancelled, when it
     * lies beyond the last representable instant: never, as the rules say of such a deadline.
     */
    private OptionalLong deadlineUnlessBeyondTime(DocumentEntry current, ScheduleEntry entry) {
        OptionalLong deadline = ScheduleEntries.movedDeadlineOf(entry);
        if (deadline.isEmpty()) {
            schedule.remove(current);
            outcomes.cancelled(1);
        }
        return deadline;
    }

    private void recordRuleVersions() {
        try (KeyValueIterator<String, RuleVersion> versions = ruleVersions.all()) {
            while (versions.hasNext()) {
                String name = versions.next().key;
                if (settings.config().rules().rule(name).isEmpty()) {
                    ruleVersions.delete(name);
                }
            }
        }
        for (TtlRule rule : settings.config().rules().rules()) {
            RuleVersion version = new RuleVersion(rule.shape(), rule.expireAfterSeconds());
            if (!version.equals(ruleVersions.get(rule.name()))) {
                ruleVersions.put(rule.name(), version);
            }
        }
    }

    private RuleChanges changesOf(String rule) {
        return ruleChanges.computeIfAbsent(rule, name -> new RuleChanges());
    }

    /** Counts of what reconciling did to one rule's entries, for one log line. */
    private static final class RuleChanges {
        private int cancelled;
        private int held;
        private int moved;
        private int dueAtOnce;

        @Override
        public String toString() {
            return "changed: " + cancelled + " entries cancelled (rule removed), " + held + " held until their"
                    + " documents are evaluated again (rule reshaped), " + moved + " deadlines moved (offset changed),"
                    + " of which " + dueAtOnce + " became due at once";
        }
    }
}

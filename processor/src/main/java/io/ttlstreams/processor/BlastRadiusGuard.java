package io.ttlstreams.processor;

import io.ttlstreams.config.GuardLimit;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.GuardState;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.state.ScheduleKey;
import io.ttlstreams.state.ScheduleKey.Timeline;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blast-radius guard: no mistake can mass-delete. An entry is <em>due on arrival</em> when its deadline had
 * already passed when the schedule learnt of it, or of its new deadline (a shortened offset, a resync of old data, a
 * value in the wrong unit); organic deadlines, which the schedule knew before they came, are not its business. Per
 * rule, due-on-arrival entries flow up to the task's share of the rule's limit in a sliding window; past it, the rule
 * is tripped and every due-on-arrival entry of it is held on the {@link Timeline#AWAITING_APPROVAL} timeline: no
 * delete command, counted, audited, logged once the mass settles, until an operator's {@link GuardDecision} releases
 * the entries (to the deadlines timeline, where the throttle applies) or rejects them (they leave the schedule, and
 * their document's next change schedules them again).
 *
 * <p>Its state is the held entries themselves, in the schedule, and one {@link GuardState} per rule in the {@code
 * guard-state} store (the window's counts, how many are held, their earliest and latest deadline, the last decision
 * applied), both changelogged, so a restart or a rebalance keeps every hold.
 */
final class BlastRadiusGuard {

    private static final Logger LOG = LoggerFactory.getLogger(BlastRadiusGuard.class);

    private final SchedulerSettings settings;
    private final ExpirySchedule schedule;
    private final KeyValueStore<String, GuardState> states;
    private final SchedulerSensors sensors;
    private final AuditWriter audit;
    private final ProcessorContext<?, ?> context;
    /** Per rule, the held count at the previous punctuation and the one last logged: a mass is logged once settled. */
    private final Map<String, long[]> heldSeen = new HashMap<>();

    /**
     * @param task the rules' limits and the partition count the limits are shared over, the schedule, where holds,
     *     approvals and rejections are counted and audited, and the task's id
     * @param states the task's {@code guard-state} store
     */
    BlastRadiusGuard(TaskScope task, KeyValueStore<String, GuardState> states) {
        this.settings = task.settings();
        this.schedule = task.schedule();
        this.states = states;
        this.sensors = task.sensors();
        this.audit = task.audit();
        this.context = task.context();
    }

    /**
     * The timeline for an entry the schedule learns of, with {@code deadline}: deadlines, unless it is due on arrival
     * past its rule's limit, in which case it is counted and audited as held and belongs on the awaiting-approval
     * timeline. The caller puts it there.
     *
     * @param learntAt when the deadline became known: the document's change for an event (so that a document written
     *     with a future deadline that a lagging processor sees late is organic, not due on arrival), now for a
     *     deadline a changed rule moved
     */
    Timeline admit(Bytes ref, ScheduleEntry entry, long deadline, long learntAt, long now) {
        if (deadline > Math.min(learntAt, now)) {
            return Timeline.DEADLINES;
        }
        GuardLimit limit = settings.guardLimit(entry.getRule());
        if (!limit.enabled()) {
            return Timeline.DEADLINES;
        }
        GuardState state = stateOf(entry.getRule(), now);
        long window = limit.window().toMillis();
        slide(state, now, window);
        if (state.getHeld() == 0 && flowed(state, now, window) < limit.share(settings.partitions())) {
            state.setWindowCount(state.getWindowCount() + 1);
            states.put(entry.getRule(), state);
            return Timeline.DEADLINES;
        }
        Instant at = Instant.ofEpochMilli(deadline);
        if (state.getHeld() == 0 || at.isBefore(state.getEarliestHeld())) {
            state.setEarliestHeld(at);
        }
        if (state.getHeld() == 0 || at.isAfter(state.getLatestHeld())) {
            state.setLatestHeld(at);
        }
        state.setHeld(state.getHeld() + 1);
        states.put(entry.getRule(), state);
        sensors.heldForApproval.record();
        audit.write(ref, entry, ExpiryOutcome.HELD_FOR_APPROVAL, now, entry.getAttempts(), null);
        return Timeline.AWAITING_APPROVAL;
    }

    /** A held entry of {@code rule} left its timeline: its document changed or went, and was evaluated again. */
    void left(String rule) {
        GuardState state = states.get(rule);
        if (state == null || state.getHeld() == 0) {
            return;
        }
        state.setHeld(state.getHeld() - 1);
        if (state.getHeld() == 0) {
            state.setEarliestHeld(null);
            state.setLatestHeld(null);
        }
        states.put(rule, state);
    }

    /**
     * Counts the held entries again from the timeline itself, after changes that remove entries wholesale (a dropped
     * namespace, a walk over changed rules).
     */
    void recount() {
        Map<String, long[]> found = new HashMap<>();
        try (KeyValueIterator<Bytes, ScheduleEntry> held = schedule.all(Timeline.AWAITING_APPROVAL)) {
            while (held.hasNext()) {
                KeyValue<Bytes, ScheduleEntry> next = held.next();
                long deadline = ScheduleKey.dueAtOf(next.key);
                long[] counts = found.computeIfAbsent(
                        next.value.getRule(), rule -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE});
                counts[0]++;
                counts[1] = Math.min(counts[1], deadline);
                counts[2] = Math.max(counts[2], deadline);
            }
        }
        List<KeyValue<String, GuardState>> updates = new ArrayList<>();
        try (KeyValueIterator<String, GuardState> all = states.all()) {
            all.forEachRemaining(state -> {
                long[] counts = found.get(state.key);
                long held = counts == null ? 0 : counts[0];
                if (held != state.value.getHeld()) {
                    state.value.setHeld(held);
                    state.value.setEarliestHeld(counts == null ? null : Instant.ofEpochMilli(counts[1]));
                    state.value.setLatestHeld(counts == null ? null : Instant.ofEpochMilli(counts[2]));
                    updates.add(state);
                }
            });
        }
        updates.forEach(update -> states.put(update.key, update.value));
    }

    /**
     * Applies an operator's decision to the rule's held entries in this task: approved ones go to the deadlines
     * timeline at their (passed) deadline, so the next punctuation emits them within the throttle; rejected ones
     * leave the schedule. Either way the rule's window starts afresh. A decision already applied changes nothing.
     */
    void decide(GuardDecision decision, long now) {
        GuardState state = stateOf(decision.rule(), now);
        if (decision.id().equals(state.getLastDecision())) {
            LOG.debug(
                    "Task {}: guard decision {} on rule {} already applied",
                    context.taskId(),
                    decision.id(),
                    decision.rule());
            return;
        }
        long count = 0;
        try (KeyValueIterator<Bytes, ScheduleEntry> held = schedule.all(Timeline.AWAITING_APPROVAL)) {
            while (held.hasNext()) {
                KeyValue<Bytes, ScheduleEntry> next = held.next();
                if (!next.value.getRule().equals(decision.rule())) {
                    continue;
                }
                Bytes ref = ScheduleKey.documentRefOf(next.key);
                if (decision.approve()) {
                    schedule.move(next.key, Timeline.DEADLINES, ScheduleKey.dueAtOf(next.key), next.value);
                    sensors.approved.record();
                } else {
                    schedule.removeAt(next.key);
                    sensors.rejected.record();
                }
                audit.write(
                        ref,
                        next.value,
                        decision.approve() ? ExpiryOutcome.APPROVED : ExpiryOutcome.REJECTED,
                        now,
                        next.value.getAttempts(),
                        null);
                count++;
            }
        }
        state.setHeld(0);
        state.setEarliestHeld(null);
        state.setLatestHeld(null);
        state.setWindowStart(Instant.ofEpochMilli(now));
        state.setWindowCount(0);
        state.setPreviousCount(0);
        state.setLastDecision(decision.id());
        states.put(decision.rule(), state);
        heldSeen.remove(decision.rule());
        LOG.info(
                "Task {}: guard decision {}: {} {} held entries of rule {}",
                context.taskId(),
                decision.id(),
                decision.approve() ? "released" : "rejected",
                count,
                decision.rule());
    }

    /**
     * Logs each rule's hold once its count has settled (the same at two punctuations in a row), with the count and
     * the earliest and latest deadline, so that a mass arriving over many records is one line, not one per record.
     */
    void punctuate() {
        try (KeyValueIterator<String, GuardState> all = states.all()) {
            while (all.hasNext()) {
                KeyValue<String, GuardState> next = all.next();
                long held = next.value.getHeld();
                long[] seen = heldSeen.computeIfAbsent(next.key, rule -> new long[] {0, 0});
                if (held > 0 && held == seen[0] && held != seen[1]) {
                    LOG.warn(
                            "Task {}: rule {} holds {} documents that came due on arrival past its blast-radius"
                                    + " limit, deadlines {} to {}; no delete command until an operator decides:"
                                    + " ttl-streams approve --rule {} (or --reject)",
                            context.taskId(),
                            next.key,
                            held,
                            next.value.getEarliestHeld(),
                            next.value.getLatestHeld(),
                            next.key);
                    seen[1] = held;
                }
                seen[0] = held;
            }
        }
    }

    private GuardState stateOf(String rule, long now) {
        GuardState state = states.get(rule);
        return state != null ? state : new GuardState(Instant.ofEpochMilli(now), 0, 0, 0L, null, null, null);
    }

    /** Moves the window on to the one holding {@code now}: the current count becomes the previous one, or both go. */
    private static void slide(GuardState state, long now, long window) {
        long start = state.getWindowStart().toEpochMilli();
        if (now < start + window) {
            return;
        }
        long windows = (now - start) / window;
        state.setPreviousCount(windows == 1 ? state.getWindowCount() : 0);
        state.setWindowCount(0);
        state.setWindowStart(Instant.ofEpochMilli(start + windows * window));
    }

    /**
     * Entries that flowed in the sliding window ending at {@code now}: the current window's, plus the previous one's
     * weighted by how much of it the sliding window still covers.
     */
    private static double flowed(GuardState state, long now, long window) {
        double overlap = 1.0 - (double) (now - state.getWindowStart().toEpochMilli()) / window;
        return state.getWindowCount() + state.getPreviousCount() * Math.max(0, overlap);
    }
}

package io.ttlstreams.processor;

import io.ttlstreams.config.GuardLimit;
import io.ttlstreams.schema.GuardState;
import io.ttlstreams.schema.HeldCount;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.EntryState;
import io.ttlstreams.state.ExpirySchedule;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blast-radius guard: no mistake can mass-delete. An entry is <em>due on arrival</em> when its deadline had
 * already passed when the schedule learnt of it, or of its new deadline (a shortened offset, a resync of old data, a
 * value in the wrong unit); organic deadlines, which the schedule knew before they came, are not its business. Per
 * rule, due-on-arrival entries flow up to the task's share of the rule's limit in a sliding window; past it, the rule
 * is tripped and every due-on-arrival entry of it is held, {@link EntryState#AWAITING_APPROVAL}: no
 * delete command, counted, audited, logged once the mass settles, until an operator's {@link GuardDecision} releases
 * the entries (scheduled again, where the throttle applies) or rejects them (they leave the schedule, and
 * their document's next change schedules them again).
 *
 * <p>Its state is the held entries themselves, in the schedule, which counts them ({@link ExpirySchedule#held},
 * {@link ExpirySchedule#holds}), and one {@link GuardState} per rule in the {@code guard-state} store, which this
 * guard alone writes (the window's counts and the last decision applied), both changelogged, so a restart or a
 * rebalance keeps every hold.
 */
final class BlastRadiusGuard implements Admission {

    private static final Logger LOG = LoggerFactory.getLogger(BlastRadiusGuard.class);

    private final SchedulerSettings settings;
    private final ExpirySchedule schedule;
    private final KeyValueStore<String, GuardState> states;
    private final Outcomes outcomes;
    private final TaskId task;
    /** Per rule, the held count at the previous punctuation and the one last logged: a mass is logged once settled. */
    private final Map<String, long[]> heldSeen = new HashMap<>();

    BlastRadiusGuard(
            SchedulerSettings settings,
            ExpirySchedule schedule,
            KeyValueStore<String, GuardState> states,
            Outcomes outcomes,
            TaskId task) {
        this.settings = settings;
        this.schedule = schedule;
        this.states = states;
        this.outcomes = outcomes;
        this.task = task;
    }

    @Override
    public EntryState admit(Bytes ref, ScheduleEntry entry, long deadline, long learntAt, long now) {
        if (deadline > Math.min(learntAt, now)) {
            return EntryState.SCHEDULED;
        }
        GuardLimit limit = settings.guardLimit(entry.getRule());
        if (!limit.enabled()) {
            return EntryState.SCHEDULED;
        }
        GuardState state = stateOf(entry.getRule(), now);
        long window = limit.window().toMillis();
        slide(state, now, window);
        if (schedule.held(entry.getRule(), ref) == 0
                && flowed(state, now, window) < limit.share(settings.partitions())) {
            state.setWindowCount(state.getWindowCount() + 1);
            states.put(entry.getRule(), state);
            return EntryState.SCHEDULED;
        }
        states.put(entry.getRule(), state);
        outcomes.heldForApproval(ref, entry, now);
        return EntryState.AWAITING_APPROVAL;
    }

    /**
     * Applies an operator's decision to the rule's held entries in this task: approved ones are scheduled again at
     * their (passed) deadline, so the next punctuation emits them within the throttle; rejected ones
     * leave the schedule. Either way the rule's window starts afresh. A decision already applied changes nothing.
     */
    void decide(GuardDecision decision, long now) {
        if (decision.id().equals(stateOf(decision.rule(), now).getLastDecision())) {
            LOG.debug("Task {}: guard decision {} on rule {} already applied", task, decision.id(), decision.rule());
            return;
        }
        long[] count = {0};
        schedule.forEachAwaitingApproval((held, entry) -> {
            if (!entry.getRule().equals(decision.rule())) {
                return;
            }
            if (decision.approve()) {
                schedule.moveTo(held, EntryState.SCHEDULED, held.dueAt(), entry);
            } else {
                schedule.remove(held);
            }
            outcomes.decided(held.documentRef(), entry, decision.approve(), now);
            count[0]++;
        });
        // Read after the entries left: the schedule counted them out.
        GuardState state = stateOf(decision.rule(), now);
        state.setWindowStart(Instant.ofEpochMilli(now));
        state.setWindowCount(0);
        state.setPreviousCount(0);
        state.setLastDecision(decision.id());
        states.put(decision.rule(), state);
        heldSeen.remove(decision.rule());
        LOG.info(
                "Task {}: guard decision {}: {} {} held entries of rule {}",
                task,
                decision.id(),
                decision.approve() ? "released" : "rejected",
                count[0],
                decision.rule());
    }

    /**
     * Logs each rule's hold once its count has settled (the same at two punctuations in a row), with the count and
     * the earliest and latest deadline, so that a mass arriving over many records is one line, not one per record.
     */
    void punctuate() {
        Map<String, HeldCount> holds = new HashMap<>();
        for (KeyValue<String, HeldCount> hold : schedule.holds()) {
            holds.put(hold.key, hold.value);
            long held = hold.value.getCount();
            long[] seen = heldSeen.computeIfAbsent(hold.key, rule -> new long[] {0, 0});
            if (held == seen[0] && held != seen[1]) {
                LOG.warn(
                        "Task {}: rule {} holds {} documents that came due on arrival past its blast-radius"
                                + " limit, deadlines {} to {}; no delete command until an operator decides:"
                                + " ttl-streams approve --rule {} (or --reject)",
                        task,
                        hold.key,
                        held,
                        hold.value.getEarliest(),
                        hold.value.getLatest(),
                        hold.key);
                seen[1] = held;
            }
            seen[0] = held;
        }
        // A rule that holds nothing any more: seen at 0, as a hold that starts again must settle anew.
        heldSeen.forEach((rule, seen) -> {
            if (!holds.containsKey(rule)) {
                seen[0] = 0;
            }
        });
    }

    private GuardState stateOf(String rule, long now) {
        GuardState state = states.get(rule);
        return state != null ? state : new GuardState(Instant.ofEpochMilli(now), 0, 0, null);
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

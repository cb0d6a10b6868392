package io.ttlstreams.processor;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.readback.ReadBackInbox;
import io.ttlstreams.readback.ReadRequest;
import io.ttlstreams.readback.ReadResult;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentEntry;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.EntryState;
import io.ttlstreams.state.ExpirySchedule;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains what is due in the expiry schedule at each punctuation: emits the delete commands of passed deadlines and
 * follows each until the change stream confirms the delete, with retries and, when on, read-backs.
 *
 * <p>The schedule hands it what is due ({@link ExpirySchedule#drainDue}): the cost is in the due entries, not in the
 * size of the schedule. A due deadline emits the delete command and its entry awaits its first confirmation ({@link
 * ExpirySchedule#firstCommandOut}); the document's delete event confirms it; a confirmation that does not come in
 * time is handed over again, and the command goes out again, {@link EntryState#AWAITING_CONFIRMATION} with a doubling
 * wait, until the attempts are spent. Each run is bounded in entries and in time, throttled when asked, and paced
 * while the sink does not write and as it recovers ({@link EmissionPacer}), so a backlog drains over several runs
 * while records keep being processed.
 *
 * <p>With read-back ({@link SchedulerSettings#readBack()}), a confirmation that does not come in time first asks
 * MongoDB what the document holds, off the stream thread, and the entry waits one more confirmation timeout for the
 * answer, which a later punctuation applies ({@link ReadBackVerdict}): a document gone is confirmed, one holding the
 * entry's values gets its command again, one holding other values gets the deadline they give. So an event claiming
 * values the document does not hold delays its delete by a confirmation timeout, never cancels it. A read that fails
 * or goes unanswered falls back to emitting the command again.
 *
 * <p>In read-back mode ({@link SchedulerSettings#readsFirst()}), for sources that report no deletes, every command's
 * confirmation is overdue after the read delay, so every command is followed by a read, with the same verdicts; a
 * read that fails or goes unanswered is asked again a confirmation timeout later instead of emitting the command.
 */
final class DueDrain implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DueDrain.class);

    private final SchedulerSettings settings;
    private final TtlStreamsConfig config;
    /** Read once: a config lookup per command was 4–5 % of a mass drain's punctuation samples. */
    private final boolean dryRun;

    private final CommandSizeBound commandBound;
    private final ExpirySchedule schedule;
    private final Optional<DeleteThrottle> throttle;
    private final EmissionPacer pacer;
    private final RuleCheck rules;
    private final Admission guard;
    private final Outcomes outcomes;
    private final ProcessorContext<String, Object> context;
    private final String deletesSink;
    /** Answers of the read-back thread for this task; drained by the punctuator. */
    private final ReadBackInbox inbox = new ReadBackInbox();
    /**
     * The read asked for each document awaiting one: an answer to any other is stale. In memory only: after a restart
     * an entry is simply read again when it comes overdue.
     */
    private final Map<Bytes, ReadRequest> pendingReads = new HashMap<>();

    DueDrain(
            SchedulerSettings settings,
            CommandSizeBound commandBound,
            ExpirySchedule schedule,
            Optional<DeleteThrottle> throttle,
            EmissionPacer pacer,
            RuleCheck rules,
            Admission guard,
            Outcomes outcomes,
            ProcessorContext<String, Object> context,
            String deletesSink) {
        this.settings = settings;
        this.config = settings.config();
        this.dryRun = config.dryRun();
        this.commandBound = commandBound;
        this.schedule = schedule;
        this.throttle = throttle;
        this.pacer = pacer;
        this.rules = rules;
        this.guard = guard;
        this.outcomes = outcomes;
        this.context = context;
        this.deletesSink = deletesSink;
    }

    /**
     * Handles what is due at {@code now} — answers of read-backs first, so that a deadline they find due goes out in
     * this run, then deadlines, then confirmations that did not come — within this run's budget; what is left waits
     * for the next run.
     *
     * @param startedNanos when the punctuation started, on the settings' nano clock
     * @param maxNanos how long it may take ({@link PunctuationTimeShare})
     */
    void punctuate(long now, long startedNanos, long maxNanos) {
        int budget = config.punctuateMaxEntries();
        if (throttle.isPresent()) {
            budget = Math.min(budget, throttle.get().available(now));
        }
        budget = pacer.budget(now, settings.sink().writing(now), budget);
        PunctuationBudget run = new PunctuationBudget(budget, startedNanos, maxNanos, settings.nanoClock());
        readBackAnswers(now, run);
        notices(now, startedNanos, maxNanos);
        try {
            schedule.drainDue(now, now - settings.confirmWaitMillis(1), new ExpirySchedule.DueHandler() {
                @Override
                public boolean more() {
                    return run.left();
                }

                @Override
                public void deadlinePassed(DocumentEntry due, ScheduleEntry entry) {
                    DueDrain.this.deadlinePassed(due, entry, now, run);
                    run.handled();
                }

                @Override
                public void confirmationOverdue(DocumentEntry due, ScheduleEntry entry) {
                    DueDrain.this.confirmationOverdue(due, entry, now, run);
                    run.handled();
                }
            });
        } finally {
            outcomes.punctuated();
        }
        throttle.ifPresent(t -> t.consume(now, run.commands()));
        pacer.ran(run.commands(), run.spent());
        if (run.commands() > 0) {
            LOG.debug("Punctuation at {} in task {} emitted {} delete commands", now, context.taskId(), run.commands());
        }
    }

    /**
     * Publishes the notices due at {@code now}. Not throttled: a notice deletes nothing, and the throttle protects
     * MongoDB's write load; bounded by a budget of their own, of the punctuation's entries, within its time, so that
     * a throttle at rest delays no notice and notices take no deadline's place.
     */
    private void notices(long now, long startedNanos, long maxNanos) {
        PunctuationBudget run =
                new PunctuationBudget(config.punctuateMaxEntries(), startedNanos, maxNanos, settings.nanoClock());
        schedule.drainNotices(now, run::left, (ref, notice, noticeAt, current) -> {
            if (current) {
                outcomes.noticeDue(ref, notice, noticeAt, now);
            }
            run.handled();
        });
    }

    /**
     * A deadline passed: the command goes out (unless the rules changed meanwhile), and awaits confirmation — where
     * the entry is, for a first command of the entry as stored; with the entry as sent otherwise.
     */
    private void deadlinePassed(DocumentEntry due, ScheduleEntry scanned, long now, PunctuationBudget run) {
        ScheduleEntry entry = rules.current(due, scanned, now);
        if (entry == null || isTooLargeToSend(due, entry)) {
            return;
        }
        if (dryRun) {
            schedule.remove(due);
            outcomes.dryRun(due.documentRef(), entry, now);
            return;
        }
        ScheduleEntry sent = send(due.documentRef(), entry, now, run);
        outcomes.emitted(due.documentRef(), sent, now);
        if (entry == scanned && entry.getAttempts() == 0) {
            // What the store holds is what a first command needs: it stays, and reads as emitted now.
            schedule.firstCommandOut(due, now);
        } else {
            awaitConfirmation(due, sent, now);
        }
    }

    /** The command of {@code sent} went out: its confirmation is awaited for the wait of its attempt. */
    private void awaitConfirmation(DocumentEntry current, ScheduleEntry sent, long now) {
        schedule.moveTo(
                current, EntryState.AWAITING_CONFIRMATION, now + settings.confirmWaitMillis(sent.getAttempts()), sent);
    }

    /**
     * No delete event came in time: the document is read back, or, without read-back, the same command goes out again,
     * or, after the last attempt, the entry goes.
     */
    private void confirmationOverdue(DocumentEntry due, ScheduleEntry entry, long now, PunctuationBudget run) {
        if (rules.current(due, entry, now) == null) {
            return;
        }
        if (settings.readBack().isPresent() && readBackAsked(due, entry, now)) {
            return;
        }
        if (settings.readsFirst()) {
            waitAnotherTimeout(due, entry, now);
            return;
        }
        retryOrGiveUp(due, entry, now, run);
    }

    /**
     * The entry waits a confirmation timeout, spending no attempt and emitting nothing: in read-back mode when a read
     * could not be asked or told nothing (without delete events only a read can confirm, so a MongoDB that cannot be
     * read delays the confirmation), and whenever the sink does not write.
     */
    private void waitAnotherTimeout(DocumentEntry current, ScheduleEntry entry, long now) {
        schedule.moveTo(
                current,
                EntryState.AWAITING_CONFIRMATION,
                now + config.confirmTimeout().toMillis(),
                entry);
    }

    /**
     * Asks the read-back service for the document, and moves its entry one confirmation timeout on to await the
     * answer. Returns false, to retry as without read-back, when the service refuses the request or the entry's
     * previous read went unanswered for that long.
     */
    private boolean readBackAsked(DocumentEntry due, ScheduleEntry entry, long now) {
        Bytes ref = due.documentRef();
        ReadRequest previous = pendingReads.remove(ref);
        if (previous != null && previous.isFor(entry)) {
            outcomes.count(TtlMetrics.READ_BACKS_FAILED);
            return false;
        }
        ReadRequest request = ReadRequest.of(ref, schedule.namespaces().namespaceOf(ref), entry, inbox);
        if (!settings.readBack().orElseThrow().submit(request)) {
            outcomes.count(TtlMetrics.READ_BACKS_FAILED);
            return false;
        }
        outcomes.count(TtlMetrics.READ_BACKS);
        pendingReads.put(ref, request);
        waitAnotherTimeout(due, entry, now);
        return true;
    }

    /** Applies the read-backs' answers that came for this task; an answer for an entry that changed is dropped. */
    private void readBackAnswers(long now, PunctuationBudget run) {
        while (run.left()) {
            ReadResult answer = inbox.poll();
            if (answer == null) {
                return;
            }
            readBackAnswered(answer, now, run);
            run.handled();
        }
    }

    private void readBackAnswered(ReadResult answer, long now, PunctuationBudget run) {
        ReadRequest request = answer.request();
        Bytes ref = request.documentRef();
        if (!pendingReads.remove(ref, request)) {
            return;
        }
        DocumentEntry current = schedule.find(ref);
        if (current == null || !current.state().awaitsConfirmation()) {
            return;
        }
        ScheduleEntry entry = schedule.entryOf(current);
        if (entry == null || !request.isFor(entry)) {
            return;
        }
        ReadBackVerdict verdict = verdictOn(answer, entry, now);
        switch (verdict.kind()) {
            case GONE -> {
                schedule.remove(current);
                outcomes.confirmedByRead(ref, entry, now);
            }
            case MOVED -> {
                outcomes.rescheduledByRead(ref, entry, false, now);
                // The schedule learns the read's deadline now: one already passed is due on arrival.
                EntryState admitted = guard.admit(ref, verdict.entry(), verdict.deadline(), now, now);
                schedule.moveTo(current, admitted, verdict.deadline(), verdict.entry());
            }
            case NOT_EXPIRING -> {
                schedule.remove(current);
                outcomes.rescheduledByRead(ref, entry, true, now);
            }
            case FAILED -> {
                outcomes.count(TtlMetrics.READ_BACKS_FAILED);
                if (settings.readsFirst()) {
                    waitAnotherTimeout(current, entry, now);
                } else {
                    retryOrGiveUp(current, entry, now, run);
                }
            }
            default -> retryOrGiveUp(current, entry, now, run);
        }
    }

    /**
     * The verdict of {@code answer} on {@code entry}. A document the rules cannot evaluate (nested past what they
     * handle, say) tells nothing: the read counts as failed, and the command goes out again as without read-back.
     */
    private ReadBackVerdict verdictOn(ReadResult answer, ScheduleEntry entry, long now) {
        try {
            return ReadBackVerdict.of(answer, entry, config.rules(), Instant.ofEpochMilli(now));
        } catch (RuntimeException | Error e) {
            if (!DeadLetters.isCausedByRecord(e)) {
                throw e;
            }
            LOG.warn(
                    "Task {}: could not evaluate the rules on {} of {} as read back; retrying its delete",
                    context.taskId(),
                    DocumentRef.documentKeyOf(answer.request().documentRef(), entry)
                            .toJson(),
                    answer.request().namespace(),
                    e);
            return ReadBackVerdict.FAILED;
        }
    }

    /**
     * The same command goes out again, or, after the last attempt, the entry goes; while the sink does not write, the
     * entry waits a confirmation timeout instead, spending no attempt: the commands already sent are still queued for
     * it, and an outage must not use up the attempts.
     */
    private void retryOrGiveUp(DocumentEntry current, ScheduleEntry entry, long now, PunctuationBudget run) {
        if (!settings.sink().writing(now)) {
            waitAnotherTimeout(current, entry, now);
            return;
        }
        Bytes ref = current.documentRef();
        if (entry.getAttempts() < config.confirmMaxAttempts()) {
            ScheduleEntry sent = send(ref, entry, now, run);
            outcomes.reemitted(ref, sent, now);
            awaitConfirmation(current, sent, now);
            return;
        }
        schedule.remove(current);
        outcomes.unconfirmed(ref, entry, now);
        LOG.warn(
                "Task {}: no delete of {} in {} confirmed after {} delete commands (rule {}, deadline {}); giving up",
                context.taskId(),
                DocumentRef.documentKeyOf(ref, entry).toJson(),
                schedule.namespaces().namespaceOf(ref),
                entry.getAttempts(),
                entry.getRule(),
                Instant.ofEpochMilli(ScheduleEntries.deadlineOf(entry)));
    }

    /**
     * Whether the entry's command is over the record bound, in which case the entry goes: an entry is checked when it
     * is scheduled, but the bound is the producer's {@code max.request.size}, which may have been lowered since, and
     * an entry too large to send would otherwise fail every punctuation that tries to send it.
     */
    private boolean isTooLargeToSend(DocumentEntry due, ScheduleEntry entry) {
        Bytes ref = due.documentRef();
        Namespace namespace = schedule.namespaces().namespaceOf(ref);
        OptionalInt commandBytes = commandBound.excess(ref, namespace, entry);
        if (commandBytes.isEmpty()) {
            return false;
        }
        schedule.remove(due);
        outcomes.count(TtlMetrics.DEAD_LETTERED);
        LOG.warn(
                "Task {}: the entry of a document in {} (rule {}) is dropped: {}",
                context.taskId(),
                namespace,
                entry.getRule(),
                commandBound.refusal(commandBytes.getAsInt()));
        return true;
    }

    /**
     * Emits the entry's delete command, issued at {@code now} (a re-emission is a new command with its own issue
     * time, which the sink guard's validity counts from); returns the entry counting this attempt.
     */
    private ScheduleEntry send(Bytes ref, ScheduleEntry entry, long now, PunctuationBudget run) {
        DeleteCommand command =
                ScheduleEntries.command(ref, schedule.namespaces().namespaceOf(ref), entry, now, markField(entry));
        context.forward(new Record<String, Object>(command.keyJson(), command, now), deletesSink);
        run.commandSent();
        return ExpirySchedule.emitted(entry, now);
    }

    /** The field the entry's command marks, for an entry of a mark rule not yet marked; null for a delete. */
    private String markField(ScheduleEntry entry) {
        return config.rules()
                .rule(entry.getRule())
                .filter(rule -> rule.marks(ScheduleEntries.conditionOf(entry)))
                .map(rule -> rule.mark().field())
                .orElse(null);
    }

    @Override
    public void close() {
        inbox.close();
        pendingReads.clear();
    }
}

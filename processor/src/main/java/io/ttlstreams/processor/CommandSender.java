package io.ttlstreams.processor;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.ExpirySchedule;
import io.ttlstreams.state.ScheduleKey;
import java.util.OptionalInt;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a due schedule entry into its delete command record for {@link DueDrain}: refuses an entry whose command no
 * record could carry, forwards the command to the deletes sink, and audits the emission. Where the entry goes next is
 * the drain's.
 */
final class CommandSender {

    private static final Logger LOG = LoggerFactory.getLogger(CommandSender.class);

    private final CommandSizeBound commandBound;
    private final ExpirySchedule schedule;
    private final SchedulerSensors sensors;
    private final AuditWriter audit;
    private final ProcessorContext<String, Object> context;
    private final String deletesSink;

    /**
     * @param task the schedule, from which an entry too large to send is removed, where each emission is counted and
     *     audited, and the context that forwards to {@code deletesSink}
     * @param commandBound the bound on a command's record
     * @param deletesSink the node the commands go to
     */
    CommandSender(TaskScope task, CommandSizeBound commandBound, String deletesSink) {
        this.commandBound = commandBound;
        this.schedule = task.schedule();
        this.sensors = task.sensors();
        this.audit = task.audit();
        this.context = task.context();
        this.deletesSink = deletesSink;
    }

    /**
     * Whether the entry's command is over the record bound, in which case the entry goes: one stored before entries
     * were checked when scheduled would otherwise fail every punctuation that tries to send it.
     */
    boolean isTooLargeToSend(Bytes key, ScheduleEntry entry) {
        Bytes ref = ScheduleKey.documentRefOf(key);
        OptionalInt commandBytes = commandBound.excess(ref, entry);
        if (commandBytes.isEmpty()) {
            return false;
        }
        schedule.removeAt(key);
        sensors.deadLettered.record();
        LOG.warn(
                "Task {}: the entry of a document in {} (rule {}) is dropped: {}",
                context.taskId(),
                DocumentRef.namespaceOf(ref),
                entry.getRule(),
                commandBound.refusal(commandBytes.getAsInt()));
        return true;
    }

    /**
     * Emits the entry's delete command, issued at {@code now} (a re-emission is a new command with its own issue
     * time, which the sink guard's validity counts from), and its audit event; returns the entry counting this
     * attempt.
     */
    ScheduleEntry send(Bytes key, ScheduleEntry entry, long now, PunctuationBudget run) {
        Bytes ref = ScheduleKey.documentRefOf(key);
        DeleteCommand command = ScheduleEntries.command(ref, entry, now);
        context.forward(new Record<String, Object>(command.keyJson(), command, now), deletesSink);
        ScheduleEntry sent = ScheduleEntries.emitted(entry, now);
        audit.write(ref, sent, ExpiryOutcome.EMITTED, now, sent.getAttempts(), null);
        run.commandSent();
        return sent;
    }
}

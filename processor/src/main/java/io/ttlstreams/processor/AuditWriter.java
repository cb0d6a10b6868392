package io.ttlstreams.processor;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.schema.ExpiryEvent;
import io.ttlstreams.schema.ExpiryOutcome;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.ExpirySchedule;
import java.time.Instant;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/** Writes the audit event of each step in a document's expiry to the audit sink, when the audit topic is enabled. */
final class AuditWriter {

    private final boolean enabled;
    private final ProcessorContext<String, Object> context;
    private final String sink;
    /** Whose dictionary gives the namespaces of references back. */
    private final ExpirySchedule schedule;

    AuditWriter(boolean enabled, ProcessorContext<String, Object> context, String sink, ExpirySchedule schedule) {
        this.enabled = enabled;
        this.schedule = schedule;
        this.context = context;
        this.sink = sink;
    }

    /**
     * Writes that the entry of the document at {@code ref} came to {@code outcome} at {@code now}.
     *
     * @param attempt the delete commands sent for the entry so far
     * @param lagMillis how late the outcome came after the deadline, when known
     */
    void write(Bytes ref, ScheduleEntry entry, ExpiryOutcome outcome, long now, int attempt, Long lagMillis) {
        if (!enabled) {
            return;
        }
        String documentKey = CanonicalJson.of(DocumentRef.documentKeyOf(ref, entry));
        context.forward(
                new Record<String, Object>(
                        documentKey,
                        new ExpiryEvent(
                                schedule.namespaces().namespaceOf(ref).toString(),
                                documentKey,
                                entry.getRule(),
                                Instant.ofEpochMilli(ScheduleEntries.deadlineOf(entry)),
                                Instant.ofEpochMilli(now),
                                outcome,
                                attempt,
                                lagMillis),
                        now),
                sink);
    }
}

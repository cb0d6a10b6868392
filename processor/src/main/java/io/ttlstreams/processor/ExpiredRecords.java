package io.ttlstreams.processor;

import io.ttlstreams.config.ExpiredDocument;
import io.ttlstreams.config.ExpiryEvents;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.rules.TtlRules;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.ExpirySchedule;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.OptionalLong;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * Writes one expired record per confirmed expiry to the expired-records sink, when {@code ttl.expired.topic} is on:
 * the versioned JSON contract of docs/expiry-events.md, keyed by namespace and document key, so that one document's
 * records share a partition and keep their order. Forwarded in the same transaction as the schedule's change that
 * confirms the delete, so under exactly-once processing a confirmed expiry gives exactly one record.
 *
 * <p>The value is relaxed extended JSON, which the stock JSON and String converters read: times are ISO-8601 strings,
 * numbers plain, and the document's own values keep their BSON type where JSON has none ({@code {"$oid": ...}},
 * {@code {"$date": ...}}).
 */
final class ExpiredRecords {

    /** The contract's version: a consumer refuses what it does not know. */
    static final int VERSION = 1;

    /** How the delete was confirmed: its delete event. */
    static final String BY_CHANGE_STREAM = "change-stream";
    /** How the delete was confirmed: a read found the document gone (its delete event never came). */
    static final String BY_READ_BACK = "read-back";

    /** {@code documentState}: the document is the delete event's pre-image. */
    static final String STATE_PRE_IMAGE = "pre-image";
    /** {@code documentState}: the rule asks for no document. */
    static final String STATE_NOT_REQUESTED = "not-requested";
    /** {@code documentState}: the rule asks for the pre-image, and the delete event carried none. */
    static final String STATE_NO_PRE_IMAGE = "no-pre-image";
    /**
     * {@code documentState}: the rule asks for the pre-image, and it was too large to carry: the source pipeline put a
     * marker in its place (a pre-image over {@code ChangeStreamPipeline.PRE_IMAGE_MAX_BYTES} of BSON), or the record
     * with it as extended JSON would exceed what the producer sends.
     */
    static final String STATE_TOO_LARGE = "too-large";
    /** {@code documentState}: confirmed by a read, which finds nothing, so there is no last state to give. */
    static final String STATE_READ_BACK = "confirmed-by-read-back";

    private static final JsonWriterSettings RELAXED =
            JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private final ExpiryEvents events;
    private final ExpirySchedule schedule;
    private final TtlRules rules;
    private final ProcessorContext<String, Object> context;
    private final String sink;
    /** The most bytes a record's key and value may take: the producer's limit less its framing. */
    private final int maxRecordBytes;

    /** @param maxRecordBytes the largest record the producer sends: its {@code max.request.size} */
    ExpiredRecords(
            ExpiryEvents events,
            ExpirySchedule schedule,
            TtlRules rules,
            ProcessorContext<String, Object> context,
            String sink,
            int maxRecordBytes) {
        this.events = events;
        this.maxRecordBytes = maxRecordBytes - CommandSizeBound.RESERVED_BYTES;
        this.schedule = schedule;
        this.rules = rules;
        this.context = context;
        this.sink = sink;
    }

    /**
     * The change stream reported the delete (or, for a mark command, the mark) of the document at {@code ref}, whose
     * command awaited it. A mark is an {@code EXPIRED} record with {@code "action": "mark"}; the delete of a marked
     * document after its grace period a {@code PURGED} one.
     *
     * @param deletedAt the delete event's time
     * @param preImage the event's pre-image; null when it carried none
     * @param preImageTooLarge whether {@code preImage} is the marker of a pre-image too large to carry
     * @param now when the processor saw the event
     * @return whether a record was written: false when expired records are off
     */
    boolean confirmedByChangeStream(
            Bytes ref,
            ScheduleEntry entry,
            Instant deletedAt,
            BsonDocument preImage,
            boolean preImageTooLarge,
            long now) {
        if (events.topic().isEmpty()) {
            return false;
        }
        boolean wanted = events.document(entry.getRule()) == ExpiredDocument.PRE_IMAGE;
        if (wanted && preImageTooLarge) {
            write(ref, entry, deletedAt, BY_CHANGE_STREAM, null, STATE_TOO_LARGE, now);
            return true;
        }
        String state = !wanted ? STATE_NOT_REQUESTED : preImage == null ? STATE_NO_PRE_IMAGE : STATE_PRE_IMAGE;
        write(ref, entry, deletedAt, BY_CHANGE_STREAM, wanted ? preImage : null, state, now);
        return true;
    }

    /**
     * A read found the document at {@code ref} gone at {@code now}: its record carries no document, and says so.
     * Returns whether a record was written.
     */
    boolean confirmedByReadBack(Bytes ref, ScheduleEntry entry, long now) {
        if (events.topic().isEmpty()) {
            return false;
        }
        write(ref, entry, Instant.ofEpochMilli(now), BY_READ_BACK, null, STATE_READ_BACK, now);
        return true;
    }

    /** When the notice of {@code entry}'s {@code deadline} is due; empty when its rule publishes none. */
    OptionalLong noticeAt(ScheduleEntry entry, long deadline) {
        if (events.topic().isEmpty()) {
            return OptionalLong.empty();
        }
        OptionalLong before = events.noticeBeforeSeconds(entry.getRule());
        return before.isEmpty() ? before : OptionalLong.of(deadline - before.getAsLong() * 1000);
    }

    /**
     * Publishes the {@code EXPIRING} record of the notice of the document at {@code ref}, due at {@code noticeAt}, of
     * the deadline it still has.
     */
    void notice(Bytes ref, ScheduleEntry notice, long noticeAt, long now) {
        BsonDocument value = value(ref, notice, true)
                .append(
                        "noticeAt",
                        new BsonString(Instant.ofEpochMilli(noticeAt).toString()))
                .append("sentAt", new BsonString(Instant.ofEpochMilli(now).toString()));
        context.forward(new Record<String, Object>(key(value), value.toJson(RELAXED), now), sink);
    }

    private void write(
            Bytes ref,
            ScheduleEntry entry,
            Instant confirmedAt,
            String confirmedBy,
            BsonDocument document,
            String documentState,
            long now) {
        BsonDocument value = value(ref, entry, false)
                .append("confirmedAt", new BsonString(confirmedAt.toString()))
                .append("confirmedBy", new BsonString(confirmedBy))
                .append(
                        "lateMillis",
                        new BsonInt64(Math.max(0, confirmedAt.toEpochMilli() - ScheduleEntries.deadlineOf(entry))))
                .append("attempts", new BsonInt32(entry.getAttempts()))
                .append("documentState", new BsonString(documentState))
                .append("document", document == null ? BsonNull.VALUE : document);
        String key = key(value);
        String json = value.toJson(RELAXED);
        if (document != null && utf8Length(key) + utf8Length(json) > maxRecordBytes) {
            // One record the producer cannot send would fail the transaction, and the task, at every retry: the
            // document goes, the record stays, and says why.
            value.put("documentState", new BsonString(STATE_TOO_LARGE));
            value.put("document", BsonNull.VALUE);
            json = value.toJson(RELAXED);
        }
        context.forward(new Record<String, Object>(key, json, now), sink);
    }

    /**
     * The fields every record of the document at {@code ref} begins with, from its entry: an {@code EXPIRING} one for
     * a {@code notice}, else {@code EXPIRED}, or {@code PURGED} for the delete of a document its rule marked.
     */
    private BsonDocument value(Bytes ref, ScheduleEntry entry, boolean notice) {
        TtlRule rule = rules.rule(entry.getRule()).orElse(null);
        boolean marks = rule != null && rule.marks(ScheduleEntries.conditionOf(entry));
        boolean purges = rule != null && rule.mark() != null && !marks;
        return new BsonDocument()
                .append("version", new BsonInt32(VERSION))
                .append("type", new BsonString(notice ? "EXPIRING" : purges ? "PURGED" : "EXPIRED"))
                .append("action", new BsonString(marks ? "mark" : "delete"))
                .append("cause", new BsonString("ttl"))
                .append(
                        "namespace",
                        new BsonString(schedule.namespaces().namespaceOf(ref).toString()))
                .append("documentKey", DocumentRef.documentKeyOf(ref, entry))
                .append("rule", new BsonString(entry.getRule()))
                .append(
                        "deadline",
                        new BsonString(Instant.ofEpochMilli(ScheduleEntries.deadlineOf(entry))
                                .toString()));
    }

    /**
     * The record key of {@code value}: {@code {"namespace": "db.coll", "documentKey": {...}}} as canonical extended
     * JSON, one string per document, which a sink can use as its primary key.
     */
    private static String key(BsonDocument value) {
        return CanonicalJson.of(
                new BsonDocument("namespace", value.get("namespace")).append("documentKey", value.get("documentKey")));
    }

    private static int utf8Length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}

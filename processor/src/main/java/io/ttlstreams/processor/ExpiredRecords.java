package io.ttlstreams.processor;

import io.ttlstreams.config.ExpiredDocument;
import io.ttlstreams.config.ExpiryEvents;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.rules.TtlRules;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.ExpirySchedule;
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
import org.bson.BsonValue;
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
    /** {@code documentState}: confirmed by a read, which finds nothing, so there is no last state to give. */
    static final String STATE_READ_BACK = "confirmed-by-read-back";

    private static final JsonWriterSettings RELAXED =
            JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    private final ExpiryEvents events;
    private final ExpirySchedule schedule;
    private final TtlRules rules;
    private final ProcessorContext<String, Object> context;
    private final SchedulerSensors sensors;
    private final String sink;

    ExpiredRecords(
            ExpiryEvents events,
            ExpirySchedule schedule,
            TtlRules rules,
            ProcessorContext<String, Object> context,
            SchedulerSensors sensors,
            String sink) {
        this.events = events;
        this.schedule = schedule;
        this.rules = rules;
        this.context = context;
        this.sensors = sensors;
        this.sink = sink;
    }

    /**
     * Whether a delete event of a document whose command awaited confirmation is that command's delete, as far as
     * its pre-image tells: with none, it is taken to be; with one, only when the rules give the document as it was
     * the entry's rule and condition, which the conditional delete requires. A document holding other values was
     * deleted by another writer (the command could not have matched it); counted.
     */
    boolean causedByCommand(Bytes ref, ScheduleEntry entry, BsonDocument preImage, Instant eventTime) {
        if (preImage == null) {
            return true;
        }
        ExpiryDecision decision = rules.evaluate(schedule.namespaces().namespaceOf(ref), preImage, eventTime);
        boolean caused = decision.expires()
                && ScheduleEntries.sameCommand(
                        entry,
                        ScheduleEntries.of(decision, rules.rule(decision.rule()).orElseThrow()));
        if (!caused) {
            sensors.deletesNotCaused.record();
        }
        return caused;
    }

    /**
     * The change stream reported the delete (or, for a mark command, the mark) of the document at {@code ref}, whose
     * command awaited it. A mark is an {@code EXPIRED} record with {@code "action": "mark"}; the delete of a marked
     * document after its grace period a {@code PURGED} one.
     *
     * @param deletedAt the delete event's time
     * @param preImage the event's pre-image; null when it carried none
     * @param now when the processor saw the event
     */
    void confirmedByChangeStream(Bytes ref, ScheduleEntry entry, Instant deletedAt, BsonDocument preImage, long now) {
        if (events.topic().isEmpty()) {
            return;
        }
        boolean wanted = events.document(entry.getRule()) == ExpiredDocument.PRE_IMAGE;
        String state = !wanted ? STATE_NOT_REQUESTED : preImage == null ? STATE_NO_PRE_IMAGE : STATE_PRE_IMAGE;
        write(ref, entry, deletedAt, BY_CHANGE_STREAM, wanted ? preImage : null, state, now);
    }

    /** A read found the document at {@code ref} gone at {@code now}: its record carries no document, and says so. */
    void confirmedByReadBack(Bytes ref, ScheduleEntry entry, long now) {
        if (events.topic().isEmpty()) {
            return;
        }
        write(ref, entry, Instant.ofEpochMilli(now), BY_READ_BACK, null, STATE_READ_BACK, now);
    }

    /**
     * Puts the notice of the document's new deadline entry on the notices timeline, when its rule publishes notices
     * and the notice's time is still ahead: a deadline already closer than the notice period gets none.
     */
    void scheduleNotice(Bytes ref, ScheduleEntry entry, long deadline, long now) {
        if (events.topic().isEmpty()) {
            return;
        }
        OptionalLong before = events.noticeBeforeSeconds(entry.getRule());
        if (before.isEmpty()) {
            return;
        }
        long noticeAt = deadline - before.getAsLong() * 1000;
        if (noticeAt > now) {
            schedule.putNotice(ref, noticeAt, entry);
        }
    }

    /**
     * Publishes the {@code EXPIRING} record of the notice of the document at {@code ref}, due at {@code noticeAt}, of
     * the deadline it still has.
     */
    void notice(Bytes ref, ScheduleEntry notice, long noticeAt, long now) {
        Namespace namespace = schedule.namespaces().namespaceOf(ref);
        BsonDocument documentKey = DocumentRef.documentKeyOf(ref, notice);
        TtlRule rule = rules.rule(notice.getRule()).orElse(null);
        boolean marks = rule != null && rule.marks(ScheduleEntries.conditionOf(notice));
        BsonDocument value = new BsonDocument()
                .append("version", new BsonInt32(VERSION))
                .append("type", new BsonString("EXPIRING"))
                .append("action", new BsonString(marks ? "mark" : "delete"))
                .append("cause", new BsonString("ttl"))
                .append("namespace", new BsonString(namespace.toString()))
                .append("documentKey", documentKey)
                .append("rule", new BsonString(notice.getRule()))
                .append(
                        "deadline",
                        new BsonString(Instant.ofEpochMilli(ScheduleEntries.deadlineOf(notice))
                                .toString()))
                .append(
                        "noticeAt",
                        new BsonString(Instant.ofEpochMilli(noticeAt).toString()))
                .append("sentAt", new BsonString(Instant.ofEpochMilli(now).toString()));
        context.forward(new Record<String, Object>(key(namespace, documentKey), value.toJson(RELAXED), now), sink);
        sensors.notices.record();
    }

    private void write(
            Bytes ref,
            ScheduleEntry entry,
            Instant confirmedAt,
            String confirmedBy,
            BsonDocument document,
            String documentState,
            long now) {
        Namespace namespace = schedule.namespaces().namespaceOf(ref);
        BsonDocument documentKey = DocumentRef.documentKeyOf(ref, entry);
        long deadline = ScheduleEntries.deadlineOf(entry);
        TtlRule rule = rules.rule(entry.getRule()).orElse(null);
        boolean marks = rule != null && rule.marks(ScheduleEntries.conditionOf(entry));
        boolean purges = rule != null && rule.mark() != null && !marks;
        BsonDocument value = new BsonDocument()
                .append("version", new BsonInt32(VERSION))
                .append("type", new BsonString(purges ? "PURGED" : "EXPIRED"))
                .append("action", new BsonString(marks ? "mark" : "delete"))
                .append("cause", new BsonString("ttl"))
                .append("namespace", new BsonString(namespace.toString()))
                .append("documentKey", documentKey)
                .append("rule", new BsonString(entry.getRule()))
                .append(
                        "deadline",
                        new BsonString(Instant.ofEpochMilli(deadline).toString()))
                .append("confirmedAt", new BsonString(confirmedAt.toString()))
                .append("confirmedBy", new BsonString(confirmedBy))
                .append("lateMillis", new BsonInt64(Math.max(0, confirmedAt.toEpochMilli() - deadline)))
                .append("attempts", new BsonInt32(entry.getAttempts()))
                .append("documentState", new BsonString(documentState))
                .append("document", orNull(document));
        context.forward(new Record<String, Object>(key(namespace, documentKey), value.toJson(RELAXED), now), sink);
        sensors.expiredRecords.record();
    }

    /**
     * The record key: {@code {"namespace": "db.coll", "documentKey": {...}}} as canonical extended JSON, one string
     * per document, which a sink can use as its primary key.
     */
    static String key(Namespace namespace, BsonDocument documentKey) {
        return CanonicalJson.of(
                new BsonDocument("namespace", new BsonString(namespace.toString())).append("documentKey", documentKey));
    }

    private static BsonValue orNull(BsonDocument document) {
        return document == null ? BsonNull.VALUE : document;
    }
}

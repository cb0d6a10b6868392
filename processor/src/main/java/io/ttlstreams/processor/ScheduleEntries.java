package io.ttlstreams.processor;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.rules.Deadlines;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.rules.TtlRule;
import io.ttlstreams.schema.ScheduleEntry;
import io.ttlstreams.state.DocumentRef;
import io.ttlstreams.state.PinnedDate;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * Schedule entries and the {@link DeleteCommand}s they turn into.
 *
 * <p>An entry keeps the delete filter's condition as BSON, written on every change event, and becomes JSON only when
 * its command is emitted: writing JSON for every change was the largest cost of scheduling. A document key that is
 * {@code _id} alone is not repeated in the entry, the store key's {@link DocumentRef} holds it; one with more fields (a
 * sharded collection's shard key, then {@code _id}) is kept in the entry as the latest event reported it, because the
 * reference holds the {@code _id} alone.
 */
public final class ScheduleEntries {

    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();
    private static final EncoderContext ENCODER_CONTEXT =
            EncoderContext.builder().build();

    private ScheduleEntries() {}

    /** The entry for a document {@code decision} expires by {@code rule} (the decision's winning rule). */
    public static ScheduleEntry of(ExpiryDecision decision, TtlRule rule) {
        return of(decision, rule, rule.shape(), null);
    }

    /**
     * {@link #of(ExpiryDecision, TtlRule)} with the rule's {@link TtlRule#shape() shape} known already ({@link
     * io.ttlstreams.rules.TtlRules#shape}: it is a SHA-256 of the rule's definition, too dear for every event), for
     * the document whose latest event reported {@code documentKey}: kept in the entry when it holds more than {@code
     * _id} (see {@link DocumentRef#documentKeyOf}); null keeps none.
     */
    public static ScheduleEntry of(ExpiryDecision decision, TtlRule rule, long shape, BsonDocument documentKey) {
        if (!decision.expires() || !rule.name().equals(decision.rule())) {
            throw new IllegalArgumentException("An entry needs an expiring decision of rule " + rule.name());
        }
        return new ScheduleEntry(
                rule.name(),
                shape,
                decision.base(),
                decision.offsetSeconds(),
                decision.offsetFromRule(),
                bson(decision.condition()),
                0,
                null,
                beyondId(documentKey));
    }

    /**
     * Whether two entries give the same delete command: the same rule and the same condition, so that a document
     * holding {@code other}'s values is one {@code entry}'s conditional delete matches.
     */
    static boolean sameCommand(ScheduleEntry entry, ScheduleEntry other) {
        return entry.getRule().equals(other.getRule()) && entry.getCondition().equals(other.getCondition());
    }

    /**
     * The entry's deadline, epoch milliseconds: its base plus its offset. A stored entry's was checked when it was
     * scheduled; for one with a new offset, see {@link #movedDeadlineOf}.
     */
    public static long deadlineOf(ScheduleEntry entry) {
        return movedDeadlineOf(entry).orElseThrow();
    }

    /** The entry's deadline; empty when a changed offset puts it beyond the last representable instant. */
    public static OptionalLong movedDeadlineOf(ScheduleEntry entry) {
        return Deadlines.plusSeconds(entry.getBase().toEpochMilli(), entry.getOffsetSeconds());
    }

    /** The entry counted from the same base with another offset (the rule's changed expire.after.seconds). */
    public static ScheduleEntry withOffset(ScheduleEntry entry, long offsetSeconds) {
        return ScheduleEntry.newBuilder(entry).setOffsetSeconds(offsetSeconds).build();
    }

    /** The entry's condition as a document. */
    public static RawBsonDocument conditionOf(ScheduleEntry entry) {
        ByteBuffer condition = entry.getCondition().duplicate();
        byte[] bytes = new byte[condition.remaining()];
        condition.get(bytes);
        return new RawBsonDocument(bytes);
    }

    /**
     * The entry's condition as a document to read field by field: a field rule's usual condition, its base pinned
     * under its field ({@link PinnedDate}), built directly; any other decoded. Decoding every command's condition
     * through the codec was a fifth of the punctuation (the {@code CommandCostBench} profile).
     */
    static BsonDocument conditionFieldsOf(ScheduleEntry entry) {
        long base = entry.getBase().toEpochMilli();
        String field = PinnedDate.fieldOf(entry.getCondition(), base);
        if (field == null) {
            return conditionOf(entry);
        }
        return new BsonDocument(field, new BsonDocument("$eq", new BsonDateTime(base)));
    }

    /**
     * The command of the document {@code documentRef} names in {@code namespace} (its task's {@link
     * io.ttlstreams.state.NamespaceIds#namespaceOf}), from its entry, issued at {@code issuedAtMillis}: a mark command
     * setting {@code markField} when it is not null, else a delete command.
     */
    public static DeleteCommand command(
            Bytes documentRef, Namespace namespace, ScheduleEntry entry, long issuedAtMillis, String markField) {
        BsonDocument documentKey = DocumentRef.documentKeyOf(documentRef, entry);
        BsonDocument filter = new BsonDocument();
        for (Map.Entry<String, BsonValue> field : documentKey.entrySet()) {
            filter.append(field.getKey(), field.getValue());
        }
        for (Map.Entry<String, BsonValue> pinned : conditionFieldsOf(entry).entrySet()) {
            // A rule's field that is also a shard key field is pinned by the key's own literal already; replacing
            // that literal would make the filter differ from the key, which the sink guard refuses.
            if (!filter.containsKey(pinned.getKey())) {
                filter.append(pinned.getKey(), pinned.getValue());
            }
        }
        return new DeleteCommand(
                documentKey,
                filter,
                namespace,
                entry.getRule(),
                deadlineOf(entry),
                OptionalLong.of(issuedAtMillis),
                markField);
    }

    /** The key's BSON when it holds more than {@code _id}; null when it is {@code {_id}} alone (or null). */
    private static ByteBuffer beyondId(BsonDocument documentKey) {
        if (documentKey == null || (documentKey.size() == 1 && documentKey.containsKey("_id"))) {
            return null;
        }
        if (documentKey instanceof RawBsonDocument raw) {
            return raw.getByteBuffer().asNIO().duplicate();
        }
        return bson(documentKey);
    }

    private static ByteBuffer bson(BsonDocument document) {
        if (document.size() == 1) {
            // A field rule's usual condition, one date pinned under its field: written without the codec.
            Map.Entry<String, BsonValue> only = document.entrySet().iterator().next();
            if (only.getValue() instanceof BsonDocument pinned
                    && pinned.size() == 1
                    && pinned.get("$eq") instanceof BsonDateTime date
                    && only.getKey().indexOf(0) < 0
                    && !only.getKey().isEmpty()) {
                return PinnedDate.condition(only.getKey(), date.getValue());
            }
        }
        BasicOutputBuffer out = new BasicOutputBuffer(64);
        CODEC.encode(new BsonBinaryWriter(out), document, ENCODER_CONTEXT);
        return ByteBuffer.wrap(out.toByteArray());
    }
}

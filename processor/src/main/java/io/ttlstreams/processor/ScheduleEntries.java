package io.ttlstreams.processor;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.rules.ExpiryDecision;
import io.ttlstreams.schema.ScheduleEntry;
import java.nio.ByteBuffer;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * Schedule entries and the {@link DeleteCommand}s they turn into.
 *
 * <p>The delete filter is stored as BSON in the {@link ScheduleEntry} when a document is scheduled, which happens on
 * every change, and turned into JSON only when the command is emitted, at most once per document: writing JSON for
 * every change was the largest cost of scheduling.
 */
public final class ScheduleEntries {

    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private ScheduleEntries() {}

    /** The schedule entry for a document the rules expire. */
    public static ScheduleEntry scheduleEntry(BsonDocument documentKey, ExpiryDecision decision) {
        return scheduleEntry(documentKey, decision.condition(), decision.rule());
    }

    /**
     * The schedule entry of one document.
     *
     * @param documentKey the document key, {@code {"_id": ...}} plus any shard-key fields
     * @param condition what the document must still hold to be deleted (see {@link ExpiryDecision#condition()})
     * @param rule the rule that produced the deadline
     */
    public static ScheduleEntry scheduleEntry(BsonDocument documentKey, BsonDocument condition, String rule) {
        BsonDocument filter = documentKey.clone();
        filter.putAll(condition);
        BasicOutputBuffer bson = new BasicOutputBuffer(128);
        CODEC.encode(
                new BsonBinaryWriter(bson), filter, EncoderContext.builder().build());
        return new ScheduleEntry(rule, ByteBuffer.wrap(bson.getInternalBuffer(), 0, bson.getPosition()));
    }

    /** The delete command of a due entry. */
    public static DeleteCommand command(
            BsonDocument documentKey, Namespace namespace, long deadlineMs, ScheduleEntry entry) {
        ByteBuffer stored = entry.getDeleteFilter().duplicate();
        byte[] filter = new byte[stored.remaining()];
        stored.get(filter);
        return new DeleteCommand(documentKey, new RawBsonDocument(filter), namespace, entry.getRule(), deadlineMs);
    }
}

package io.ttlstreams.processor;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.ScheduleEntry;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;
import org.apache.kafka.common.utils.Bytes;

/**
 * The bound on a delete command's record: what the producer can send ({@code max.request.size}), less room for the
 * record's framing and signature headers. A command over it would fail in the producer with a {@code
 * RecordTooLargeException}, which under exactly-once aborts the punctuation's transaction and fails the stream
 * thread, again after every restart; so an entry whose command would not fit is refused before it is stored, and
 * one stored before this check existed is refused when it comes due.
 *
 * <p>A command is the document key (the record key, and again in the filter) plus the pinned values of the rule's
 * condition, as canonical extended JSON. Writing JSON for every scheduled entry is what scheduling avoids, so the
 * exact size is computed only when the BSON sizes, times the largest growth from BSON to extended JSON, could exceed
 * the bound.
 */
public final class CommandSizeBound {

    /**
     * Bytes of the producer's limit kept for what surrounds key and value: the record batch and record framing
     * (under 100 bytes) and the signature headers ({@code ttl.signature} with 64 hex characters, {@code
     * ttl.signature.key.id} with 16), with room to spare.
     */
    static final int RESERVED_BYTES = 2_048;

    /** What a command's value adds around filter and namespace: field names, the rule, the deadline, the issue time. */
    private static final int VALUE_OVERHEAD_BYTES = 256;

    private final int maxCommandBytes;

    /** @param maxRecordBytes the largest record the producer sends: its {@code max.request.size} */
    public CommandSizeBound(int maxRecordBytes) {
        if (maxRecordBytes <= RESERVED_BYTES) {
            throw new IllegalArgumentException("A delete command needs records of more than " + RESERVED_BYTES
                    + " bytes; the limit is " + maxRecordBytes);
        }
        this.maxCommandBytes = maxRecordBytes - RESERVED_BYTES;
    }

    /**
     * The size of the command of the document {@code documentRef} names in {@code namespace}, from {@code entry}, key and value in UTF-8,
     * when it is over the bound; empty when it fits.
     */
    public OptionalInt excess(Bytes documentRef, Namespace namespace, ScheduleEntry entry) {
        // The reference holds the key, as BSON or (a common _id) as its bare bytes, which grow no more than BSON
        // does; the key appears twice, the condition once, and the namespace, up to 3 UTF-8 bytes a char, as often
        // as the bound counted it when the reference held its text.
        long bsonBytes = 2L * documentRef.get().length
                + 6L
                        * (namespace.database().length()
                                + 1
                                + namespace.collection().length())
                + entry.getCondition().remaining()
                + entry.getRule().length()
                + VALUE_OVERHEAD_BYTES;
        if (bsonBytes * CanonicalJson.MAX_GROWTH <= maxCommandBytes) {
            return OptionalInt.empty();
        }
        // The latest issue time there is writes the longest date: the bound holds whenever the command is sent.
        DeleteCommand command = ScheduleEntries.command(documentRef, namespace, entry, Long.MAX_VALUE, null);
        int bytes = command.keyJson().getBytes(StandardCharsets.UTF_8).length
                + command.valueJson().getBytes(StandardCharsets.UTF_8).length;
        return bytes > maxCommandBytes ? OptionalInt.of(bytes) : OptionalInt.empty();
    }

    /** Why an entry whose command takes {@code commandBytes} is refused, for the dead letter and the log. */
    public String refusal(int commandBytes) {
        return "its delete command would take " + commandBytes + " bytes, more than the " + maxCommandBytes
                + " a record may carry (the producer's max.request.size less " + RESERVED_BYTES
                + " bytes for framing and headers), so it is not scheduled and the document does not expire";
    }
}

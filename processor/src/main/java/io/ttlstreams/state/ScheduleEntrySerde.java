package io.ttlstreams.state;

import io.ttlstreams.schema.ScheduleEntry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The {@code schedule} store's values, format version 2 (see {@link CompactValueSerde}): a flags byte, the rule
 * name, the rule shape (8 bytes), base, offset and attempts as varints, the first emission time when there is one,
 * then the condition, then the document key when the entry keeps one (a sharded collection's, flag 8).
 *
 * <p>A field rule's condition is almost always one date pinned as found, {@code {<field>: {"$eq": <base>}}}: its
 * date is the base already, so only the field name is written, and reading rebuilds the same BSON bytes. Any other
 * condition is written as its BSON.
 */
final class ScheduleEntrySerde extends CompactValueSerde<ScheduleEntry> {

    private static final int OFFSET_FROM_RULE = 1;
    private static final int EMITTED = 1 << 1;
    private static final int PINNED_BASE = 1 << 2;
    private static final int DOCUMENT_KEY = 1 << 3;
    private static final int KNOWN_FLAGS = OFFSET_FROM_RULE | EMITTED | PINNED_BASE | DOCUMENT_KEY;

    ScheduleEntrySerde() {
        super(ScheduleEntry.class);
    }

    @Override
    int maxBytes(ScheduleEntry entry) {
        // Flags, rule (UTF-8 takes at most 3 bytes per char), shape, three varlongs, a varint, two lengths, condition.
        return 1
                + 5
                + 3 * entry.getRule().length()
                + 8
                + 3 * 10
                + 5
                + 5
                + entry.getCondition().remaining()
                + (entry.getDocumentKey() == null
                        ? 0
                        : 5 + entry.getDocumentKey().remaining());
    }

    @Override
    void write(ScheduleEntry entry, ByteBuffer out) {
        long base = entry.getBase().toEpochMilli();
        ByteBuffer condition = entry.getCondition();
        int field = PinnedDate.fieldLength(condition, base);
        int flags = (entry.getOffsetFromRule() ? OFFSET_FROM_RULE : 0)
                | (entry.getFirstEmittedAt() != null ? EMITTED : 0)
                | (field > 0 ? PINNED_BASE : 0)
                | (entry.getDocumentKey() != null ? DOCUMENT_KEY : 0);
        out.put((byte) flags);
        byte[] rule = entry.getRule().getBytes(StandardCharsets.UTF_8);
        writeUnsignedVarint(rule.length, out);
        out.put(rule);
        out.putLong(entry.getRuleShape());
        writeVarlong(base, out);
        writeVarlong(entry.getOffsetSeconds(), out);
        writeUnsignedVarint(entry.getAttempts(), out);
        if (entry.getFirstEmittedAt() != null) {
            writeVarlong(entry.getFirstEmittedAt().toEpochMilli(), out);
        }
        ByteBuffer bytes = condition.duplicate();
        if (field > 0) {
            // The field name, after the document's length and the element's type, without its terminating NUL.
            int name = bytes.position() + 5;
            writeUnsignedVarint(field - 1, out);
            out.put(bytes.limit(name + field - 1).position(name));
        } else {
            writeUnsignedVarint(bytes.remaining(), out);
            out.put(bytes);
        }
        if (entry.getDocumentKey() != null) {
            ByteBuffer key = entry.getDocumentKey().duplicate();
            writeUnsignedVarint(key.remaining(), out);
            out.put(key);
        }
    }

    @Override
    ScheduleEntry read(ByteBuffer in) {
        int flags = Byte.toUnsignedInt(in.get());
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw new IllegalArgumentException("unknown flags " + Integer.toBinaryString(flags));
        }
        byte[] rule = new byte[length(in)];
        in.get(rule);
        long shape = in.getLong();
        long base = readVarlong(in);
        long offset = readVarlong(in);
        int attempts = readUnsignedVarint(in);
        Instant emitted = (flags & EMITTED) != 0 ? Instant.ofEpochMilli(readVarlong(in)) : null;
        byte[] stored = new byte[length(in)];
        in.get(stored);
        ByteBuffer condition =
                (flags & PINNED_BASE) != 0 ? PinnedDate.condition(stored, base) : ByteBuffer.wrap(stored);
        ByteBuffer documentKey = null;
        if ((flags & DOCUMENT_KEY) != 0) {
            byte[] key = new byte[length(in)];
            in.get(key);
            documentKey = ByteBuffer.wrap(key);
        }
        return new ScheduleEntry(
                new String(rule, StandardCharsets.UTF_8),
                shape,
                Instant.ofEpochMilli(base),
                offset,
                (flags & OFFSET_FROM_RULE) != 0,
                condition,
                attempts,
                emitted,
                documentKey);
    }
}

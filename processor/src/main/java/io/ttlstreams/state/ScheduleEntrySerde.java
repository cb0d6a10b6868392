package io.ttlstreams.state;

import io.ttlstreams.schema.ScheduleEntry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The {@code schedule} store's values, format version 2 (see {@link CompactValueSerde}): a flags byte, the rule
 * name, the rule shape (8 bytes), base, offset and attempts as varints, the first emission time when there is one,
 * then the condition.
 *
 * <p>A field rule's condition is almost always one date pinned as found, {@code {<field>: {"$eq": <base>}}}: its
 * date is the base already, so only the field name is written, and reading rebuilds the same BSON bytes. Any other
 * condition is written as its BSON.
 */
final class ScheduleEntrySerde extends CompactValueSerde<ScheduleEntry> {

    private static final int OFFSET_FROM_RULE = 1;
    private static final int EMITTED = 1 << 1;
    private static final int PINNED_BASE = 1 << 2;
    private static final int KNOWN_FLAGS = OFFSET_FROM_RULE | EMITTED | PINNED_BASE;

    /** BSON type bytes and the fixed parts of {@code {<field>: {"$eq": <date>}}}. */
    private static final byte DOCUMENT = 0x03;

    private static final byte DATE_TIME = 0x09;
    private static final byte[] EQ = {'$', 'e', 'q', 0};
    /** The inner document {"$eq": date}: length, type, "$eq\0", 8 bytes, terminator. */
    private static final int EQ_DOCUMENT_BYTES = 4 + 1 + EQ.length + Long.BYTES + 1;

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
                + entry.getCondition().remaining();
    }

    @Override
    void write(ScheduleEntry entry, ByteBuffer out) {
        long base = entry.getBase().toEpochMilli();
        ByteBuffer condition = entry.getCondition();
        int field = pinnedBaseField(condition, base);
        int flags = (entry.getOffsetFromRule() ? OFFSET_FROM_RULE : 0)
                | (entry.getFirstEmittedAt() != null ? EMITTED : 0)
                | (field > 0 ? PINNED_BASE : 0);
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
        ByteBuffer condition = (flags & PINNED_BASE) != 0 ? pinnedBase(stored, base) : ByteBuffer.wrap(stored);
        return new ScheduleEntry(
                new String(rule, StandardCharsets.UTF_8),
                shape,
                Instant.ofEpochMilli(base),
                offset,
                (flags & OFFSET_FROM_RULE) != 0,
                condition,
                attempts,
                emitted);
    }

    /**
     * The length of the field name, its NUL included, when {@code condition} is exactly the BSON of {@code {<field>:
     * {"$eq": <date base>}}} (the bytes {@link #pinnedBase} rebuilds); 0 otherwise.
     */
    static int pinnedBaseField(ByteBuffer condition, long base) {
        ByteBuffer bson = condition.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int start = bson.position();
        int size = bson.remaining();
        if (size < 4 + 1 + 1 + EQ_DOCUMENT_BYTES + 1
                || bson.getInt(start) != size
                || bson.get(start + 4) != DOCUMENT
                || bson.get(start + size - 1) != 0) {
            return 0;
        }
        int field = 0;
        while (start + 5 + field < start + size && bson.get(start + 5 + field) != 0) {
            field++;
        }
        field++; // the NUL
        // What follows the name must be the whole rest: {"$eq": date}, then the outer terminator.
        int inner = start + 5 + field;
        if (field < 2 || size != 5 + field + EQ_DOCUMENT_BYTES + 1 || bson.getInt(inner) != EQ_DOCUMENT_BYTES) {
            return 0;
        }
        if (bson.get(inner + 4) != DATE_TIME) {
            return 0;
        }
        for (int i = 0; i < EQ.length; i++) {
            if (bson.get(inner + 5 + i) != EQ[i]) {
                return 0;
            }
        }
        if (bson.getLong(inner + 5 + EQ.length) != base || bson.get(inner + EQ_DOCUMENT_BYTES - 1) != 0) {
            return 0;
        }
        return field;
    }

    /** The BSON of {@code {<field>: {"$eq": <date base>}}}. */
    static ByteBuffer pinnedBase(byte[] field, long base) {
        for (byte b : field) {
            if (b == 0) {
                throw new IllegalArgumentException("a field name with a NUL");
            }
        }
        if (field.length == 0) {
            throw new IllegalArgumentException("an empty field name");
        }
        int size = 4 + 1 + field.length + 1 + EQ_DOCUMENT_BYTES + 1;
        ByteBuffer bson = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        bson.putInt(size).put(DOCUMENT).put(field).put((byte) 0);
        bson.putInt(EQ_DOCUMENT_BYTES).put(DATE_TIME).put(EQ).putLong(base).put((byte) 0);
        bson.put((byte) 0);
        return bson.flip();
    }
}

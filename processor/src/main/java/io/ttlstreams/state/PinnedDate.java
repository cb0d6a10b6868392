package io.ttlstreams.state;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The BSON of the condition a field rule almost always pins, one date under its field, {@code {<field>: {"$eq":
 * <date>}}}, written and recognised directly: the BSON codec's writer and registry lookups cost more than the rest of
 * the entry, and the compact store format ({@link ScheduleEntrySerde}) keeps only the field name of it. The bytes are
 * exactly those the codec writes for the same document.
 */
public final class PinnedDate {

    /** BSON type bytes and the fixed parts of {@code {<field>: {"$eq": <date>}}}. */
    private static final byte DOCUMENT = 0x03;

    private static final byte DATE_TIME = 0x09;
    private static final byte[] EQ = {'$', 'e', 'q', 0};
    /** The inner document {"$eq": date}: length, type, "$eq\0", 8 bytes, terminator. */
    private static final int EQ_DOCUMENT_BYTES = 4 + 1 + EQ.length + Long.BYTES + 1;

    private PinnedDate() {}

    /** The BSON of {@code {<field>: {"$eq": <date millis>}}}. */
    public static ByteBuffer condition(String field, long millis) {
        return condition(field.getBytes(StandardCharsets.UTF_8), millis);
    }

    /**
     * The field {@code condition} pins {@code millis} under when it is exactly the BSON of {@code {<field>: {"$eq":
     * <date millis>}}} (the bytes {@link #condition} writes); null otherwise. Lets a reader build that document
     * without the codec's decode.
     */
    public static String fieldOf(ByteBuffer condition, long millis) {
        int length = fieldLength(condition, millis);
        if (length == 0) {
            return null;
        }
        byte[] field = new byte[length - 1];
        condition.get(condition.position() + 4 + 1, field);
        return new String(field, StandardCharsets.UTF_8);
    }

    /**
     * The length of the field name, its NUL included, when {@code condition} is exactly the BSON of {@code {<field>:
     * {"$eq": <date base>}}} (the bytes {@link #condition} rebuilds); 0 otherwise.
     */
    static int fieldLength(ByteBuffer condition, long base) {
        int name = condition.position() + 4 + 1;
        if (condition.remaining() <= 4 + 1 || condition.get(name - 1) != DOCUMENT) {
            return 0;
        }
        int nul = name;
        while (nul < condition.limit() && condition.get(nul) != 0) {
            nul++;
        }
        if (nul == name || nul == condition.limit()) {
            return 0;
        }
        // Exactly the bytes condition() writes for that name: the length, {"$eq": base} and the terminators with it.
        byte[] field = new byte[nul - name];
        condition.get(name, field);
        return condition(field, base).equals(condition) ? field.length + 1 : 0;
    }

    /** The BSON of {@code {<field>: {"$eq": <date base>}}}, the field name in UTF-8. */
    static ByteBuffer condition(byte[] field, long base) {
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

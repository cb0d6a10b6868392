package io.ttlstreams.state;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.utils.Bytes;

/**
 * Key of the schedule store: the deadline as 8 order-preserving bytes, then the {@link DocumentRef}.
 *
 * <p>The deadline (epoch milliseconds) is written big-endian with its sign bit flipped, which maps {@code
 * Long.MIN_VALUE..Long.MAX_VALUE} monotonically onto {@code 0x00..00..0xFF..FF}: unsigned lexicographic byte order,
 * the stores' order, is then numeric order, negative deadlines included. Equal deadlines are ordered by reference,
 * and distinct documents keep distinct keys.
 */
public final class ScheduleKey {

    private static final int DEADLINE_BYTES = Long.BYTES;

    private ScheduleKey() {}

    /** The key of a document's schedule entry. */
    public static Bytes of(long deadlineMillis, Bytes documentRef) {
        byte[] ref = documentRef.get();
        if (ref.length == 0) {
            // An empty reference would make the key a bare bound (see dueUpperBound), which ranges must not match.
            throw new IllegalArgumentException("A schedule key needs a non-empty document reference");
        }
        return Bytes.wrap(ByteBuffer.allocate(DEADLINE_BYTES + ref.length)
                .putLong(encode(deadlineMillis))
                .put(ref)
                .array());
    }

    /**
     * The inclusive upper bound of a range scan for entries due at {@code nowMillis}: the bare key of {@code
     * nowMillis + 1}. Every entry with deadline &lt;= now sorts below it, and every entry with deadline now + 1 sorts
     * above it, as its reference makes it longer. For {@code Long.MAX_VALUE}, which has no successor, it is the bare
     * key of {@code Long.MAX_VALUE} followed by 0xFF: no UTF-8 text starts with 0xFF, so it sorts after every entry.
     */
    public static Bytes dueUpperBound(long nowMillis) {
        if (nowMillis == Long.MAX_VALUE) {
            byte[] bound = new byte[DEADLINE_BYTES + 1];
            Arrays.fill(bound, (byte) 0xFF);
            return Bytes.wrap(bound);
        }
        return bare(nowMillis + 1);
    }

    /** The inclusive lower bound of a range scan over every entry: the bare key of {@code Long.MIN_VALUE}. */
    public static Bytes lowest() {
        return lowerBound(Long.MIN_VALUE);
    }

    /** The inclusive lower bound of a range scan over entries with deadline &gt;= {@code fromMillis}: its bare key. */
    public static Bytes lowerBound(long fromMillis) {
        return bare(fromMillis);
    }

    /** The deadline (epoch milliseconds) of a schedule key. */
    public static long deadlineOf(Bytes key) {
        byte[] bytes = checkLength(key);
        return decode(ByteBuffer.wrap(bytes).getLong());
    }

    /** The document reference of a schedule key. */
    public static Bytes documentRefOf(Bytes key) {
        byte[] bytes = checkLength(key);
        return Bytes.wrap(Arrays.copyOfRange(bytes, DEADLINE_BYTES, bytes.length));
    }

    private static Bytes bare(long deadlineMillis) {
        return Bytes.wrap(ByteBuffer.allocate(DEADLINE_BYTES)
                .putLong(encode(deadlineMillis))
                .array());
    }

    private static long encode(long deadlineMillis) {
        return deadlineMillis ^ Long.MIN_VALUE;
    }

    private static long decode(long encoded) {
        return encoded ^ Long.MIN_VALUE;
    }

    private static byte[] checkLength(Bytes key) {
        byte[] bytes = key.get();
        if (bytes.length < DEADLINE_BYTES) {
            throw new IllegalArgumentException("Not a schedule key: " + bytes.length + " bytes, fewer than the "
                    + DEADLINE_BYTES + "-byte deadline");
        }
        return bytes;
    }
}

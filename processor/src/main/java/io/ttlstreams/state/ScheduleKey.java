package io.ttlstreams.state;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.utils.Bytes;

/**
 * Key of the schedule store: a format-version byte, the {@link Timeline}, the due time as 8 order-preserving bytes,
 * then the {@link DocumentRef}.
 *
 * <p>The due time (epoch milliseconds) is written big-endian with its sign bit flipped, which maps {@code
 * Long.MIN_VALUE..Long.MAX_VALUE} monotonically onto {@code 0x00..00..0xFF..FF}: unsigned lexicographic byte order,
 * the store's order, is then timeline order, then numeric time order, negative instants included. Equal times are
 * ordered by reference, and distinct documents keep distinct keys. Each timeline is one contiguous range, so the
 * punctuator finds what is due on a timeline with one range scan.
 */
public final class ScheduleKey {

    /**
     * The format this build writes and reads: 4 since the {@link DocumentRef} it ends with is of format 4 (the
     * header is unchanged since format 1).
     */
    static final byte FORMAT_VERSION = 4;

    private static final int HEADER_BYTES = 2;
    private static final int TIME_BYTES = Long.BYTES;
    private static final int BARE_BYTES = HEADER_BYTES + TIME_BYTES;

    /** The schedule's queues, each ordered by its own due time. */
    public enum Timeline {
        /** Documents waiting for their deadline; due time = deadline. */
        DEADLINES,
        /**
         * Delete commands emitted again (or read back) and waiting for the change stream to report the delete; due
         * time = when to retry. A first command's entry stays on the deadlines timeline, awaiting confirmation in
         * effect ({@link ExpirySchedule}).
         */
        CONFIRMATIONS,
        /** Entries whose rule changed in a way that needs the document; never due, until an event or a resync. */
        HELD,
        /**
         * Entries due on arrival past their rule's blast-radius limit; never due, until an operator approves (back to
         * deadlines) or rejects (to held), or their document changes; due time = deadline.
         */
        AWAITING_APPROVAL,
        /**
         * Notices ({@code ttl.rule.<name>.notice.before.seconds}): a copy of a document's deadline entry, due that
         * long before the deadline. Not indexed: the document's entry stays where the index says; a notice whose
         * entry has moved on by its time is dropped unsent.
         */
        NOTICES;

        /** The timeline of its stored number. */
        public static Timeline of(int number) {
            Timeline[] all = values();
            if (number < 0 || number >= all.length) {
                throw new IllegalArgumentException("Unknown schedule timeline " + number);
            }
            return all[number];
        }
    }

    private ScheduleKey() {}

    /** The key of a document's entry on {@code timeline}, due at {@code dueAtMillis}. */
    public static Bytes of(Timeline timeline, long dueAtMillis, Bytes documentRef) {
        byte[] ref = documentRef.get();
        if (ref.length == 0) {
            // An empty reference would make the key a bare bound (see dueUpperBound), which ranges must not match.
            throw new IllegalArgumentException("A schedule key needs a non-empty document reference");
        }
        return Bytes.wrap(
                header(timeline, dueAtMillis, BARE_BYTES + ref.length).put(ref).array());
    }

    /**
     * The inclusive upper bound of a range scan for entries on {@code timeline} due at {@code nowMillis}: the bare
     * key of {@code nowMillis + 1}. Every entry due at or before now sorts below it, and every entry due at now + 1
     * sorts above it, as its reference makes it longer. For {@code Long.MAX_VALUE}, which has no successor, it is
     * the bare key of {@code Long.MAX_VALUE} followed by 0xFF: references start with their format version (0x03), so
     * it sorts after every entry of the timeline.
     */
    public static Bytes dueUpperBound(Timeline timeline, long nowMillis) {
        if (nowMillis == Long.MAX_VALUE) {
            return Bytes.wrap(header(timeline, Long.MAX_VALUE, BARE_BYTES + 1)
                    .put((byte) 0xFF)
                    .array());
        }
        return lowerBound(timeline, nowMillis + 1);
    }

    /** The inclusive lower bound of a range scan over entries on {@code timeline} due at or after {@code fromMillis}. */
    public static Bytes lowerBound(Timeline timeline, long fromMillis) {
        return Bytes.wrap(header(timeline, fromMillis, BARE_BYTES).array());
    }

    /** The timeline of a schedule key. */
    public static Timeline timelineOf(Bytes key) {
        return Timeline.of(checked(key)[1]);
    }

    /** The due time (epoch milliseconds) of a schedule key. */
    public static long dueAtOf(Bytes key) {
        return ByteBuffer.wrap(checked(key), HEADER_BYTES, TIME_BYTES).getLong() ^ Long.MIN_VALUE;
    }

    /** The document reference of a schedule key. */
    public static Bytes documentRefOf(Bytes key) {
        byte[] bytes = checked(key);
        return Bytes.wrap(Arrays.copyOfRange(bytes, BARE_BYTES, bytes.length));
    }

    /** Whether the document reference of schedule key {@code key} begins with {@code prefix}, without copying it. */
    public static boolean refStartsWith(Bytes key, byte[] prefix) {
        byte[] bytes = checked(key);
        return bytes.length - BARE_BYTES >= prefix.length
                && Arrays.equals(bytes, BARE_BYTES, BARE_BYTES + prefix.length, prefix, 0, prefix.length);
    }

    private static ByteBuffer header(Timeline timeline, long dueAtMillis, int size) {
        return ByteBuffer.allocate(size)
                .put(FORMAT_VERSION)
                .put((byte) timeline.ordinal())
                .putLong(dueAtMillis ^ Long.MIN_VALUE);
    }

    private static byte[] checked(Bytes key) {
        byte[] bytes = key.get();
        if (bytes.length < BARE_BYTES) {
            throw new IllegalArgumentException(
                    "Not a schedule key: " + bytes.length + " bytes, fewer than its " + BARE_BYTES + "-byte header");
        }
        if (bytes[0] != FORMAT_VERSION) {
            throw new IllegalArgumentException("Not a schedule key of format version " + FORMAT_VERSION + ": version "
                    + Byte.toUnsignedInt(bytes[0]) + " (" + DocumentRef.RESET_ADVICE + ")");
        }
        return bytes;
    }
}

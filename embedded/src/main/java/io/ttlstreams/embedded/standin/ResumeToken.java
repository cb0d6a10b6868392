package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import java.util.HexFormat;
import java.util.Optional;

/**
 * A change stream's resume token, {@code {"_data": "<hex>"}} as MongoDB shapes it: opaque to clients, here the
 * cluster time, the history's epoch, the position of the last change seen and whether it was an invalidate.
 *
 * @param clusterTime the cluster time of that change, first so that tokens sort by time as MongoDB's do
 * @param epoch       the {@link ChangeHistory#epoch()} that issued it
 * @param position    the position of the change the stream has seen last (0: none yet)
 * @param invalidate  true for the token of an {@code invalidate} event, which only {@code startAfter} may use
 */
record ResumeToken(BsonTimestamp clusterTime, long epoch, long position, boolean invalidate) {

    /**
     * MongoDB's tokens start with a KeyString timestamp: type byte 130, then the cluster time, big-endian. The source
     * connector reads that part (and fails on anything else), so the stand-in's tokens start the same way.
     */
    private static final String TIMESTAMP_TYPE = "82";

    private static final int HEX_LENGTH = 2 + 16 * 3 + 2;

    /** Upper-case hex digits, as MongoDB writes its tokens. */
    private static final HexFormat HEX = HexFormat.of().withUpperCase();

    /** The token as it appears in events and responses. */
    Document toDocument() {
        // Built by hand: String.format was a tenth of the stand-in's time under load (every event carries a token).
        String data = new StringBuilder(HEX_LENGTH)
                .append(TIMESTAMP_TYPE)
                .append(HEX.toHexDigits(clusterTime.getValue()))
                .append(HEX.toHexDigits(epoch))
                .append(HEX.toHexDigits(position))
                .append(HEX.toHexDigits((byte) (invalidate ? 1 : 0)))
                .toString();
        return new Document("_data", data);
    }

    /** Parses a token a client sent back; empty when it is not one of ours. */
    static Optional<ResumeToken> parse(Object token) {
        if (!(token instanceof Document document) || !(document.get("_data") instanceof String data)) {
            return Optional.empty();
        }
        if (data.length() != HEX_LENGTH || !data.matches("[0-9A-Fa-f]+") || !data.startsWith(TIMESTAMP_TYPE)) {
            return Optional.empty();
        }
        return Optional.of(new ResumeToken(
                new BsonTimestamp(Long.parseUnsignedLong(data.substring(2, 18), 16)),
                Long.parseUnsignedLong(data.substring(18, 34), 16),
                Long.parseUnsignedLong(data.substring(34, 50), 16),
                data.charAt(51) == '1'));
    }
}

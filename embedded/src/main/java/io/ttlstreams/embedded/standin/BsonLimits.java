package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.List;
import java.util.Locale;

/**
 * The 16 MB limits MongoDB enforces on what it stores and what it returns, with the errors its server answers
 * (MongoDB's {@code src/mongo/bson/util/builder.h} for the sizes):
 *
 * <ul>
 *   <li>An update whose result is larger than {@value #MAX_USER_DOCUMENT_BYTES} bytes (BSONObjMaxUserSize):
 *       BSONObjectTooLarge (10334), "Resulting document after update is larger than 16777216"
 *       ({@code update_stage.cpp}; assertion 17419 in older servers). A document inserted or a replacement that
 *       large never gets here: mongo-java-server's wire decoder refuses any BSON document over 16 MiB by closing the
 *       connection (MongoDB would answer BadValue, "object to insert too large"), and drivers refuse it
 *       client-side before sending.</li>
 *   <li>A change event larger than {@value #MAX_INTERNAL_DOCUMENT_BYTES} bytes (BSONObjMaxInternalSize, "16MB" in
 *       the message) after the stream's own pipeline: BSONObjectTooLarge, the stream fails. MongoDB's manual
 *       ({@code $changeStreamSplitLargeEvent}): "If a change stream has large events that exceed 16 MB, a
 *       BSONObjectTooLarge exception is returned", and a {@code $project} reducing the event avoids it, so the size
 *       is that of the event as the pipeline returns it. The error carries no resumable label, and resuming at the
 *       same token meets the same event again.</li>
 * </ul>
 */
final class BsonLimits {

    /** BSONObjMaxUserSize: the largest document a client may store. */
    static final int MAX_USER_DOCUMENT_BYTES = 16 * 1024 * 1024;
    /** BSONObjMaxInternalSize: the largest document the server builds, a returned change event included. */
    static final int MAX_INTERNAL_DOCUMENT_BYTES = MAX_USER_DOCUMENT_BYTES + 16 * 1024;

    private BsonLimits() {}

    /** Whether an update's or replacement's result is one MongoDB refuses to store. */
    static boolean tooLargeToStore(Document document) {
        return DocumentDiff.size(document) > MAX_USER_DOCUMENT_BYTES;
    }

    /** The error of an update whose result is too large. */
    static MongoServerError updateTooLarge() {
        return new MongoServerError(
                ErrorCodes.BSON_OBJECT_TOO_LARGE,
                "BSONObjectTooLarge",
                "Resulting document after update is larger than " + MAX_USER_DOCUMENT_BYTES);
    }

    /** Fails a change stream at an event MongoDB cannot return. */
    static void checkEvent(Document event) {
        int size = DocumentDiff.size(event);
        if (size > MAX_INTERNAL_DOCUMENT_BYTES) {
            throw new StandInError(
                    ErrorCodes.BSON_OBJECT_TOO_LARGE,
                    "BSONObjectTooLarge",
                    "BSONObj size: " + size + " (0x"
                            + Integer.toHexString(size).toUpperCase(Locale.ROOT)
                            + ") is invalid. Size must be between 0 and " + MAX_INTERNAL_DOCUMENT_BYTES
                            + "(16MB) First element: _id: " + event.get("_id"),
                    List.of(),
                    null);
        }
    }
}

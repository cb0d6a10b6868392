package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.List;

/**
 * The {@code errorLabels} a MongoDB 4.4+ server attaches to a reply itself, by which drivers decide to retry a write
 * or resume a change stream (MongoDB's {@code src/mongo/db/error_labels.cpp}, {@code ErrorLabelBuilder}): since 4.4
 * drivers no longer add these labels themselves for such servers (retryable-writes specification, "Determining
 * Retryable Errors"), so without them a driver would not retry a write on a stepped-down primary.
 *
 * <ul>
 *   <li>{@code RetryableWriteError}: a retryable write (with a {@code txnNumber}, outside a transaction) failed with, or
 *       reported a write-concern error with, a code of the RetriableError category.</li>
 *   <li>{@code ResumableChangeStreamError}: otherwise, a change stream's {@code aggregate} or {@code getMore} failed
 *       (without a write-concern error) with a retriable code, a network or retargeting error,
 *       RetryChangeStream or FailedToSatisfyReadPreference.</li>
 * </ul>
 *
 * A reply that already carries labels keeps them; a {@code failCommand} fail point's {@code errorLabels} replace them.
 */
final class ErrorLabels {

    /** The label of writes a driver retries once. */
    static final String RETRYABLE_WRITE_ERROR = "RetryableWriteError";

    private ErrorLabels() {}

    /**
     * Labels {@code reply} as MongoDB would.
     *
     * @param retryableWrite the command was a retryable write
     * @param changeStream   the command opened or continued a change stream
     * @param override       labels a fail point set in place of the server's ({@code []} for none), or null
     */
    static void attach(Document reply, boolean retryableWrite, boolean changeStream, List<String> override) {
        if (isOk(reply) && !reply.containsKey("writeConcernError")) {
            return; // labels are for errors only
        }
        if (override != null) {
            reply.remove("errorLabels");
            if (!override.isEmpty()) {
                reply.put("errorLabels", override);
            }
            return;
        }
        if (reply.containsKey("errorLabels")) {
            return;
        }
        Integer code = isOk(reply) ? null : codeOf(reply);
        Integer concernCode = reply.get("writeConcernError") instanceof Document concern ? codeOf(concern) : null;
        if (retryableWrite && (retriable(code) || retriable(concernCode))) {
            reply.put("errorLabels", List.of(RETRYABLE_WRITE_ERROR));
        } else if (changeStream
                && code != null
                && concernCode == null
                && (ErrorCodes.RETRIABLE.contains(code) || ErrorCodes.RESUMABLE_ALSO.contains(code))) {
            reply.put("errorLabels", List.of(StandInError.RESUMABLE_CHANGE_STREAM_ERROR));
        }
    }

    private static boolean retriable(Integer code) {
        return code != null && ErrorCodes.RETRIABLE.contains(code);
    }

    private static boolean isOk(Document reply) {
        return reply.get("ok") instanceof Number ok && ok.doubleValue() == 1.0;
    }

    private static Integer codeOf(Document document) {
        return document.get("code") instanceof Number code ? code.intValue() : null;
    }
}

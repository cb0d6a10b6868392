package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.List;

/**
 * A MongoDB error with what mongo-java-server's errors cannot carry: {@code errorLabels}, by which drivers decide
 * whether to resume a change stream or retry, and further fields of the error document (a duplicate key's
 * {@code keyPattern} and {@code keyValue}). {@link StandInBackend} answers it as MongoDB shapes an error reply.
 */
final class StandInError extends MongoServerError {

    private static final long serialVersionUID = 1L;

    /** The label of errors after which a change stream must not be resumed. */
    static final String NON_RESUMABLE_CHANGE_STREAM_ERROR = "NonResumableChangeStreamError";
    /** The label of errors after which a change stream may be resumed. */
    static final String RESUMABLE_CHANGE_STREAM_ERROR = "ResumableChangeStreamError";

    private final transient List<String> labels;
    private final transient Document details;

    StandInError(int code, String codeName, String message, List<String> labels, Document details) {
        super(code, codeName, message);
        this.labels = List.copyOf(labels);
        this.details = details == null ? new Document() : details;
    }

    StandInError(int code, String codeName, String message) {
        this(code, codeName, message, List.of(), null);
    }

    /** MongoDB's refusal of a field a strictly parsed command or stage does not know ({@code a.b}: its path). */
    static MongoServerError unknownField(String path) {
        return new MongoServerError(
                ErrorCodes.UNKNOWN_FIELD, "Location40415", "BSON field '" + path + "' is an unknown field.");
    }

    /** The error's {@code errorLabels}. */
    List<String> labels() {
        return labels;
    }

    /** Fields the error reply carries besides {@code ok}, {@code errmsg}, {@code code} and {@code codeName}. */
    Document details() {
        return details;
    }

    /** The reply to a command that failed with {@code error}, as MongoDB shapes it. */
    static Document reply(MongoServerError error) {
        Document reply = new Document("ok", 0.0)
                .append("errmsg", error.getMessageWithoutErrorCode())
                .append("code", error.getCode())
                .append("codeName", error.getCodeName());
        if (error instanceof StandInError standIn) {
            reply.putAll(standIn.details());
            if (!standIn.labels().isEmpty()) {
                reply.append("errorLabels", standIn.labels());
            }
        }
        return reply;
    }

    /** A {@code writeErrors} entry for the write at {@code index} that failed with {@code error}. */
    static Document writeError(int index, MongoServerError error) {
        Document writeError = new Document("index", index)
                .append("code", error.getCode())
                .append("codeName", error.getCodeName())
                .append("errmsg", error.getMessageWithoutErrorCode());
        if (error instanceof StandInError standIn) {
            writeError.putAll(standIn.details());
        }
        return writeError;
    }
}

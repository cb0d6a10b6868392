package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.Set;

/**
 * What a {@code $changeStream} stage asks for besides where to start: its {@code fullDocument} and
 * {@code fullDocumentBeforeChange} settings, and which changes it sees.
 *
 * @param database   the watched database, null for a deployment-wide stream
 * @param collection the watched collection, null for a database- or deployment-wide stream
 * @param fullDocument {@code default}, {@code updateLookup}, {@code whenAvailable} or {@code required}
 * @param fullDocumentBeforeChange {@code off}, {@code whenAvailable} or {@code required}
 */
record ChangeStreamOptions(String database, String collection, String fullDocument, String fullDocumentBeforeChange) {

    private static final Set<String> FULL_DOCUMENT = Set.of("default", "updateLookup", "whenAvailable", "required");
    private static final Set<String> BEFORE_CHANGE = Set.of("off", "whenAvailable", "required");

    /** Reads the stage's options; an unknown value or pre-images {@code required} are refused as MongoDB would. */
    static ChangeStreamOptions parse(String database, String collection, Document stage) {
        String fullDocument = String.valueOf(stage.getOrDefault("fullDocument", "default"));
        if (!FULL_DOCUMENT.contains(fullDocument)) {
            throw new MongoServerError(
                    2, "BadValue", "'" + fullDocument + "' is not a valid value for $changeStream.fullDocument");
        }
        String beforeChange = String.valueOf(stage.getOrDefault("fullDocumentBeforeChange", "off"));
        if (!BEFORE_CHANGE.contains(beforeChange)) {
            throw new MongoServerError(
                    2, "BadValue", "'" + beforeChange + "' is not a valid value for fullDocumentBeforeChange");
        }
        if (fullDocument.equals("required") || beforeChange.equals("required")) {
            // Required images that a collection does not record fail the stream in MongoDB too.
            throw new MongoServerError(
                    ErrorCodes.CHANGE_STREAM_FATAL_ERROR,
                    "ChangeStreamFatalError",
                    "the MongoDB stand-in records no pre- or post-images");
        }
        return new ChangeStreamOptions(database, collection, fullDocument, beforeChange);
    }

    /** True when update events carry the document as it is when the event is read. */
    boolean looksUpUpdates() {
        return fullDocument.equals("updateLookup");
    }

    /** True when document events carry a {@code fullDocumentBeforeChange} field (always null here). */
    boolean beforeChangeWhenAvailable() {
        return fullDocumentBeforeChange.equals("whenAvailable");
    }

    /** True when the stream sees {@code change}. */
    boolean sees(Change change) {
        if (database == null) {
            return true;
        }
        if (!database.equals(change.operation().database())) {
            return false;
        }
        return collection == null || collection.equals(change.operation().collection());
    }

    /** True when {@code change}, which the stream sees, ends it with an {@code invalidate}. */
    boolean invalidatedBy(Change change) {
        Change.Type type = change.operation().type();
        if (collection != null) {
            return type == Change.Type.DROP || type == Change.Type.RENAME;
        }
        return database != null && type == Change.Type.DROP_DATABASE;
    }

    /** The namespace of the stream's cursor, as MongoDB names it in cursor responses. */
    String cursorNamespace() {
        if (database == null) {
            return "admin.$cmd.aggregate";
        }
        return collection == null ? database + ".$cmd.aggregate" : database + "." + collection;
    }
}

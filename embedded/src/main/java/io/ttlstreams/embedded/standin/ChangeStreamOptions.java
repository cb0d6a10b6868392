package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.Set;

/**
 * What a {@code $changeStream} stage asks for besides where to start: its {@code fullDocument} and
 * {@code fullDocumentBeforeChange} settings, whether it shows expanded events, and which changes it sees.
 *
 * @param database                 the watched database, null for a deployment-wide stream
 * @param collection               the watched collection, null for a database- or deployment-wide stream
 * @param fullDocument             {@code default}, {@code updateLookup}, {@code whenAvailable} or {@code required}
 * @param fullDocumentBeforeChange {@code off}, {@code whenAvailable} or {@code required}
 * @param showExpandedEvents       whether the stream sees the expanded events and fields of MongoDB 6.0
 */
record ChangeStreamOptions(
        String database,
        String collection,
        String fullDocument,
        String fullDocumentBeforeChange,
        boolean showExpandedEvents) {

    private static final Set<String> FULL_DOCUMENT = Set.of("default", "updateLookup", "whenAvailable", "required");
    private static final Set<String> BEFORE_CHANGE = Set.of("off", "whenAvailable", "required");
    /** The fields of a {@code $changeStream} stage in MongoDB 7.0. */
    private static final Set<String> FIELDS = Set.of(
            "resumeAfter",
            "startAfter",
            "startAtOperationTime",
            "fullDocument",
            "fullDocumentBeforeChange",
            "allChangesForCluster",
            "showExpandedEvents",
            "showMigrationEvents",
            "showSystemEvents",
            "showRawUpdateDescription",
            "allowToRunOnConfigDB",
            "allowToRunOnSystemNS");

    /** Reads the stage's options; an unknown field or value is refused as MongoDB refuses it. */
    static ChangeStreamOptions parse(String database, String collection, Document stage) {
        for (String field : stage.keySet()) {
            if (!FIELDS.contains(field)) {
                throw StandInError.unknownField("$changeStream." + field);
            }
        }
        long resumeOptions = Set.of("resumeAfter", "startAfter", "startAtOperationTime").stream()
                .filter(stage::containsKey)
                .count();
        if (resumeOptions > 1) {
            throw new MongoServerError(
                    ErrorCodes.CONFLICTING_RESUME_OPTIONS,
                    "Location40674",
                    "Only one type of resume option is allowed, but multiple were found.");
        }
        String fullDocument = String.valueOf(stage.getOrDefault("fullDocument", "default"));
        if (!FULL_DOCUMENT.contains(fullDocument)) {
            throw new MongoServerError(
                    ErrorCodes.BAD_VALUE,
                    "BadValue",
                    "Enumeration value '" + fullDocument + "' for field '$changeStream.fullDocument' is not a valid"
                            + " value.");
        }
        String beforeChange = String.valueOf(stage.getOrDefault("fullDocumentBeforeChange", "off"));
        if (!BEFORE_CHANGE.contains(beforeChange)) {
            throw new MongoServerError(
                    ErrorCodes.BAD_VALUE,
                    "BadValue",
                    "Enumeration value '" + beforeChange + "' for field '$changeStream.fullDocumentBeforeChange' is"
                            + " not a valid value.");
        }
        Object expanded = stage.getOrDefault("showExpandedEvents", false);
        if (!(expanded instanceof Boolean show)) {
            throw new MongoServerError(
                    ErrorCodes.TYPE_MISMATCH,
                    "TypeMismatch",
                    "BSON field '$changeStream.showExpandedEvents' is the wrong type, expected type 'bool'");
        }
        return new ChangeStreamOptions(database, collection, fullDocument, beforeChange, show);
    }

    /** True when the stream sees {@code change}: its namespace, or for a rename, its source or target. */
    boolean sees(Change change) {
        if (change.operation().type().expanded() && !showExpandedEvents) {
            return false;
        }
        if (database == null) {
            return true;
        }
        Change.Operation operation = change.operation();
        if (database.equals(operation.database())
                && (collection == null || collection.equals(operation.collection()))) {
            return true;
        }
        Document to = operation.renamedTo();
        return to != null && database.equals(to.get("db")) && (collection == null || collection.equals(to.get("coll")));
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

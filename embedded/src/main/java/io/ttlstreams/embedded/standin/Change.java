package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import java.time.Instant;

/**
 * One change as the stand-in recorded it when it was written, at a position of the {@link ChangeHistory}: what a
 * MongoDB oplog entry is to a real server. {@link ChangeEvents} renders it as the change event a stream sees.
 *
 * @param position    the change's place in the history, from 1, without gaps
 * @param clusterTime seconds and an increment that orders changes within a second
 * @param wallTime    the server's clock at the write, in milliseconds
 * @param operation   what the write did
 */
record Change(long position, BsonTimestamp clusterTime, Instant wallTime, Operation operation) {

    /** The operation types of recorded changes, with their names in change events. */
    enum Type {
        INSERT("insert"),
        UPDATE("update"),
        REPLACE("replace"),
        DELETE("delete"),
        DROP("drop"),
        RENAME("rename"),
        DROP_DATABASE("dropDatabase");

        private final String eventName;

        Type(String eventName) {
            this.eventName = eventName;
        }

        /** The {@code operationType} of the change event. */
        String eventName() {
            return eventName;
        }

        /** True for changes of one document, which carry a {@code documentKey}. */
        boolean ofDocument() {
            return this == INSERT || this == UPDATE || this == REPLACE || this == DELETE;
        }
    }

    /**
     * What a write did, as {@link ChangeRecorder} sees it; {@link ChangeHistory} places it at a position and times.
     *
     * @param type        what happened
     * @param database    the database
     * @param collection  the collection, null for {@link Type#DROP_DATABASE}
     * @param documentId  the document's {@code _id} for document changes, else null
     * @param document    the document as written for inserts and replaces, else null
     * @param updateDescription for updates: {@code updatedFields}, {@code removedFields}, {@code truncatedArrays}
     * @param renamedTo   for renames: the target {@code {db, coll}}
     */
    record Operation(
            Type type,
            String database,
            String collection,
            Object documentId,
            Document document,
            Document updateDescription,
            Document renamedTo) {}
}

package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import java.time.Instant;
import java.util.UUID;

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
        DROP_DATABASE("dropDatabase"),
        /** Expanded: a collection was created, explicitly or by its first write. */
        CREATE("create"),
        /** Expanded: indexes were created. */
        CREATE_INDEXES("createIndexes"),
        /** Expanded: an index was dropped. */
        DROP_INDEXES("dropIndexes"),
        /** Expanded: collMod changed the collection's options. */
        MODIFY("modify"),
        /** Expanded: the collection was sharded ({@link ShardKeys}). */
        SHARD_COLLECTION("shardCollection"),
        /** Expanded: the collection's shard key was refined by suffix fields. */
        REFINE_COLLECTION_SHARD_KEY("refineCollectionShardKey"),
        /** Expanded: the collection was resharded on another key. */
        RESHARD_COLLECTION("reshardCollection");

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

        /** True for the events MongoDB shows only to streams opened with {@code showExpandedEvents: true}. */
        boolean expanded() {
            return this == CREATE
                    || this == CREATE_INDEXES
                    || this == DROP_INDEXES
                    || this == MODIFY
                    || this == SHARD_COLLECTION
                    || this == REFINE_COLLECTION_SHARD_KEY
                    || this == RESHARD_COLLECTION;
        }

        /** True for the changes whose document had a version before: the events that may carry a pre-image. */
        boolean hasPreImage() {
            return this == UPDATE || this == REPLACE || this == DELETE;
        }
    }

    /**
     * The document versions a collection with {@code changeStreamPreAndPostImages} enabled kept for one change, as
     * MongoDB keeps them in {@code config.system.preimages}: recorded only when the option was on at the write.
     *
     * @param before the document before the change (updates, replaces, deletes)
     * @param after  the document right after an update (MongoDB derives it from the pre-image and the update); null
     *               for other operations, whose events carry the document anyway or have none
     */
    record Images(Document before, Document after) {}

    /**
     * What a write did, as {@link ChangeRecorder} sees it; {@link ChangeHistory} places it at a position and times.
     *
     * @param type               what happened
     * @param database           the database
     * @param collection         the collection, null for {@link Type#DROP_DATABASE}
     * @param collectionUuid     the collection's UUID ({@code collectionUUID} of expanded events); null for
     *                           {@link Type#DROP_DATABASE}
     * @param documentKey        for document changes, the {@code documentKey}: {@code _id}, and on a sharded collection
     *                           the shard key fields before it ({@link ShardKeys#documentKey}); else null
     * @param document           the document as written for inserts and replaces, else null
     * @param updateDescription  for updates: {@code updatedFields}, {@code removedFields}, {@code truncatedArrays}
     * @param disambiguatedPaths for updates whose paths are ambiguous: each such path's components, else null
     * @param images             the pre- and post-image when the collection recorded them, else null
     * @param renamedTo          for renames: the target {@code {db, coll}}
     * @param description        the {@code operationDescription} of expanded events (for renames: only when shown)
     * @param stateBeforeChange  for {@link Type#MODIFY}: the collection's options before
     */
    record Operation(
            Type type,
            String database,
            String collection,
            UUID collectionUuid,
            Document documentKey,
            Document document,
            Document updateDescription,
            Document disambiguatedPaths,
            Images images,
            Document renamedTo,
            Document description,
            Document stateBeforeChange) {

        /** A change of one document. */
        static Operation ofDocument(
                Type type,
                String database,
                String collection,
                UUID collectionUuid,
                Document documentKey,
                Document document,
                Document updateDescription,
                Document disambiguatedPaths,
                Images images) {
            return new Operation(
                    type,
                    database,
                    collection,
                    collectionUuid,
                    documentKey,
                    document,
                    updateDescription,
                    disambiguatedPaths,
                    images,
                    null,
                    null,
                    null);
        }

        /** A change of a whole collection (drop, rename, and the expanded events). */
        static Operation ofCollection(
                Type type,
                String database,
                String collection,
                UUID collectionUuid,
                Document renamedTo,
                Document description,
                Document stateBeforeChange) {
            return new Operation(
                    type,
                    database,
                    collection,
                    collectionUuid,
                    null,
                    null,
                    null,
                    null,
                    null,
                    renamedTo,
                    description,
                    stateBeforeChange);
        }

        /** A dropped database. */
        static Operation droppedDatabase(String database) {
            return new Operation(
                    Type.DROP_DATABASE, database, null, null, null, null, null, null, null, null, null, null);
        }
    }
}

package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the stand-in's writes become {@link Change}s in the {@link ChangeHistory}: the one place changes are
 * produced. {@link StandInCollection} reports each document it writes, {@link StandInDatabase} the collections and
 * indexes it creates, modifies and drops, {@link StandInBackend} the renames and dropped databases.
 *
 * <p>An update is described as MongoDB describes it: a replacement document (no operators) as a {@code replace}, an
 * update by operators by the paths they name ({@link UpdateDescriptions}), an update by pipeline by the difference of
 * the documents ({@link DocumentDiff}), which is a {@code replace} when MongoDB would log it as one. A collection with
 * {@code changeStreamPreAndPostImages} enabled keeps, with each change of a document, its images.
 *
 * <p>On a sharded collection each change of a document carries the {@code documentKey} of {@link ShardKeys}, and an
 * update that moves the document to another shard is recorded as MongoDB's cluster records it: a delete and an insert.
 */
final class ChangeRecorder {

    /** The index every collection is created with, as MongoDB's {@code create} event describes it. */
    static final Document ID_INDEX =
            new Document("v", 2).append("key", new Document("_id", 1)).append("name", "_id_");

    private final ChangeHistory history;
    /** Deletes recorded so far, by namespace. */
    private final Map<String, LongAdder> deletes = new ConcurrentHashMap<>();

    ChangeRecorder(ChangeHistory history) {
        this.history = history;
    }

    /** Records one inserted document. */
    void inserted(StandInCollection collection, Document document) {
        record(
                collection,
                ofDocument(collection, Change.Type.INSERT, keyOf(collection, document), document, null, null));
    }

    /**
     * Records one document's update.
     *
     * @param update the update: a replacement document, a document of operators, or a pipeline (a list of stages)
     * @param before the document before
     * @param after  the document after
     */
    void updated(StandInCollection collection, Object update, Document before, Document after) {
        if (ShardKeys.moves(collection.shardKey(), before, after)) {
            // Another shard owns the new value: mongos deletes it on the donor and inserts it on the recipient, in one
            // transaction, whose events share its commit time.
            record(
                    collection,
                    deletion(collection, before),
                    ofDocument(
                            collection, Change.Type.INSERT, keyOf(collection, after), after.cloneDeeply(), null, null));
            return;
        }
        // As MongoDB's update stage logs it: the key of the document before the write.
        Document key = keyOf(collection, before);
        UpdateDescriptions.Described described = null;
        if (update instanceof List<?>) {
            described = DocumentDiff.describe(before, after).orElse(null); // none: MongoDB logs a replacement
        } else if (update instanceof Document operators && !isReplacement(operators)) {
            described = UpdateDescriptions.describe(operators, before, after);
        }
        if (described != null) {
            record(
                    collection,
                    ofDocument(collection, Change.Type.UPDATE, key, null, described, new Change.Images(before, after)));
        } else {
            record(
                    collection,
                    ofDocument(
                            collection,
                            Change.Type.REPLACE,
                            key,
                            after.cloneDeeply(),
                            null,
                            new Change.Images(before, null)));
        }
    }

    /** Records one deleted document, as it was. */
    void deleted(StandInCollection collection, Document before) {
        deletes.computeIfAbsent(collection.getFullName(), namespace -> new LongAdder())
                .increment();
        record(collection, deletion(collection, before));
    }

    /** The delete of {@code before}, with its pre-image. */
    private static Change.Operation deletion(StandInCollection collection, Document before) {
        return ofDocument(
                collection, Change.Type.DELETE, keyOf(collection, before), null, null, new Change.Images(before, null));
    }

    /** The {@code documentKey} of {@code document} in {@code collection}, sharded or not. */
    private static Document keyOf(StandInCollection collection, Document document) {
        return ShardKeys.documentKey(collection.shardKey(), document);
    }

    /** How many documents were deleted from {@code namespaces} ({@code db.coll}) since the stand-in started. */
    long deletes(Collection<String> namespaces) {
        return namespaces.stream()
                .map(deletes::get)
                .filter(count -> count != null)
                .mapToLong(LongAdder::sum)
                .sum();
    }

    /** A collection was created; {@code options} are the options it was created with. */
    void created(StandInCollection collection, Document options) {
        Document description = new Document(options).append("idIndex", ID_INDEX);
        recordOfCollection(collection, Change.Type.CREATE, description, null);
    }

    /** The {@code createIndexes} command created {@code indexes} (their specifications). */
    void indexesCreated(StandInCollection collection, List<Document> indexes) {
        recordOfCollection(collection, Change.Type.CREATE_INDEXES, new Document("indexes", indexes), null);
    }

    /** The {@code dropIndexes} command dropped {@code index}. */
    void indexDropped(StandInCollection collection, Document index) {
        recordOfCollection(collection, Change.Type.DROP_INDEXES, new Document("indexes", List.of(index)), null);
    }

    /** {@code collMod} changed the collection: {@code description} as it asked, {@code stateBefore} as it was. */
    void modified(StandInCollection collection, Document description, Document stateBefore) {
        recordOfCollection(collection, Change.Type.MODIFY, description, stateBefore);
    }

    /** A sharding command changed the collection's shard key: {@code type} is its expanded event. */
    void sharded(StandInCollection collection, Change.Type type, Document description) {
        recordOfCollection(collection, type, description, null);
    }

    /** A collection was dropped. */
    void dropped(String database, String collection, UUID uuid) {
        if (isUserCollection(database, collection)) {
            history.append(
                    Change.Operation.ofCollection(Change.Type.DROP, database, collection, uuid, null, null, null));
        }
    }

    /**
     * A collection was renamed.
     *
     * @param dropTarget the UUID of the collection the rename replaced ({@code dropTarget: true}), or null
     */
    void renamed(String fromNamespace, String toNamespace, UUID uuid, UUID dropTarget) {
        String database = Utils.getDatabaseNameFromFullName(fromNamespace);
        String collection = Utils.getCollectionNameFromFullName(fromNamespace);
        if (!isUserCollection(database, collection)) {
            return;
        }
        Document to = new Document("db", Utils.getDatabaseNameFromFullName(toNamespace))
                .append("coll", Utils.getCollectionNameFromFullName(toNamespace));
        Document description = new Document("to", to);
        if (dropTarget != null) {
            description.append("dropTarget", dropTarget);
        }
        history.append(
                Change.Operation.ofCollection(Change.Type.RENAME, database, collection, uuid, to, description, null));
    }

    /** A database was dropped (after the drop events of its collections). */
    void droppedDatabase(String database) {
        if (isUserCollection(database, "-")) {
            history.append(Change.Operation.droppedDatabase(database));
        }
    }

    /** Appends one operation, or those of one transaction together, unless the collection is not a user's. */
    private void record(StandInCollection collection, Change.Operation... operations) {
        if (isUserCollection(collection.getDatabaseName(), collection.getCollectionName())) {
            history.appendTogether(List.of(operations));
        }
    }

    private static Change.Operation ofDocument(
            StandInCollection collection,
            Change.Type type,
            Document documentKey,
            Document document,
            UpdateDescriptions.Described described,
            Change.Images images) {
        return Change.Operation.ofDocument(
                type,
                collection.getDatabaseName(),
                collection.getCollectionName(),
                collection.collectionUuid(),
                documentKey,
                document,
                described == null ? null : described.updateDescription(),
                described == null ? null : described.disambiguatedPaths(),
                collection.recordsImages() ? images : null);
    }

    private void recordOfCollection(
            StandInCollection collection, Change.Type type, Document description, Document stateBefore) {
        if (isUserCollection(collection.getDatabaseName(), collection.getCollectionName())) {
            history.append(Change.Operation.ofCollection(
                    type,
                    collection.getDatabaseName(),
                    collection.getCollectionName(),
                    collection.collectionUuid(),
                    null,
                    description,
                    stateBefore));
        }
    }

    /** True for a replacement document: no top-level field is an update operator. */
    static boolean isReplacement(Document update) {
        return update.keySet().stream().noneMatch(key -> key.startsWith("$"));
    }

    /** MongoDB reports no changes of system collections nor of the internal databases. */
    static boolean isUserCollection(String database, String collection) {
        return !collection.startsWith("system.")
                && !database.equals("local")
                && !database.equals("config")
                && !database.equals("admin");
    }
}

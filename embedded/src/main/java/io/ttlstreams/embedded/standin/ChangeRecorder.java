package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the stand-in's writes become {@link Change}s in the {@link ChangeHistory}: the one place changes are
 * produced. mongo-java-server calls it as its oplog (inserts, updates, deletes, drops); {@link StandInCollection}
 * adds what that oplog never hears of (the images of each update, findAndModify), {@link StandInBackend} the
 * renames and dropped databases.
 *
 * <p>An update is a {@code replace} when its specification has no operators, as in MongoDB; an update's
 * description comes from the images before and after it, which {@link StandInCollection} captures on the writing
 * thread while it holds the collection's lock.
 */
final class ChangeRecorder implements Oplog {

    private final ChangeHistory history;
    /** Before and after images of the updates the current thread's write made, in the order it made them. */
    private final ThreadLocal<List<Document[]>> updateImages = ThreadLocal.withInitial(ArrayList::new);

    ChangeRecorder(ChangeHistory history) {
        this.history = history;
    }

    /** Called by a collection when it changed a document: keeps both images for {@link #handleUpdate}. */
    void capturedUpdate(Document before, Document after) {
        updateImages.get().add(new Document[] {before, after});
    }

    /** Forgets images a write without change events left behind (the server's own bookkeeping). */
    void clearCaptures() {
        updateImages.get().clear();
    }

    /** The batch of an insert command whose documents were recorded one by one, for the report that follows. */
    private final ThreadLocal<List<Document>> insertsRecorded = new ThreadLocal<>();

    /** Records one inserted document (the insert command's, or an upsert's). */
    void inserted(String namespace, Document document) {
        record(Change.Type.INSERT, namespace, document.get("_id"), document.cloneDeeply(), null);
    }

    /** The {@link #handleInsert} of this very batch, on this thread, reports what {@link #inserted} recorded. */
    void recordedInsertsOf(List<Document> batch) {
        insertsRecorded.set(batch);
    }

    /** Upserts of the update command, and inserts of collections other than {@link StandInCollection}s. */
    @Override
    public void handleInsert(String namespace, List<Document> documents) {
        boolean recordedAlready = insertsRecorded.get() == documents;
        insertsRecorded.remove();
        if (recordedAlready) {
            return;
        }
        documents.forEach(document -> inserted(namespace, document));
    }

    @Override
    public void handleUpdate(String namespace, Document selector, Document update, List<Object> modifiedIds) {
        List<Document[]> images = new ArrayList<>(updateImages.get());
        updateImages.get().clear();
        for (int i = 0; i < modifiedIds.size(); i++) {
            Document[] image = i < images.size() ? images.get(i) : null;
            updated(
                    namespace,
                    update,
                    modifiedIds.get(i),
                    image == null ? null : image[0],
                    image == null ? null : image[1]);
        }
    }

    /**
     * Records one document's update.
     *
     * @param before the document before, or null when unknown (the description is then empty)
     * @param after  the document after
     */
    void updated(String namespace, Document update, Object id, Document before, Document after) {
        if (isReplacement(update)) {
            record(Change.Type.REPLACE, namespace, id, after, null);
        } else {
            Document description = before == null || after == null
                    ? UpdateDescriptions.describe(new Document(), new Document(), new Document())
                    : UpdateDescriptions.describe(update, before, after);
            record(Change.Type.UPDATE, namespace, id, null, description);
        }
    }

    @Override
    public void handleDelete(String namespace, Document query, List<Object> deletedIds) {
        for (Object id : deletedIds) {
            record(Change.Type.DELETE, namespace, id, null, null);
        }
    }

    @Override
    public void handleDropCollection(String namespace) {
        if (isUserCollection(namespace)) {
            record(Change.Type.DROP, namespace, null, null, null);
        }
    }

    /** A collection was renamed (after any drop of the target). */
    void renamed(String fromNamespace, String toNamespace) {
        history.append(new Change.Operation(
                Change.Type.RENAME,
                Utils.getDatabaseNameFromFullName(fromNamespace),
                Utils.getCollectionNameFromFullName(fromNamespace),
                null,
                null,
                null,
                new Document("db", Utils.getDatabaseNameFromFullName(toNamespace))
                        .append("coll", Utils.getCollectionNameFromFullName(toNamespace))));
    }

    /** A database was dropped (after the drop events of its collections). */
    void droppedDatabase(String database) {
        history.append(new Change.Operation(Change.Type.DROP_DATABASE, database, null, null, null, null, null));
    }

    /** Change streams are opened by {@link ChangeStreams}; mongo-java-server's own path is never taken. */
    @Override
    public Cursor createCursor(Document changeStreamDocument, String namespace, Aggregation aggregation) {
        throw new UnsupportedOperationException("change streams are opened by the stand-in's ChangeStreams");
    }

    private void record(Change.Type type, String namespace, Object id, Document document, Document description) {
        if (!isUserCollection(namespace)) {
            return;
        }
        history.append(new Change.Operation(
                type,
                Utils.getDatabaseNameFromFullName(namespace),
                Utils.getCollectionNameFromFullName(namespace),
                id,
                document,
                description,
                null));
    }

    /** True for a replacement document: no top-level field is an update operator. */
    static boolean isReplacement(Document update) {
        return update.keySet().stream().noneMatch(key -> key.startsWith("$"));
    }

    /** MongoDB reports no changes of system collections nor of the internal databases. */
    static boolean isUserCollection(String namespace) {
        String database = Utils.getDatabaseNameFromFullName(namespace);
        String collection = Utils.getCollectionNameFromFullName(namespace);
        return !collection.startsWith("system.")
                && !database.equals("local")
                && !database.equals("config")
                && !database.equals("admin");
    }
}

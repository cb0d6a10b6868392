package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.ArrayFilters;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import java.util.List;

/**
 * mongo-java-server's in-memory collection, reporting to the {@link ChangeRecorder} what its oplog hook does not
 * hear of, and finding a document by {@code _id} through the index when the filter pins more fields.
 *
 * <ul>
 *   <li>Each updated document's images before and after, for the update event's description.</li>
 *   <li>Inserts as they succeed, inside the collection's lock: the stock hook reports the whole batch afterwards,
 *       documents refused as duplicates included, and outside the lock, so a later write could come first.</li>
 *   <li>findAndModify (findOneAndUpdate, findOneAndReplace, findOneAndDelete), which the stock server writes
 *       without any change event.</li>
 *   <li>A filter such as the sink's {@code {_id: x, expireAt: d}}: the stock collection uses an index only when the
 *       filter's fields are exactly the index's, and scans the whole collection otherwise.</li>
 * </ul>
 */
final class StandInCollection extends MemoryCollection {

    private final ChangeRecorder recorder;
    /** What the current thread's findAndModify did, seen from the hooks it calls; null outside one. */
    private final ThreadLocal<FindAndModifyEffects> findAndModify = new ThreadLocal<>();
    /** True while the current thread runs an insert command: its documents are recorded one by one. */
    private final ThreadLocal<Boolean> inserting = ThreadLocal.withInitial(() -> false);

    StandInCollection(
            MongoDatabase database,
            String collectionName,
            CollectionOptions options,
            CursorRegistry cursorRegistry,
            ChangeRecorder recorder) {
        super(database, collectionName, options, cursorRegistry);
        this.recorder = recorder;
    }

    @Override
    public synchronized List<Document> insertDocuments(List<Document> documents, boolean isOrdered) {
        inserting.set(true);
        List<Document> writeErrors;
        try {
            writeErrors = super.insertDocuments(documents, isOrdered);
        } finally {
            inserting.set(false);
        }
        // The database reports the whole batch to the oplog next; those events are recorded already.
        recorder.recordedInsertsOf(documents);
        return writeErrors;
    }

    @Override
    public synchronized void addDocument(Document document) {
        super.addDocument(document);
        if (inserting.get()) {
            recorder.inserted(getFullName(), document);
        }
        FindAndModifyEffects effects = findAndModify.get();
        if (effects != null) {
            effects.inserted = document.cloneDeeply();
        }
    }

    @Override
    public synchronized void removeDocument(Document document) {
        super.removeDocument(document);
        FindAndModifyEffects effects = findAndModify.get();
        if (effects != null) {
            effects.removedId = document.get(getIdField());
        }
    }

    @Override
    protected void handleUpdate(Integer position, Document oldDocument, Document newDocument) {
        super.handleUpdate(position, oldDocument, newDocument);
        FindAndModifyEffects effects = findAndModify.get();
        if (effects != null) {
            effects.before = oldDocument.cloneDeeply();
            effects.after = newDocument.cloneDeeply();
        } else {
            recorder.capturedUpdate(oldDocument.cloneDeeply(), newDocument.cloneDeeply());
        }
    }

    @Override
    public synchronized Document updateDocuments(
            Document selector,
            Document updateQuery,
            ArrayFilters arrayFilters,
            boolean isMulti,
            boolean isUpsert,
            Oplog oplog) {
        recorder.clearCaptures();
        return super.updateDocuments(selector, updateQuery, arrayFilters, isMulti, isUpsert, oplog);
    }

    @Override
    public synchronized Document findAndModify(Document query) {
        FindAndModifyEffects effects = new FindAndModifyEffects();
        findAndModify.set(effects);
        Document result;
        try {
            result = super.findAndModify(query);
        } finally {
            findAndModify.remove();
        }
        if (effects.removedId != null) {
            recorder.handleDelete(getFullName(), null, List.of(effects.removedId));
        } else if (effects.inserted != null) {
            recorder.inserted(getFullName(), effects.inserted);
        } else if (effects.after != null && query.get("update") instanceof Document update) {
            recorder.updated(getFullName(), update, effects.after.get(getIdField()), effects.before, effects.after);
        }
        return result;
    }

    @Override
    protected QueryResult queryDocuments(
            Document query, Document orderBy, int numberToSkip, int limit, int batchSize, Document fieldSelector) {
        String idField = getIdField();
        if (query.size() > 1 && query.containsKey(idField) && isLiteral(query.get(idField))) {
            Document byId = new Document(idField, query.get(idField));
            for (Index<Integer> index : getIndexes()) {
                if (index.canHandle(byId)) {
                    return matchDocuments(
                            query, index.getPositions(byId), orderBy, numberToSkip, limit, batchSize, fieldSelector);
                }
            }
        }
        return super.queryDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }

    /** A value that matches by equality alone: no operator document, no regular expression. */
    private static boolean isLiteral(Object value) {
        if (value instanceof Document document) {
            return document.keySet().stream().noneMatch(key -> key.startsWith("$"));
        }
        return value != null && !(value instanceof BsonRegularExpression);
    }

    /** The effects of one findAndModify, as its hooks saw them. */
    private static final class FindAndModifyEffects {
        Object removedId;
        Document inserted;
        Document before;
        Document after;
    }
}

package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.AbstractMongoCollection.FindAndModifyPlanExecutorError;
import de.bwaldvogel.mongo.backend.ArrayFilters;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.DuplicateKeyError;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.oplog.NoopOplog;
import de.bwaldvogel.mongo.oplog.Oplog;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * mongo-java-server's in-memory collection, reporting each write to the {@link ChangeRecorder} itself, with what
 * mongo-java-server's oplog hook never hears of, and doing what it cannot.
 *
 * <ul>
 *   <li>Each write is recorded inside the collection's lock, as it succeeds: inserts one by one (the stock hook
 *       reports a batch afterwards, refused duplicates included, and outside the lock), an update with the images
 *       before and after it, a delete with the document it removed (the pre-image), findAndModify like the write it
 *       makes (the stock server records nothing).</li>
 *   <li>Updates with an aggregation pipeline ({@link PipelineUpdates}), by update and by findAndModify.</li>
 *   <li>The collection's UUID and its {@code changeStreamPreAndPostImages} option.</li>
 *   <li>Duplicate-key errors with MongoDB's {@code keyPattern} and {@code keyValue}.</li>
 *   <li>A filter such as the sink's {@code {_id: x, expireAt: d}} found through the {@code _id} index: the stock
 *       collection uses an index only when the filter's fields are exactly the index's, and scans otherwise.</li>
 * </ul>
 */
final class StandInCollection extends MemoryCollection {

    private static final Pattern DUPLICATE_INDEX = Pattern.compile(" index: (\\S+) dup key: ");

    private final ChangeRecorder recorder;
    private volatile UUID uuid = UUID.randomUUID();
    private volatile boolean preAndPostImages;
    /** What the current thread's write through a stock method did, as its hooks saw it; null outside one. */
    private final ThreadLocal<Effects> effects = new ThreadLocal<>();
    /** The keyPattern and keyValue of the duplicate key the current thread's last write ran into. */
    private final ThreadLocal<Document> lastDuplicate = new ThreadLocal<>();

    StandInCollection(
            MongoDatabase database,
            String collectionName,
            CollectionOptions options,
            CursorRegistry cursorRegistry,
            ChangeRecorder recorder) {
        super(database, collectionName, options, cursorRegistry);
        this.recorder = recorder;
    }

    /** The collection's UUID: MongoDB's {@code collectionUUID}, kept through renames. */
    UUID collectionUuid() {
        return uuid;
    }

    /** Takes the UUID an earlier run gave the collection. */
    void restoreUuid(UUID restored) {
        this.uuid = restored;
    }

    /** Whether the collection records pre- and post-images ({@code changeStreamPreAndPostImages.enabled}). */
    boolean recordsImages() {
        return preAndPostImages;
    }

    void recordImages(boolean enabled) {
        this.preAndPostImages = enabled;
    }

    /** The keyPattern and keyValue of the duplicate key this thread's last write ran into, once; null if none. */
    Document takeDuplicateKey() {
        Document details = lastDuplicate.get();
        lastDuplicate.remove();
        return details;
    }

    @Override
    public synchronized List<Document> insertDocuments(List<Document> documents, boolean isOrdered) {
        List<Document> writeErrors = new ArrayList<>();
        for (int index = 0; index < documents.size(); index++) {
            Document document = documents.get(index);
            try {
                addDocument(document);
                recorder.inserted(this, document.cloneDeeply());
            } catch (MongoServerError e) {
                writeErrors.add(StandInError.writeError(index, e));
                if (isOrdered) {
                    break;
                }
            }
        }
        return writeErrors;
    }

    @Override
    public synchronized void addDocument(Document document) {
        try {
            super.addDocument(document);
        } catch (DuplicateKeyError e) {
            throw duplicate(e, document);
        }
        Effects current = effects.get();
        if (current != null) {
            current.inserted.add(document.cloneDeeply());
        }
    }

    @Override
    public synchronized void removeDocument(Document document) {
        super.removeDocument(document);
        Effects current = effects.get();
        if (current != null) {
            current.removed.add(document);
        }
    }

    @Override
    protected void handleUpdate(Integer position, Document oldDocument, Document newDocument) {
        super.handleUpdate(position, oldDocument, newDocument);
        Effects current = effects.get();
        if (current != null) {
            current.updated.add(new Document[] {oldDocument.cloneDeeply(), newDocument.cloneDeeply()});
        }
    }

    @Override
    public synchronized int deleteDocuments(Document selector, int limit, Oplog oplog) {
        Effects done = begin();
        try {
            return super.deleteDocuments(selector, limit, NoopOplog.get());
        } finally {
            record(done, null);
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
        Effects done = begin();
        try {
            Document result =
                    super.updateDocuments(selector, updateQuery, arrayFilters, isMulti, isUpsert, NoopOplog.get());
            refuseTooLarge(done);
            return result;
        } catch (DuplicateKeyError e) {
            throw duplicateOnUpdate(e, selector, updateQuery, arrayFilters, done);
        } finally {
            record(done, updateQuery);
        }
    }

    /**
     * One update statement whose update is a pipeline: the matched documents (the first, unless {@code multi}) are
     * replaced by what the pipeline makes of them, or, with {@code upsert} and no match, the pipeline's output of the
     * filter's equalities is inserted.
     *
     * @return MongoDB's counts: {@code n} (matched), {@code nModified}, and {@code upserted} (the new {@code _id})
     */
    synchronized Document updateByPipeline(Document selector, List<Document> stages, boolean multi, boolean upsert) {
        List<Document> matched = new ArrayList<>();
        for (Document document : queryDocuments(selector, null, 0, 0, 0, null)) {
            matched.add(document.cloneDeeply());
            if (!multi) {
                break;
            }
        }
        int modified = 0;
        for (Document before : matched) {
            if (replaceByPipeline(before, PipelineUpdates.apply(stages, before, this), stages)) {
                modified++;
            }
        }
        Document result = new Document("n", matched.size()).append("nModified", modified);
        if (matched.isEmpty() && upsert) {
            Document inserted = PipelineUpdates.apply(stages, PipelineUpdates.upsertSeed(selector), this);
            addDocument(inserted);
            recorder.inserted(this, inserted.cloneDeeply());
            result.append("upserted", inserted.get(getIdField()));
        }
        return result;
    }

    @Override
    public synchronized Document findAndModify(Document query) {
        if (PipelineUpdates.isPipeline(query.get("update"))) {
            return findAndModifyByPipeline(query);
        }
        Effects done = begin();
        try {
            Document result = super.findAndModify(query);
            refuseTooLarge(done);
            return result;
        } catch (FindAndModifyPlanExecutorError e) {
            if (!(e.getCause() instanceof DuplicateKeyError duplicate)) {
                throw e;
            }
            StandInError described = duplicateOnUpdate(
                    duplicate,
                    query.get("query") instanceof Document q ? q : new Document(),
                    (Document) query.get("update"),
                    ArrayFilters.empty(),
                    done);
            // MongoDB's message keeps the command's context; the details are the duplicate's.
            throw new StandInError(
                    e.getCode(), e.getCodeName(), e.getMessageWithoutErrorCode(), List.of(), described.details());
        } finally {
            record(done, query.get("update"));
        }
    }

    private Document findAndModifyByPipeline(Document query) {
        if (Utils.isTrue(query.get("remove"))) {
            throw new MongoServerError(
                    ErrorCodes.FAILED_TO_PARSE, "FailedToParse", "Cannot specify both an update and remove=true");
        }
        List<Document> stages = PipelineUpdates.stages(query.get("update"));
        Document filter = query.get("query") instanceof Document q ? q : new Document();
        Document search = new Document("query", filter);
        if (query.get("sort") instanceof Document sort) {
            search.append("orderby", sort);
        }
        Iterator<Document> found = handleQuery(search, 0, 1).iterator();
        boolean returnNew = Utils.isTrue(query.get("new"));
        Document lastError;
        Document value;
        if (found.hasNext()) {
            Document before = found.next().cloneDeeply();
            Document after = PipelineUpdates.apply(stages, before, this);
            replaceByPipeline(before, after, stages);
            value = returnNew ? after : before;
            lastError = new Document("n", 1).append("updatedExisting", true);
        } else if (Utils.isTrue(query.get("upsert"))) {
            Document inserted = PipelineUpdates.apply(stages, PipelineUpdates.upsertSeed(filter), this);
            addDocument(inserted);
            recorder.inserted(this, inserted.cloneDeeply());
            value = returnNew ? inserted : null;
            lastError = new Document("n", 1).append("updatedExisting", false).append("upserted", inserted.get("_id"));
        } else {
            value = null;
            lastError = new Document("n", 0).append("updatedExisting", false);
        }
        if (value != null && query.get("fields") instanceof Document fields && !fields.isEmpty()) {
            value = Aggregation.fromPipeline(
                            List.of(new Document("$project", fields)), null, getDatabase(), this, NoopOplog.get())
                    .runStages(Stream.of(value))
                    .get(0);
        }
        Document result = new Document("lastErrorObject", lastError).append("value", value);
        Utils.markOkay(result);
        return result;
    }

    /**
     * Replaces {@code before} by {@code after}, the output of a pipeline update, and records it as MongoDB describes a
     * pipeline update.
     *
     * @return whether the document changed
     */
    private boolean replaceByPipeline(Document before, Document after, List<Document> stages) {
        if (DocumentDiff.sameBson(before, after)) {
            return false;
        }
        if (BsonLimits.tooLargeToStore(after)) {
            throw BsonLimits.updateTooLarge();
        }
        Effects done = begin();
        try {
            super.updateDocuments(
                    new Document(getIdField(), before.get(getIdField())),
                    after,
                    ArrayFilters.empty(),
                    false,
                    false,
                    NoopOplog.get());
        } catch (DuplicateKeyError e) {
            throw duplicate(e, after);
        } finally {
            record(done, stages);
        }
        return true;
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

    /**
     * Undoes the documents a stock update made larger than MongoDB stores, from the first such one on (MongoDB stops
     * there: the documents a multi-update changed before it stay changed), and fails the update as MongoDB does. (An
     * upsert cannot make one: its document is made of the statement, which the wire decoder bounds to 16 MiB.)
     * mongo-java-server checks no size, and its update hook runs after the document changed in place, so the
     * result is checked afterwards and the old version written back; neither write is recorded.
     */
    private void refuseTooLarge(Effects done) {
        int first = -1;
        for (int i = 0; i < done.updated.size() && first < 0; i++) {
            if (BsonLimits.tooLargeToStore(done.updated.get(i)[1])) {
                first = i;
            }
        }
        if (first < 0) {
            return;
        }
        effects.remove();
        while (done.updated.size() > first) {
            Document before = done.updated.remove(done.updated.size() - 1)[0];
            super.updateDocuments(
                    new Document(getIdField(), before.get(getIdField())),
                    before,
                    ArrayFilters.empty(),
                    false,
                    false,
                    NoopOplog.get());
        }
        throw BsonLimits.updateTooLarge();
    }

    private Effects begin() {
        Effects started = new Effects();
        effects.set(started);
        return started;
    }

    /** Records what a write did, also when it failed part-way: what it changed stays changed. */
    private void record(Effects done, Object update) {
        effects.remove();
        for (Document[] images : done.updated) {
            recorder.updated(this, update, images[0], images[1]);
        }
        done.inserted.forEach(document -> recorder.inserted(this, document));
        done.removed.forEach(document -> recorder.deleted(this, document));
    }

    /** A duplicate key error of {@code document}, with MongoDB's {@code keyPattern} and {@code keyValue}. */
    private StandInError duplicate(DuplicateKeyError error, Document document) {
        Document keyPattern = new Document();
        Document keyValue = new Document();
        Matcher matcher = DUPLICATE_INDEX.matcher(error.getMessageWithoutErrorCode());
        String indexName = matcher.find() ? matcher.group(1) : "_id_";
        for (Index<Integer> index : getIndexes()) {
            if (index.getName().equals(indexName)) {
                for (IndexKey key : index.getKeys()) {
                    keyPattern.append(key.getKey(), key.isAscending() ? 1 : -1);
                    Object value = Utils.getSubdocumentValue(document, key.getKey());
                    keyValue.append(key.getKey(), value instanceof Missing ? null : value);
                }
            }
        }
        Document details = new Document("keyPattern", keyPattern).append("keyValue", keyValue);
        lastDuplicate.set(details);
        return new StandInError(
                error.getCode(), error.getCodeName(), error.getMessageWithoutErrorCode(), List.of(), details);
    }

    /**
     * A duplicate key error of an update by operators: the document it would have made, which the stock collection
     * does not expose, is made again on a copy of the first matched document that was not updated.
     */
    private StandInError duplicateOnUpdate(
            DuplicateKeyError error, Document selector, Document update, ArrayFilters arrayFilters, Effects done) {
        List<Object> updatedIds =
                done.updated.stream().map(images -> images[1].get(getIdField())).toList();
        for (Document candidate : queryDocuments(selector, null, 0, 0, 0, null)) {
            if (updatedIds.contains(candidate.get(getIdField()))) {
                continue;
            }
            MemoryCollection scratch = new MemoryCollection(
                    getDatabase(), getCollectionName(), CollectionOptions.withDefaults(), new CursorRegistry());
            scratch.addDocument(candidate.cloneDeeply());
            scratch.updateDocuments(
                    new Document(getIdField(), candidate.get(getIdField())),
                    update,
                    arrayFilters,
                    false,
                    false,
                    NoopOplog.get());
            return duplicate(error, scratch.queryAll().iterator().next());
        }
        return duplicate(error, new Document());
    }

    /** A value that matches by equality alone: no operator document, no regular expression. */
    private static boolean isLiteral(Object value) {
        if (value instanceof Document document) {
            return document.keySet().stream().noneMatch(key -> key.startsWith("$"));
        }
        return value != null && !(value instanceof BsonRegularExpression);
    }

    /** The effects of one write through a stock method, as its hooks saw them. */
    private static final class Effects {
        final List<Document[]> updated = new ArrayList<>();
        final List<Document> inserted = new ArrayList<>();
        final List<Document> removed = new ArrayList<>();
    }
}

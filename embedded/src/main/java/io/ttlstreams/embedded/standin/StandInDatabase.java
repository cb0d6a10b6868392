package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.DatabaseResolver;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.oplog.NoopOplog;
import de.bwaldvogel.mongo.oplog.Oplog;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * mongo-java-server's in-memory database, whose collections are {@link StandInCollection}s, with the commands it lacks
 * or answers otherwise than MongoDB.
 *
 * <ul>
 *   <li>{@code insert}: written one by one, {@code n} counting what was inserted (the stock server counts the whole
 *       batch, refused duplicates too), duplicate keys with {@code keyPattern} and {@code keyValue}.</li>
 *   <li>{@code update}: statement by statement, an ordered update stopping at its first error (the stock server goes
 *       on), a statement whose update is a pipeline run by {@link PipelineUpdates}.</li>
 *   <li>{@code create} with {@code changeStreamPreAndPostImages}, and {@code collMod} of it.</li>
 *   <li>{@code listCollections} with each collection's options and UUID.</li>
 *   <li>The expanded change events of collections (created explicitly or by a first write) and indexes.</li>
 *   <li>A rename into another database moves the collection's index descriptions with it (the stock server leaves
 *       them behind, and then cannot drop the collection).</li>
 * </ul>
 */
final class StandInDatabase extends MemoryDatabase {

    /** The options of {@code create} that describe the collection, as a {@code create} event reports them. */
    private static final Set<String> COLLECTION_OPTIONS = Set.of(
            "capped",
            "size",
            "max",
            "validator",
            "validationLevel",
            "validationAction",
            "changeStreamPreAndPostImages",
            "collation",
            "timeseries",
            "expireAfterSeconds",
            "clusteredIndex",
            "storageEngine",
            "indexOptionDefaults");

    /** The options of {@code collMod} MongoDB has and the stand-in does not apply. */
    private static final Set<String> UNSUPPORTED_COLLMOD_OPTIONS = Set.of(
            "validator",
            "validationLevel",
            "validationAction",
            "index",
            "expireAfterSeconds",
            "viewOn",
            "pipeline",
            "timeseries",
            "cappedSize",
            "cappedMax",
            "dryRun");

    /** Arguments any command may carry, which are not options of the command. */
    private static final Set<String> GENERIC_ARGUMENTS = Set.of(
            "$db",
            "lsid",
            "txnNumber",
            "autocommit",
            "$clusterTime",
            "$readPreference",
            "writeConcern",
            "readConcern",
            "comment",
            "maxTimeMS",
            "apiVersion",
            "apiStrict",
            "apiDeprecationErrors");

    private final ChangeRecorder recorder;
    /** Every collection this database created; some may have been dropped or renamed into another database since. */
    private final Set<StandInCollection> created = ConcurrentHashMap.newKeySet();

    StandInDatabase(String databaseName, CursorRegistry cursorRegistry, ChangeRecorder recorder) {
        super(databaseName, cursorRegistry);
        this.recorder = recorder;
    }

    @Override
    protected MemoryCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
        // The superclass constructor creates the system collections before recorder is set; they report nothing.
        if (recorder == null || collectionName.startsWith("system.")) {
            return super.openOrCreateCollection(collectionName, options);
        }
        StandInCollection collection = new StandInCollection(this, collectionName, options, cursorRegistry, recorder);
        created.add(collection);
        return collection;
    }

    /** A collection created by its first write: MongoDB records a {@code create} for it. */
    @Override
    protected synchronized MongoCollection<Integer> resolveOrCreateCollection(String collectionName) {
        MongoCollection<Integer> existing = resolveCollection(collectionName, false);
        if (existing != null) {
            return existing;
        }
        MongoCollection<Integer> collection = super.resolveOrCreateCollection(collectionName);
        if (collection instanceof StandInCollection standIn) {
            recorder.created(standIn, new Document());
        }
        return collection;
    }

    /** The collections this database created, wherever they are now, if anywhere. */
    Set<StandInCollection> created() {
        return created;
    }

    /** Creates a collection an earlier run had, without any change event. */
    StandInCollection restore(String collectionName) {
        MongoCollection<?> existing = resolveCollection(collectionName, false);
        return (StandInCollection)
                (existing != null
                        ? existing
                        : createCollectionOrThrowIfExists(collectionName, CollectionOptions.withDefaults()));
    }

    @Override
    public Document handleCommand(
            Channel channel, String command, Document query, DatabaseResolver databaseResolver, Oplog oplog) {
        return switch (command.toLowerCase(java.util.Locale.ROOT)) {
            case "insert" -> insert(query);
            case "update" -> update(channel, query, databaseResolver, oplog);
            case "findandmodify" -> findAndModify(channel, command, query, databaseResolver, oplog);
            case "create" -> create(query);
            case "collmod" -> collMod(query);
            case "createindexes" -> createIndexes(channel, query, databaseResolver, oplog);
            case "dropindexes" -> dropIndexes(channel, query, databaseResolver, oplog);
            case "listcollections" ->
                listCollections(super.handleCommand(channel, command, query, databaseResolver, oplog));
            default -> super.handleCommand(channel, command, query, databaseResolver, oplog);
        };
    }

    private static boolean ordered(Document command) {
        return !command.containsKey("ordered") || Utils.isTrue(command.get("ordered"));
    }

    private StandInCollection writable(String collectionName, int code, String refusal) {
        if (collectionName.startsWith("system.")) {
            throw new MongoServerError(code, refusal);
        }
        return (StandInCollection) resolveOrCreateCollection(collectionName);
    }

    private Document insert(Document query) {
        @SuppressWarnings("unchecked")
        List<Document> documents = (List<Document>) query.get("documents");
        boolean ordered = ordered(query);
        List<Document> writeErrors;
        try {
            writeErrors = writable(String.valueOf(query.get("insert")), 16459, "attempt to insert in system namespace")
                    .insertDocuments(documents, ordered);
        } catch (MongoServerError e) {
            writeErrors = List.of(StandInError.writeError(0, e));
        }
        int inserted = ordered
                ? (writeErrors.isEmpty()
                        ? documents.size()
                        : (int) writeErrors.get(0).get("index"))
                : documents.size() - writeErrors.size();
        Document response = new Document("n", inserted);
        if (!writeErrors.isEmpty()) {
            response.append("writeErrors", writeErrors);
        }
        Utils.markOkay(response);
        return response;
    }

    /**
     * The {@code update} command, statement by statement: a pipeline by {@link StandInCollection#updateByPipeline},
     * any other by mongo-java-server, each statement's counts and errors numbered as in the command.
     */
    private Document update(Channel channel, Document query, DatabaseResolver databaseResolver, Oplog oplog) {
        String collectionName = String.valueOf(query.get("update"));
        @SuppressWarnings("unchecked")
        List<Document> statements = (List<Document>) query.get("updates");
        boolean ordered = ordered(query);
        int n = 0;
        int modified = 0;
        List<Document> upserted = new ArrayList<>();
        List<Document> writeErrors = new ArrayList<>();
        for (int index = 0; index < statements.size(); index++) {
            Document statement = statements.get(index);
            Document result;
            try {
                if (resolveCollection(collectionName, false) == null && !Utils.isTrue(statement.get("upsert"))) {
                    // MongoDB creates no collection for an update that matches nothing and inserts nothing.
                    result = new Document("n", 0).append("nModified", 0);
                } else if (PipelineUpdates.isPipeline(statement.get("u"))) {
                    result = updateByPipeline(collectionName, statement);
                } else {
                    Document single = new Document(query).append("updates", List.of(statement));
                    result = super.handleCommand(channel, "update", single, databaseResolver, oplog);
                }
            } catch (MongoServerError e) {
                result = new Document("writeErrors", List.of(StandInError.writeError(0, e)));
            }
            if (result.get("writeErrors") instanceof List<?> errors && !errors.isEmpty()) {
                Document error = new Document((Document) errors.get(0)).append("index", index);
                if (Integer.valueOf(11000).equals(error.get("code"))
                        && !error.containsKey("keyPattern")
                        && resolveCollection(collectionName, false) instanceof StandInCollection collection) {
                    Document details = collection.takeDuplicateKey();
                    if (details != null) {
                        error.putAll(details);
                    }
                }
                writeErrors.add(error);
                if (ordered) {
                    break;
                }
                continue;
            }
            n += ((Number) result.getOrDefault("n", 0)).intValue();
            modified += ((Number) result.getOrDefault("nModified", 0)).intValue();
            Object upsertedId = result.get("upserted") instanceof List<?> ids && !ids.isEmpty()
                    ? ((Document) ids.get(0)).get("_id")
                    : result.get("upsertedId");
            if (upsertedId != null || result.containsKey("upsertedId")) {
                upserted.add(new Document("index", index).append("_id", upsertedId));
            }
        }
        Document response = new Document("n", n).append("nModified", modified);
        if (!upserted.isEmpty()) {
            response.append("upserted", upserted);
        }
        if (!writeErrors.isEmpty()) {
            response.append("writeErrors", writeErrors);
        }
        Utils.markOkay(response);
        return response;
    }

    /** {@code findAndModify}; of a collection that does not exist, it creates one only to insert (upsert). */
    private Document findAndModify(
            Channel channel, String command, Document query, DatabaseResolver databaseResolver, Oplog oplog) {
        if (resolveCollection(String.valueOf(query.get(command)), false) == null
                && !Utils.isTrue(query.get("upsert"))) {
            Document response = new Document("lastErrorObject", new Document("n", 0).append("updatedExisting", false))
                    .append("value", null);
            Utils.markOkay(response);
            return response;
        }
        return super.handleCommand(channel, command, query, databaseResolver, oplog);
    }

    private Document updateByPipeline(String collectionName, Document statement) {
        if (statement.containsKey("arrayFilters")) {
            throw new MongoServerError(
                    ErrorCodes.FAILED_TO_PARSE,
                    "FailedToParse",
                    "arrayFilters may not be specified for pipeline-style updates");
        }
        List<Document> stages = PipelineUpdates.stages(statement.get("u"));
        Document filter = statement.get("q") instanceof Document q ? q : new Document();
        StandInCollection collection = writable(collectionName, 10156, "cannot update system collection");
        Document counts = collection.updateByPipeline(
                filter, stages, Utils.isTrue(statement.get("multi")), Utils.isTrue(statement.get("upsert")));
        int n = (int) counts.get("n") + (counts.containsKey("upserted") ? 1 : 0);
        Document result = new Document("n", n).append("nModified", counts.get("nModified"));
        if (counts.containsKey("upserted")) {
            result.append("upsertedId", counts.get("upserted"));
        }
        return result;
    }

    private Document create(Document query) {
        String collectionName = String.valueOf(query.get("create"));
        Boolean images = null;
        if (query.containsKey("changeStreamPreAndPostImages")) {
            images = imagesOption("create", query.get("changeStreamPreAndPostImages"));
        }
        // As MongoDB keeps a collection's options: the ones set, defaults (capped: false, as drivers send it) left out.
        boolean capped = Utils.isTrue(query.get("capped"));
        Document options = new Document();
        query.forEach((key, value) -> {
            boolean cappedOption = key.equals("capped") || key.equals("size") || key.equals("max");
            if (COLLECTION_OPTIONS.contains(key) && (capped || !cappedOption)) {
                options.append(key, value);
            }
        });
        CollectionOptions collectionOptions = CollectionOptions.fromQuery(query);
        collectionOptions.validate();
        StandInCollection collection =
                (StandInCollection) createCollectionOrThrowIfExists(collectionName, collectionOptions);
        if (images != null) {
            collection.recordImages(images);
        }
        recorder.created(collection, options);
        Document response = new Document();
        Utils.markOkay(response);
        return response;
    }

    /**
     * {@code collMod}: {@code changeStreamPreAndPostImages} only, effective for the writes that follow; the options
     * MongoDB has besides are refused as not implemented, unknown ones as MongoDB refuses them.
     */
    private Document collMod(Document query) {
        String collectionName = String.valueOf(query.get("collMod"));
        if (!(resolveCollection(collectionName, false) instanceof StandInCollection collection)) {
            throw new MongoServerError(
                    ErrorCodes.NAMESPACE_NOT_FOUND,
                    "NamespaceNotFound",
                    "ns does not exist: " + getDatabaseName() + "." + collectionName);
        }
        Boolean images = null;
        for (Map.Entry<String, Object> option : query.entrySet()) {
            String name = option.getKey();
            if (name.equals("collMod") || GENERIC_ARGUMENTS.contains(name)) {
                continue;
            }
            if (name.equals("changeStreamPreAndPostImages")) {
                images = imagesOption("collMod", option.getValue());
            } else if (UNSUPPORTED_COLLMOD_OPTIONS.contains(name)) {
                throw new MongoServerError(
                        ErrorCodes.NOT_IMPLEMENTED,
                        "NotImplemented",
                        "the MongoDB stand-in's collMod changes changeStreamPreAndPostImages only, not " + name);
            } else {
                throw new MongoServerError(
                        ErrorCodes.UNKNOWN_FIELD,
                        "Location40415",
                        "BSON field 'collMod." + name + "' is an unknown field.");
            }
        }
        if (images != null) {
            Document options = new Document("uuid", collection.collectionUuid());
            if (collection.recordsImages()) {
                options.append("changeStreamPreAndPostImages", new Document("enabled", true));
            }
            collection.recordImages(images);
            recorder.modified(
                    collection,
                    new Document("changeStreamPreAndPostImages", new Document("enabled", images)),
                    new Document("collectionOptions", options));
        }
        Document response = new Document();
        Utils.markOkay(response);
        return response;
    }

    /** The value of {@code changeStreamPreAndPostImages}, checked as MongoDB checks it. */
    private static boolean imagesOption(String command, Object value) {
        String field = command + ".changeStreamPreAndPostImages";
        if (!(value instanceof Document option)) {
            throw new MongoServerError(
                    ErrorCodes.TYPE_MISMATCH,
                    "TypeMismatch",
                    "BSON field '" + field + "' is the wrong type, expected type 'object'");
        }
        for (String key : option.keySet()) {
            if (!key.equals("enabled")) {
                throw new MongoServerError(
                        ErrorCodes.UNKNOWN_FIELD,
                        "Location40415",
                        "BSON field '" + field + "." + key + "' is an unknown field.");
            }
        }
        if (!(option.get("enabled") instanceof Boolean enabled)) {
            throw new MongoServerError(
                    40414, "Location40414", "BSON field '" + field + ".enabled' is missing but a required field");
        }
        return enabled;
    }

    private Document createIndexes(Channel channel, Document query, DatabaseResolver databaseResolver, Oplog oplog) {
        String collectionName = String.valueOf(query.get("createIndexes"));
        Map<String, Document> before = indexesOf(collectionName);
        Document response = super.handleCommand(channel, "createIndexes", query, databaseResolver, oplog);
        List<Document> createdIndexes = new ArrayList<>();
        indexesOf(collectionName).forEach((name, index) -> {
            if (!before.containsKey(name)) {
                createdIndexes.add(index);
            }
        });
        if (!createdIndexes.isEmpty()
                && resolveCollection(collectionName, false) instanceof StandInCollection collection) {
            recorder.indexesCreated(collection, createdIndexes);
        }
        return response;
    }

    private Document dropIndexes(Channel channel, Document query, DatabaseResolver databaseResolver, Oplog oplog) {
        String collectionName = String.valueOf(query.get("dropIndexes"));
        Map<String, Document> before = indexesOf(collectionName);
        Document response = super.handleCommand(channel, "dropIndexes", query, databaseResolver, oplog);
        Map<String, Document> after = indexesOf(collectionName);
        if (resolveCollection(collectionName, false) instanceof StandInCollection collection) {
            before.forEach((name, index) -> {
                if (!after.containsKey(name)) {
                    recorder.indexDropped(collection, index);
                }
            });
        }
        return response;
    }

    /** The collection's indexes by name, each as MongoDB specifies it: {@code v}, {@code key}, {@code name}, options. */
    private Map<String, Document> indexesOf(String collectionName) {
        Map<String, Document> found = new LinkedHashMap<>();
        MongoCollection<Integer> descriptions = indexes.get();
        if (descriptions == null) {
            return found;
        }
        for (Document description :
                descriptions.handleQuery(new Document("ns", getFullCollectionNamespace(collectionName)))) {
            Document index = new Document("v", description.getOrDefault("v", 2))
                    .append("key", description.get("key"))
                    .append("name", description.get("name"));
            description.forEach((key, value) -> {
                if (!index.containsKey(key) && !key.equals("ns")) {
                    index.append(key, value);
                }
            });
            found.put(String.valueOf(description.get("name")), index);
        }
        return found;
    }

    /** Each collection with its options and UUID, as MongoDB lists them. */
    private Document listCollections(Document response) {
        if (response.get("cursor") instanceof Document cursor && cursor.get("firstBatch") instanceof List<?> batch) {
            for (Object entry : batch) {
                Document description = (Document) entry;
                if (resolveCollection(String.valueOf(description.get("name")), false)
                        instanceof StandInCollection collection) {
                    Document options = new Document();
                    if (collection.recordsImages()) {
                        options.append("changeStreamPreAndPostImages", new Document("enabled", true));
                    }
                    description.put("options", options);
                    description.put(
                            "info", new Document("readOnly", false).append("uuid", collection.collectionUuid()));
                }
            }
        }
        return response;
    }

    @Override
    public void dropCollection(String collectionName, Oplog oplog) {
        UUID uuid = dropWithoutEvent(collectionName);
        recorder.dropped(getDatabaseName(), collectionName, uuid);
    }

    /**
     * Drops a collection without a change event, as a rename with {@code dropTarget} replaces its target.
     *
     * @return the dropped collection's UUID, null for a collection that is not a {@link StandInCollection}
     */
    UUID dropWithoutEvent(String collectionName) {
        MongoCollection<?> collection = resolveCollection(collectionName, true);
        super.dropCollection(collectionName, NoopOplog.get());
        return collection instanceof StandInCollection standIn ? standIn.collectionUuid() : null;
    }

    @Override
    public void moveCollection(MongoDatabase oldDatabase, MongoCollection<?> collection, String newCollectionName) {
        if (oldDatabase != this && oldDatabase instanceof StandInDatabase old && old.indexes.get() != null) {
            // The stock move re-points the index descriptions of this database only; they are in the old one.
            Document ofCollection = new Document("ns", collection.getFullName());
            List<Document> descriptions = new ArrayList<>();
            old.indexes.get().handleQuery(ofCollection).forEach(description -> descriptions.add(description.clone()));
            old.indexes.get().deleteDocuments(ofCollection, 0);
            MongoCollection<Integer> here = getOrCreateIndexesCollection();
            descriptions.forEach(here::addDocument);
        }
        super.moveCollection(oldDatabase, collection, newCollectionName);
    }
}

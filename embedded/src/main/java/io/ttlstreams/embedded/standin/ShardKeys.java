package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * Sharded collections as the stand-in plays them: the admin commands that shard, refine and reshard a collection, and
 * the {@code documentKey} its change events carry from then on.
 *
 * <p>Commands, as {@code mongosh}'s {@code sh.shardCollection}, {@code sh.refineCollectionShardKey} and {@code
 * sh.reshardCollection} send them to {@code admin} (the manual's command pages):
 *
 * <ul>
 *   <li>{@code {shardCollection: "db.coll", key: {f: 1 | "hashed", ...}, unique, numInitialChunks,
 *       presplitHashedZones, collation}}: creates the collection if need be; the same key again is accepted as
 *       MongoDB accepts it, another key refused (AlreadyInitialized, 23).</li>
 *   <li>{@code {refineCollectionShardKey: "db.coll", key}}: the new key must begin with the current one (InvalidOptions,
 *       72, otherwise).</li>
 *   <li>{@code {reshardCollection: "db.coll", key, unique, numInitialChunks, collation, zones}}: the same key again does
 *       nothing, as in 7.0; another one gives the collection the resharding's UUID, as MongoDB's resharding renames a
 *       collection made with that UUID over the old one.</li>
 *   <li>{@code {enableSharding: "db"}}, which older tools send first, is answered {@code ok}.</li>
 * </ul>
 *
 * Refine and reshard of a collection that is not sharded fail with NamespaceNotSharded (118). Each command records the
 * expanded event MongoDB emits for it ({@code shardCollection}, {@code refineCollectionShardKey}, {@code
 * reshardCollection}) with the {@code operationDescription} fields of the manual's change-events reference.
 *
 * <p>{@code documentKey} ({@link #documentKey}): the shard key's fields in the key's order, each with the document's
 * value (a hashed field's value, not its hash), then {@code _id} unless the key holds it; a field the document lacks is
 * left out, not given as null. That is MongoDB's {@code getDocumentKey} ({@code extractElementsBasedOnTemplate} of the
 * key pattern, without nulls for missing fields), as its jstests {@code oplog_document_key.js} and {@code
 * change_stream_resume_shard_key_change.js} show and SERVER-75993 / SERVER-105706 report of missing shard key fields.
 * An explicit null is kept ({@code {tenant: null, _id}}). Inserts take it from the document inserted, updates,
 * replaces and deletes from the document as it was before the write (MongoDB's update stage takes the oplog's {@code
 * o2} from the pre-update document; SERVER-75993's update example shows it).
 *
 * <p>An update or replacement that changes a document's shard key value ({@link #moves}): the stand-in plays a
 * cluster whose chunk boundaries fall between distinct values of the shard key's first field, so that
 *
 * <ul>
 *   <li>a change of the first field moves the document to another shard, which MongoDB does (mongos, on
 *       WouldChangeOwningShard; "Change a Document's Shard Key Value" in the manual, SERVER-39835) as a delete of the
 *       old document on the donor shard and an insert of the new one on the recipient, in one transaction: the stream
 *       sees a {@code delete} (documentKey with the old value, the pre-image if recorded) and an {@code insert}
 *       (documentKey with the new value, {@code fullDocument} the new document), both at one {@code clusterTime} as a
 *       transaction's events are, without its {@code lsid} and {@code txnNumber}, and no {@code update};</li>
 *   <li>a change of a later field only (a field a refine added: refining moves no data, so documents sharing the old
 *       key's values stay together) keeps it on its shard: an {@code update} or {@code replace} whose {@code
 *       documentKey} holds the <em>old</em> value, so that its {@code updateLookup}, which MongoDB runs by the whole
 *       {@code documentKey}, finds nothing and gives {@code fullDocument: null}.</li>
 * </ul>
 *
 * <p>The stand-in stays what it says it is, the primary of a one-member replica set ({@link StandInIdentity}: no
 * {@code msg: "isdbgrid"}, no sharding catalog in {@code config.collections}), playing a cluster's one shard that
 * also takes the commands a {@code mongos} would route. Turning into a {@code mongos} when a collection is sharded
 * would lose every client already connected (a driver removes from a replica-set topology a server that answers as a
 * {@code mongos}), which no real deployment does under its clients; and the events a stream on {@code mongos} returns
 * are the shards' events, merged: the same shapes as here. A shard's own members hold no {@code config.collections}
 * entries either, so what a client can learn of a shard key is what an application without the cluster's privileges
 * learns: the expanded events above. A test that needs a client to see a sharded cluster, as one reading through
 * {@code mongos} does, starts the stand-in as a {@code mongos} from the start ({@link StandInSettings#mongos()}),
 * which also serves {@code config.collections} ({@link ShardingCatalog}).
 */
final class ShardKeys {

    private static final Set<String> COMMANDS =
            Set.of("shardcollection", "refinecollectionshardkey", "reshardcollection", "enablesharding");

    private ShardKeys() {}

    /** True for the commands this class answers: the sharding commands, on {@code admin}. */
    static boolean answers(String databaseName, String command) {
        return databaseName.equals("admin") && COMMANDS.contains(command.toLowerCase(Locale.ROOT));
    }

    /**
     * Runs a sharding command.
     *
     * @param databases resolves a database by name and whether to create it if it does not exist (null then)
     */
    static Document handle(
            String command,
            Document query,
            BiFunction<String, Boolean, MongoDatabase> databases,
            ChangeRecorder recorder) {
        String name = command.toLowerCase(Locale.ROOT);
        if (!name.equals("enablesharding")) {
            String namespace = namespace(query.get(command));
            String databaseName = Utils.getDatabaseNameFromFullName(namespace);
            String collectionName = Utils.getCollectionNameFromFullName(namespace);
            Document key = keyPattern(query.get("key"));
            switch (name) {
                case "shardcollection" ->
                    shard((StandInDatabase) databases.apply(databaseName, true), collectionName, key, query, recorder);
                case "refinecollectionshardkey" ->
                    refine(sharded(databases.apply(databaseName, false), namespace), key, recorder);
                default -> reshard(sharded(databases.apply(databaseName, false), namespace), key, query, recorder);
            }
        }
        Document response = new Document();
        Utils.markOkay(response);
        return response;
    }

    private static void shard(
            StandInDatabase database, String collectionName, Document key, Document query, ChangeRecorder recorder) {
        StandInCollection collection = (StandInCollection) database.resolveOrCreateCollection(collectionName);
        boolean unique = Utils.isTrue(query.get("unique"));
        Document current = collection.shardKey();
        if (current != null) {
            if (DocumentDiff.sameBson(current, key) && unique == collection.uniqueShardKey()) {
                return; // MongoDB answers ok to the same request again
            }
            throw new StandInError(
                    ErrorCodes.ALREADY_INITIALIZED,
                    "AlreadyInitialized",
                    "sharding already enabled for collection " + collection.getFullName() + " with options { key: "
                            + current.toString() + " }",
                    List.of(),
                    null);
        }
        if (unique && key.containsValue("hashed")) {
            throw new MongoServerError(
                    ErrorCodes.INVALID_OPTIONS, "InvalidOptions", "Hashed shard keys cannot be declared unique.");
        }
        collection.shard(key, unique);
        Document description = new Document("shardKey", key.cloneDeeply())
                .append("unique", unique)
                .append("presplitHashedZones", Utils.isTrue(query.get("presplitHashedZones")));
        if (query.get("numInitialChunks") instanceof Number chunks) {
            description.append("numInitialChunks", chunks.longValue());
        }
        recorder.sharded(collection, Change.Type.SHARD_COLLECTION, description);
    }

    private static void refine(StandInCollection collection, Document key, ChangeRecorder recorder) {
        Document current = collection.shardKey();
        if (!startsWith(key, current)) {
            throw new MongoServerError(
                    ErrorCodes.INVALID_OPTIONS,
                    "InvalidOptions",
                    "refineCollectionShardKey: the new shard key " + key + " must have the current shard key " + current
                            + " as a prefix");
        }
        collection.shard(key, collection.uniqueShardKey());
        recorder.sharded(
                collection,
                Change.Type.REFINE_COLLECTION_SHARD_KEY,
                new Document("shardKey", key.cloneDeeply()).append("oldShardKey", current.cloneDeeply()));
    }

    private static void reshard(StandInCollection collection, Document key, Document query, ChangeRecorder recorder) {
        Document current = collection.shardKey();
        if (DocumentDiff.sameBson(current, key)) {
            return; // 7.0: resharding on the current key is a no-op
        }
        UUID reshardUuid = UUID.randomUUID();
        boolean unique = Utils.isTrue(query.get("unique"));
        Document description = new Document("reshardUUID", reshardUuid)
                .append("shardKey", key.cloneDeeply())
                .append("oldShardKey", current.cloneDeeply())
                .append("unique", unique)
                .append(
                        "numInitialChunks",
                        query.get("numInitialChunks") instanceof Number chunks ? chunks.longValue() : 1L);
        if (query.get("collation") instanceof Document collation) {
            description.append("collation", collation.cloneDeeply());
        }
        if (query.get("zones") instanceof List<?> zones) {
            description.append("zones", zones);
        }
        // The event names the collection by the UUID it had; everything after carries the resharded one's.
        recorder.sharded(collection, Change.Type.RESHARD_COLLECTION, description);
        collection.shard(key, unique);
        collection.restoreUuid(reshardUuid);
    }

    /** The collection {@code namespace} of {@code database} (null: none), which must be sharded. */
    private static StandInCollection sharded(MongoDatabase database, String namespace) {
        MongoCollection<?> collection = database == null
                ? null
                : database.resolveCollection(Utils.getCollectionNameFromFullName(namespace), false);
        if (!(collection instanceof StandInCollection standIn) || standIn.shardKey() == null) {
            throw new StandInError(
                    ErrorCodes.NAMESPACE_NOT_SHARDED,
                    "NamespaceNotSharded",
                    "Collection " + namespace + " is not sharded",
                    List.of(),
                    null);
        }
        return standIn;
    }

    private static String namespace(Object value) {
        if (!(value instanceof String namespace)
                || namespace.indexOf('.') <= 0
                || namespace.endsWith(".")
                || namespace.startsWith("admin.")
                || namespace.startsWith("config.")
                || namespace.startsWith("local.")) {
            throw new MongoServerError(
                    ErrorCodes.INVALID_NAMESPACE, "InvalidNamespace", "Invalid namespace specified '" + value + "'");
        }
        return namespace;
    }

    /** A shard key pattern as MongoDB takes it: ascending fields, or one hashed field among them. */
    private static Document keyPattern(Object value) {
        if (!(value instanceof Document key) || key.isEmpty()) {
            throw new MongoServerError(ErrorCodes.BAD_VALUE, "BadValue", "The shard key pattern is missing or empty");
        }
        long hashed = 0;
        for (Map.Entry<String, Object> field : key.entrySet()) {
            boolean ascending = field.getValue() instanceof Number number && number.doubleValue() == 1.0;
            hashed += "hashed".equals(field.getValue()) ? 1 : 0;
            if ((!ascending && !"hashed".equals(field.getValue()))
                    || field.getKey().startsWith("$")) {
                throw unsupported(key);
            }
        }
        if (hashed > 1) {
            throw unsupported(key);
        }
        return key;
    }

    private static MongoServerError unsupported(Document key) {
        return new MongoServerError(
                ErrorCodes.BAD_VALUE,
                "BadValue",
                "Unsupported shard key pattern " + key + ". Pattern must either be a single hashed field, or a list"
                        + " of ascending fields");
    }

    /** True when {@code key}'s first fields are {@code prefix}'s, in its order and with its values. */
    private static boolean startsWith(Document key, Document prefix) {
        if (key.size() <= prefix.size()) {
            return false;
        }
        Iterator<Map.Entry<String, Object>> keyFields = key.entrySet().iterator();
        for (Map.Entry<String, Object> field : prefix.entrySet()) {
            Map.Entry<String, Object> next = keyFields.next();
            if (!next.getKey().equals(field.getKey()) || !DocumentDiff.sameBson(next.getValue(), field.getValue())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The {@code documentKey} of {@code document} in a collection sharded on {@code shardKey} (null: not sharded): the
     * key's fields present in the document, in the key's order, then {@code _id} unless the key holds it.
     */
    static Document documentKey(Document shardKey, Document document) {
        Document key = new Document();
        if (shardKey != null) {
            for (String field : shardKey.keySet()) {
                Object value = Utils.getSubdocumentValue(document, field);
                if (!(value instanceof Missing)) {
                    key.append(field, value instanceof Document sub ? sub.cloneDeeply() : value);
                }
            }
        }
        if (!key.containsKey("_id")) {
            key.append("_id", document.get("_id"));
        }
        return key;
    }

    /**
     * True when a write from {@code before} to {@code after} moves the document to another shard of a collection
     * sharded on {@code shardKey}: its value of the key's first field changed (see the class comment).
     */
    static boolean moves(Document shardKey, Document before, Document after) {
        if (shardKey == null) {
            return false;
        }
        String first = shardKey.keySet().iterator().next();
        Object was = Utils.getSubdocumentValue(before, first);
        Object is = Utils.getSubdocumentValue(after, first);
        return !(was instanceof Missing && is instanceof Missing) && !DocumentDiff.sameBson(was, is);
    }
}

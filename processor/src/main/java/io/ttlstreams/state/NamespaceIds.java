package io.ttlstreams.state;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.schema.TaskRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.bson.BsonDocument;

/**
 * A task's namespace dictionary: the ids its {@link DocumentRef document references} write instead of the namespace's
 * text, a database id and a collection id, each given in the order the task first sees them (the first database 0, its
 * first collection 0, the next collection of the same database 1, and so on), so that the first 128 of each take one
 * byte. Ids are never taken back or given again: a rule added or removed, a collection dropped or re-created, changes
 * no reference already stored.
 *
 * <p>Each namespace is one record of the task's {@code task} store: its key is {@link TaskKeys#NAMESPACE}, the two ids as the
 * references write them, then the namespace's UTF-8 text; the value says nothing (an empty {@link TaskRecord}). So
 * the dictionary is changelogged, restored and moved with the references that use it, in the same transaction as the
 * first entry of a namespace. The task reads it once, after its stores are restored; it is small (one record per
 * namespace the task has seen).
 *
 * <p>A namespace the dictionary does not know has no references: nothing to find, cancel or forget.
 */
public final class NamespaceIds {

    private static final TaskRecord NOTHING = new TaskRecord(null, null);

    /** Where new ids are written; null for a read-only dictionary. */
    private final KeyValueStore<Bytes, TaskRecord> task;
    /** Database name to its id. */
    private final Map<String, Integer> databases = new HashMap<>();
    /** Namespace to its references' prefix. */
    private final Map<Namespace, Bytes> prefixes = new HashMap<>();
    /** By database id, then collection id: the namespace (ids are given from 0 up, none skipped). */
    private final List<List<Namespace>> namespaces = new ArrayList<>();

    private NamespaceIds(KeyValueStore<Bytes, TaskRecord> task, ReadOnlyKeyValueStore<Bytes, TaskRecord> store) {
        this.task = task;
        read(store);
    }

    /** The dictionary the task's {@code task} store holds, for the task, which gives new ids. */
    static NamespaceIds of(KeyValueStore<Bytes, TaskRecord> task) {
        return new NamespaceIds(task, task);
    }

    /** The dictionary a (read-only) {@code task} store of one partition holds, for questions. */
    public static NamespaceIds readOnly(ReadOnlyKeyValueStore<Bytes, TaskRecord> task) {
        return new NamespaceIds(null, task);
    }

    /**
     * The reference of the document with this key in {@code namespace}, giving the namespace its ids when the task
     * sees it first (written to the {@code task} store with the task's other writes).
     */
    public Bytes ref(Namespace namespace, BsonDocument documentKey) {
        Bytes prefix = prefixes.get(namespace);
        if (prefix == null) {
            prefix = add(namespace);
        }
        return DocumentRef.of(prefix, documentKey);
    }

    /** The reference of the document, if the dictionary knows its namespace; empty: the document has none. */
    public Optional<Bytes> find(Namespace namespace, BsonDocument documentKey) {
        return collectionPrefix(namespace).map(prefix -> DocumentRef.of(prefix, documentKey));
    }

    /** The prefix of every reference in the collection {@code namespace}; empty when it has none. */
    public Optional<Bytes> collectionPrefix(Namespace namespace) {
        return Optional.ofNullable(prefixes.get(namespace));
    }

    /** The prefix of every reference in the collections of {@code database}; empty when it has none. */
    public Optional<Bytes> databasePrefix(String database) {
        return Optional.ofNullable(databases.get(database)).map(DocumentRef::databasePrefix);
    }

    /**
     * The namespace of a reference of this task.
     *
     * @throws IllegalArgumentException when the reference is not one, or its ids are not in the dictionary
     */
    public Namespace namespaceOf(Bytes ref) {
        int database = DocumentRef.databaseIdOf(ref);
        int collection = DocumentRef.collectionIdOf(ref);
        if (database >= namespaces.size()
                || collection >= namespaces.get(database).size()) {
            throw new IllegalArgumentException("A document reference of namespace ids " + database + "." + collection
                    + ", which the task's dictionary does not hold (" + DocumentRef.RESET_ADVICE + ")");
        }
        return namespaces.get(database).get(collection);
    }

    private Bytes add(Namespace namespace) {
        if (task == null) {
            throw new IllegalStateException("A read-only namespace dictionary gives no ids");
        }
        if (namespace.isDatabase()) {
            throw new IllegalArgumentException("A document lies in a collection, not in database " + namespace);
        }
        Integer database = databases.get(namespace.database());
        if (database == null) {
            database = namespaces.size();
            databases.put(namespace.database(), database);
            namespaces.add(new ArrayList<>());
        }
        List<Namespace> collections = namespaces.get(database);
        Bytes prefix = DocumentRef.collectionPrefix(database, collections.size());
        task.put(key(prefix, namespace), NOTHING);
        collections.add(namespace);
        prefixes.put(namespace, prefix);
        return prefix;
    }

    /**
     * Reads the dictionary's records, refusing them (IllegalArgumentException) unless each is well-formed, no two give
     * one namespace, database or id twice, and the ids are those the task gives: every database id from 0 up, every
     * collection id of a database from 0 up (so a corrupted id cannot make the dictionary allocate up to it).
     */
    private void read(ReadOnlyKeyValueStore<Bytes, TaskRecord> store) {
        Map<Integer, Map<Integer, Namespace>> byIds = new HashMap<>();
        TaskKeys.forEach(store, TaskKeys.NAMESPACE, (key, record) -> readRecord(key, byIds));
        for (int database = 0; database < byIds.size(); database++) {
            Map<Integer, Namespace> collections = byIds.get(database);
            List<Namespace> ordered = new ArrayList<>();
            for (int collection = 0; collections != null && collection < collections.size(); collection++) {
                ordered.add(collections.get(collection));
            }
            if (collections == null || ordered.contains(null)) {
                throw new IllegalArgumentException("Not a namespace dictionary: its ids of database " + database
                        + " are not those given from 0 up (" + DocumentRef.RESET_ADVICE + ")");
            }
            namespaces.add(ordered);
        }
    }

    /**
     * One dictionary record's key without its kind byte, into {@code byIds}: refused unless it is well-formed and new.
     */
    private void readRecord(byte[] key, Map<Integer, Map<Integer, Namespace>> byIds) {
        // It reads as a reference: the version, the ids, then the text.
        Bytes asRef = Bytes.wrap(key);
        int databaseId = DocumentRef.databaseIdOf(asRef);
        int collectionId = DocumentRef.collectionIdOf(asRef);
        Bytes prefix = DocumentRef.collectionPrefix(databaseId, collectionId);
        int textStart = prefix.get().length;
        Namespace namespace = Namespace.parse(StandardCharsets.UTF_8
                .decode(ByteBuffer.wrap(key, textStart, key.length - textStart))
                .toString());
        if (!Arrays.equals(idsAndText(prefix, namespace), key)) {
            throw new IllegalArgumentException("Not a namespace dictionary record: its text is not UTF-8");
        }
        Integer database = databases.putIfAbsent(namespace.database(), databaseId);
        Map<Integer, Namespace> collections = byIds.computeIfAbsent(databaseId, id -> new HashMap<>());
        // A database first met here whose id already holds collections: that id is another database's.
        boolean idOfAnotherDatabase = database == null && !collections.isEmpty();
        if ((database != null && database != databaseId)
                || idOfAnotherDatabase
                || prefixes.putIfAbsent(namespace, prefix) != null
                || collections.putIfAbsent(collectionId, namespace) != null) {
            throw new IllegalArgumentException("Not a namespace dictionary: " + namespace + " at ids " + databaseId
                    + "." + collectionId + " conflicts with an earlier record");
        }
    }

    private static Bytes key(Bytes prefix, Namespace namespace) {
        return TaskKeys.key(TaskKeys.NAMESPACE, idsAndText(prefix, namespace));
    }

    private static byte[] idsAndText(Bytes prefix, Namespace namespace) {
        byte[] ids = prefix.get();
        byte[] text = namespace.toString().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(ids.length + text.length).put(ids).put(text).array();
    }
}

package io.ttlstreams.state;

import io.ttlstreams.schema.ScheduleEntry;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;

/**
 * Identifies one document of a task's schedule: a format-version byte, the namespace as two ids of the task's
 * dictionary ({@link NamespaceIds}: its database's, then its collection's, each an unsigned varint), then the
 * document's {@code _id} in {@link DocumentKeyBytes}' tagged form (an {@code _id} of a common type without BSON
 * framing, any other as the BSON document {@code {_id: ...}}).
 *
 * <p>Varints are prefix-free (no id's bytes begin another's), so every reference of a database starts with {@link
 * #databasePrefix} and every reference of a collection with {@link #collectionPrefix}: a drop is one prefix scan. The
 * ids mean something only in the task whose dictionary gave them; the text of a namespace comes back from that
 * dictionary.
 *
 * <p><b>A document is its namespace and its {@code _id}</b>, whatever its {@code documentKey} holds besides. On a
 * sharded collection {@code documentKey} is the shard key fields and then {@code _id}, and its shape changes over the
 * collection's life ({@code {_id}} before {@code shardCollection}, {@code {tenant, _id}} after, {@code {tenant,
 * region, _id}} after {@code refineCollectionShardKey}, anything after {@code reshardCollection}, a missing shard key
 * value left out): keyed by the whole {@code documentKey}, the same document would get a second entry at each change
 * and the first would never be renewed, its command deleting the renewed document early. The latest {@code
 * documentKey} is kept in the entry instead ({@code ScheduleEntry.documentKey}), for the delete filter.
 *
 * <p>{@code _id} is unique per shard only when it is not the shard key: MongoDB leaves uniqueness across shards to
 * the application. Two documents sharing an {@code _id} on different shards share one reference here, so one entry:
 * the later event of either replaces the entry, which then holds that document's deadline and {@code documentKey}.
 * That can only delete late, never early: the delete filter pins every field of the {@code documentKey} it was built
 * from (the shard key values included) and the rule's condition, so it matches only the document whose event set the
 * entry, and only while it still holds those values; the other document, which lost its entry, is not deleted until
 * an event of its own (or a resync) schedules it again.
 *
 * <p>Format 4 (this one) differs from format 3 in the document part (format 3 held the whole {@code documentKey}, so
 * a sharded collection's documents were identified by their shard key values too), format 3 from format 2 in the
 * namespace (format 2 wrote its text and a 0x00, 13 bytes for {@code app.sessions} against 2 now), format 2 from
 * format 1 in the document key (format 1 held it as BSON always). A reference of another format is refused, with the
 * advice to reset the application's state: there was no release, so no build reads a format it does not write (State
 * formats in docs/operating.md).
 */
public final class DocumentRef {

    /** The format this build writes and reads. */
    static final byte FORMAT_VERSION = 4;

    /** What a refusal of a key of another format advises. */
    static final String RESET_ADVICE =
            "state written by another build? Reset the application's state: State formats in docs/operating.md";

    /** The most bytes of an int as an unsigned varint. */
    private static final int MAX_VARINT_BYTES = 5;

    private DocumentRef() {}

    /**
     * The reference of the document with this key in the collection of {@code collectionPrefix}: of its {@code _id}
     * alone, whatever else the key holds.
     *
     * @throws IllegalArgumentException when the key has no {@code _id}
     */
    public static Bytes of(Bytes collectionPrefix, BsonDocument documentKey) {
        byte[] prefix = collectionPrefix.get();
        byte[] key = DocumentKeyBytes.ofId(documentKey);
        return Bytes.wrap(ByteBuffer.allocate(prefix.length + key.length)
                .put(prefix)
                .put(key)
                .array());
    }

    /**
     * The document key of the document at {@code ref} as its entry keeps it: the latest {@code documentKey} its events
     * reported when that held more than {@code _id} (a sharded collection's shard key fields, then {@code _id}), else
     * the reference's {@code {_id}}. What a delete command pins and what the audit, logs and queries name.
     */
    public static BsonDocument documentKeyOf(Bytes ref, ScheduleEntry entry) {
        ByteBuffer kept = entry.getDocumentKey();
        return kept == null ? idKeyOf(ref) : new RawBsonDocument(Utils.toArray(kept));
    }

    /** The prefix of every reference in the collection with these ids, and of no other. */
    public static Bytes collectionPrefix(int databaseId, int collectionId) {
        return prefix(databaseId, collectionId);
    }

    /** The prefix of every reference in the collections of the database with this id, and of no other. */
    static Bytes databasePrefix(int databaseId) {
        return prefix(databaseId);
    }

    /** The database id of a reference. */
    static int databaseIdOf(Bytes ref) {
        return id(checkVersion(ref), 1);
    }

    /** The collection id of a reference. */
    static int collectionIdOf(Bytes ref) {
        byte[] bytes = checkVersion(ref);
        return id(bytes, idEnd(bytes, 1));
    }

    /** The document's {@code _id}, as the key {@code {_id: ...}}: what the reference holds of its document key. */
    public static BsonDocument idKeyOf(Bytes ref) {
        byte[] bytes = checkVersion(ref);
        int start = idEnd(bytes, idEnd(bytes, 1));
        return DocumentKeyBytes.read(bytes, start, bytes.length - start);
    }

    /**
     * Refuses an {@code index} store that holds a key other than a reference of this format: its first and last keys
     * in byte order are, when any is, because a key of an older format (or a record of another kind, which builds
     * before the {@code task} store kept there, under keys beginning with 0) sorts before every reference, and a later
     * format after. One seek at each end, once per task start.
     *
     * @throws IllegalStateException naming the version found, with the advice to reset the application's state
     */
    static void refuseOtherFormats(ReadOnlyKeyValueStore<Bytes, ?> index) {
        try (KeyValueIterator<Bytes, ?> first = index.all();
                KeyValueIterator<Bytes, ?> last = index.reverseAll()) {
            for (KeyValueIterator<Bytes, ?> end : List.of(first, last)) {
                if (end.hasNext()) {
                    byte[] key = end.peekNextKey().get();
                    if (key.length == 0 || key[0] != FORMAT_VERSION) {
                        throw new IllegalStateException("The index store holds a key that is not a document reference"
                                + " of format version " + FORMAT_VERSION + ": "
                                + (key.length == 0 ? "no bytes" : "first byte " + Byte.toUnsignedInt(key[0])) + " ("
                                + RESET_ADVICE + ")");
                    }
                }
            }
        }
    }

    /** The format version, then the namespace ids. */
    private static Bytes prefix(int... ids) {
        ByteBuffer prefix =
                ByteBuffer.allocate(1 + ids.length * MAX_VARINT_BYTES).put(FORMAT_VERSION);
        for (int id : ids) {
            if (id < 0) {
                throw new IllegalArgumentException("A namespace id is not negative: " + id);
            }
            CompactValueSerde.writeUnsignedVarint(id, prefix);
        }
        return Bytes.wrap(Arrays.copyOf(prefix.array(), prefix.position()));
    }

    /** The id, a canonical unsigned varint, at {@code offset}. */
    private static int id(byte[] bytes, int offset) {
        idEnd(bytes, offset);
        return CompactValueSerde.readUnsignedVarint(ByteBuffer.wrap(bytes, offset, bytes.length - offset));
    }

    /**
     * Where the id at {@code offset} ends, checking that it is there, at most an int, and canonical (its last byte
     * not 0 unless it is the only one), so that one id has one encoding and one namespace one prefix.
     */
    private static int idEnd(byte[] bytes, int offset) {
        for (int i = offset; i < bytes.length && i - offset < MAX_VARINT_BYTES; i++) {
            if (bytes[i] >= 0) {
                if (i > offset && bytes[i] == 0) {
                    throw new IllegalArgumentException(
                            "Not a document reference: a namespace id of non-canonical form");
                }
                if (i - offset == MAX_VARINT_BYTES - 1 && bytes[i] > 0x07) {
                    throw new IllegalArgumentException("Not a document reference: a namespace id beyond an int");
                }
                return i + 1;
            }
        }
        throw new IllegalArgumentException("Not a document reference: its namespace ids are cut short or too long");
    }

    private static byte[] checkVersion(Bytes ref) {
        byte[] bytes = ref.get();
        if (bytes.length == 0 || bytes[0] != FORMAT_VERSION) {
            throw new IllegalArgumentException("Not a document reference of format version " + FORMAT_VERSION + ": "
                    + (bytes.length == 0 ? "no bytes" : "version " + Byte.toUnsignedInt(bytes[0]))
                    + " (" + RESET_ADVICE + ")");
        }
        return bytes;
    }
}

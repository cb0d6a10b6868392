package io.ttlstreams.state;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.bson.BsonDocument;

/**
 * Identifies one document of a task's schedule: a format-version byte, the namespace as two ids of the task's
 * dictionary ({@link NamespaceIds}: its database's, then its collection's, each an unsigned varint), then the document
 * key in {@link DocumentKeyBytes}' tagged form (an {@code _id} of a common type without BSON framing, any other key as
 * BSON).
 *
 * <p>Varints are prefix-free (no id's bytes begin another's), so every reference of a database starts with {@link
 * #databasePrefix} and every reference of a collection with {@link #collectionPrefix}: a drop is one prefix scan. The
 * ids mean something only in the task whose dictionary gave them; the text of a namespace comes back from that
 * dictionary. One document key (the same fields, order and types, as the change stream reports it) gives one
 * reference, and distinct keys or namespaces give distinct ones.
 *
 * <p>Format 3 (this one) differs from format 2 in the namespace (format 2 wrote its text and a 0x00, 13 bytes for
 * {@code app.sessions} against 2 now), format 2 from format 1 in the document key (format 1 held it as BSON always).
 * A reference of another format is refused, with the advice to reset the application's state: there was no release,
 * so no build reads a format it does not write (State formats in docs/operating.md).
 */
public final class DocumentRef {

    /** The format this build writes and reads. */
    static final byte FORMAT_VERSION = 3;

    /** What a refusal of a key of another format advises. */
    static final String RESET_ADVICE =
            "state written by another build? Reset the application's state: State formats in docs/operating.md";

    /** The most bytes of an int as an unsigned varint. */
    private static final int MAX_VARINT_BYTES = 5;

    private DocumentRef() {}

    /** The reference of the document with this key in the collection of {@code collectionPrefix}. */
    public static Bytes of(Bytes collectionPrefix, BsonDocument documentKey) {
        byte[] prefix = collectionPrefix.get();
        byte[] key = DocumentKeyBytes.of(documentKey);
        byte[] ref = Arrays.copyOf(prefix, prefix.length + key.length);
        System.arraycopy(key, 0, ref, prefix.length, key.length);
        return Bytes.wrap(ref);
    }

    /** The prefix of every reference in the collection with these ids, and of no other. */
    public static Bytes collectionPrefix(int databaseId, int collectionId) {
        ByteBuffer prefix = ByteBuffer.allocate(1 + 2 * MAX_VARINT_BYTES).put(FORMAT_VERSION);
        CompactValueSerde.writeUnsignedVarint(checkedId(databaseId), prefix);
        CompactValueSerde.writeUnsignedVarint(checkedId(collectionId), prefix);
        return Bytes.wrap(Arrays.copyOf(prefix.array(), prefix.position()));
    }

    /** The prefix of every reference in the collections of the database with this id, and of no other. */
    static Bytes databasePrefix(int databaseId) {
        ByteBuffer prefix = ByteBuffer.allocate(1 + MAX_VARINT_BYTES).put(FORMAT_VERSION);
        CompactValueSerde.writeUnsignedVarint(checkedId(databaseId), prefix);
        return Bytes.wrap(Arrays.copyOf(prefix.array(), prefix.position()));
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

    /** The document key part of a reference. */
    public static BsonDocument documentKeyOf(Bytes ref) {
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

    private static int checkedId(int id) {
        if (id < 0) {
            throw new IllegalArgumentException("A namespace id is not negative: " + id);
        }
        return id;
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

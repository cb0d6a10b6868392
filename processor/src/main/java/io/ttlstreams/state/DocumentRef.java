package io.ttlstreams.state;

import io.ttlstreams.contract.Namespace;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonDocument;

/**
 * Identifies one document across namespaces: a format-version byte, the UTF-8 namespace, a 0x00 byte, then the
 * document key in {@link DocumentKeyBytes}' tagged form (an {@code _id} of a common type without BSON framing, any
 * other key as BSON).
 *
 * <p>MongoDB namespaces contain no NUL, so the first 0x00 after the version ends the namespace, and every reference
 * of a collection starts with {@link #collectionPrefix}. The document key is cheap to write for every change event
 * and exact for every type (ObjectId, UUID, decimals, compound keys); it becomes JSON only when a delete command is
 * emitted. One document key (the same fields, order and types, as the change stream reports it) gives one
 * reference, and distinct keys give distinct ones.
 *
 * <p>Format 2 (this one) differs from format 1 only in the document key (format 1 held it as BSON always, 22 bytes
 * for an ObjectId {@code _id} against 13 now). A reference of another format is refused, with the advice to reset
 * the application's state: there was no release, so no build reads a format it does not write (State formats in
 * docs/operating.md).
 */
public final class DocumentRef {

    /** The format this build writes and reads. */
    static final byte FORMAT_VERSION = 2;

    /** What a refusal of a key of another format advises. */
    static final String RESET_ADVICE =
            "state written by another build? Reset the application's state: State formats in docs/operating.md";

    private static final byte SEPARATOR = 0;

    private DocumentRef() {}

    /** The reference of the document with this key in this collection. */
    public static Bytes of(Namespace namespace, BsonDocument documentKey) {
        byte[] prefix = collectionPrefix(namespace).get();
        byte[] key = DocumentKeyBytes.of(documentKey);
        byte[] ref = new byte[prefix.length + key.length];
        System.arraycopy(prefix, 0, ref, 0, prefix.length);
        System.arraycopy(key, 0, ref, prefix.length, key.length);
        return Bytes.wrap(ref);
    }

    /**
     * The prefix of every reference in this collection and no other: the separator keeps "app.s" from matching
     * "app.sessions".
     */
    public static Bytes collectionPrefix(Namespace namespace) {
        return prefix(namespace.toString(), SEPARATOR);
    }

    /** The prefix of every reference in this database's collections: the '.' keeps "app" from matching "apple.x". */
    public static Bytes databasePrefix(Namespace database) {
        return prefix(database.database(), (byte) '.');
    }

    /** The namespace part of a reference. */
    public static Namespace namespaceOf(Bytes ref) {
        byte[] bytes = checkVersion(ref);
        return Namespace.parse(new String(bytes, 1, separatorIndex(bytes) - 1, StandardCharsets.UTF_8));
    }

    /** The document key part of a reference. */
    public static BsonDocument documentKeyOf(Bytes ref) {
        byte[] bytes = checkVersion(ref);
        int start = separatorIndex(bytes) + 1;
        return DocumentKeyBytes.read(bytes, start, bytes.length - start);
    }

    private static Bytes prefix(String text, byte terminator) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        byte[] prefix = new byte[utf8.length + 2];
        prefix[0] = FORMAT_VERSION;
        System.arraycopy(utf8, 0, prefix, 1, utf8.length);
        prefix[prefix.length - 1] = terminator;
        return Bytes.wrap(prefix);
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

    private static int separatorIndex(byte[] ref) {
        for (int i = 1; i < ref.length; i++) {
            if (ref[i] == SEPARATOR) {
                return i;
            }
        }
        throw new IllegalArgumentException("Not a document reference: it has no 0x00 after the namespace");
    }
}

package io.ttlstreams.state;

import io.ttlstreams.contract.Namespace;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.utils.Bytes;

/**
 * Identifies one document across namespaces: UTF-8 namespace, a 0x00 byte, UTF-8 document key JSON.
 *
 * <p>MongoDB namespaces cannot contain a null character, so the first 0x00 separates the parts, and every reference
 * of a collection starts with {@link #collectionPrefix}. The document key JSON must be canonical (as {@link
 * io.ttlstreams.event.ChangeEvent#documentKeyJson()} gives it) so that one document has one reference.
 */
public final class DocumentRef {

    private static final byte SEPARATOR = 0;

    private DocumentRef() {}

    /** The reference of the document with this key (canonical extended JSON) in this collection. */
    public static Bytes of(Namespace namespace, String documentKeyJson) {
        byte[] prefix = collectionPrefix(namespace).get();
        byte[] key = documentKeyJson.getBytes(StandardCharsets.UTF_8);
        byte[] ref = Arrays.copyOf(prefix, prefix.length + key.length);
        System.arraycopy(key, 0, ref, prefix.length, key.length);
        return Bytes.wrap(ref);
    }

    /**
     * The prefix of every reference in this namespace and no other: the separator keeps "app.s" from matching
     * "app.sessions".
     */
    public static Bytes collectionPrefix(Namespace namespace) {
        // A Namespace has no NUL, so the separator ends it.
        byte[] ns = namespace.toString().getBytes(StandardCharsets.UTF_8);
        // The new last byte is already the 0x00 separator.
        return Bytes.wrap(Arrays.copyOf(ns, ns.length + 1));
    }

    /**
     * The prefix of every reference in this database's collections: the trailing '.' keeps "app" from matching
     * "apple.x".
     */
    public static Bytes databasePrefix(Namespace database) {
        // A database name has no '.', so the first one ends it.
        return Bytes.wrap((database.database() + ".").getBytes(StandardCharsets.UTF_8));
    }

    /** The namespace part of a reference. */
    public static Namespace namespaceOf(Bytes ref) {
        byte[] bytes = ref.get();
        return Namespace.parse(new String(bytes, 0, separatorIndex(bytes), StandardCharsets.UTF_8));
    }

    /** The document key JSON part of a reference. */
    public static String documentKeyJsonOf(Bytes ref) {
        byte[] bytes = ref.get();
        int start = separatorIndex(bytes) + 1;
        return new String(bytes, start, bytes.length - start, StandardCharsets.UTF_8);
    }

    private static int separatorIndex(byte[] ref) {
        for (int i = 0; i < ref.length; i++) {
            if (ref[i] == SEPARATOR) {
                return i;
            }
        }
        throw new IllegalArgumentException("Not a document reference: it has no 0x00 separator");
    }
}

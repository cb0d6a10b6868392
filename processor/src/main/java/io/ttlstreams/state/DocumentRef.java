package io.ttlstreams.state;

import io.ttlstreams.contract.Namespace;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * Identifies one document across namespaces: a format-version byte, the UTF-8 namespace, a 0x00 byte, then the
 * document key as BSON.
 *
 * <p>MongoDB namespaces contain no NUL, so the first 0x00 after the version ends the namespace, and every reference
 * of a collection starts with {@link #collectionPrefix}. The document key is kept as BSON, which is cheap to write
 * for every change event and exact for every type (ObjectId, UUID, decimals, compound keys); it becomes JSON only
 * when a delete command is emitted. One document key (the same fields, order and types, as the change stream
 * reports it) gives one reference.
 */
public final class DocumentRef {

    /** The format this build writes and reads. */
    static final byte FORMAT_VERSION = 1;

    private static final byte SEPARATOR = 0;
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();
    private static final EncoderContext ENCODER_CONTEXT =
            EncoderContext.builder().build();

    private DocumentRef() {}

    /** The reference of the document with this key in this collection. */
    public static Bytes of(Namespace namespace, BsonDocument documentKey) {
        byte[] prefix = collectionPrefix(namespace).get();
        ByteBuffer key = bson(documentKey);
        byte[] ref = new byte[prefix.length + key.remaining()];
        System.arraycopy(prefix, 0, ref, 0, prefix.length);
        key.get(ref, prefix.length, key.remaining());
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
    public static RawBsonDocument documentKeyOf(Bytes ref) {
        byte[] bytes = checkVersion(ref);
        int start = separatorIndex(bytes) + 1;
        return new RawBsonDocument(bytes, start, bytes.length - start);
    }

    private static Bytes prefix(String text, byte terminator) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        byte[] prefix = new byte[utf8.length + 2];
        prefix[0] = FORMAT_VERSION;
        System.arraycopy(utf8, 0, prefix, 1, utf8.length);
        prefix[prefix.length - 1] = terminator;
        return Bytes.wrap(prefix);
    }

    private static ByteBuffer bson(BsonDocument document) {
        if (document instanceof RawBsonDocument raw) {
            return raw.getByteBuffer().asNIO();
        }
        BasicOutputBuffer out = new BasicOutputBuffer(64);
        CODEC.encode(new BsonBinaryWriter(out), document, ENCODER_CONTEXT);
        return ByteBuffer.wrap(out.getInternalBuffer(), 0, out.getPosition());
    }

    private static byte[] checkVersion(Bytes ref) {
        byte[] bytes = ref.get();
        if (bytes.length == 0 || bytes[0] != FORMAT_VERSION) {
            throw new IllegalArgumentException("Not a document reference of format version " + FORMAT_VERSION + ": "
                    + (bytes.length == 0 ? "no bytes" : "version " + Byte.toUnsignedInt(bytes[0])));
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

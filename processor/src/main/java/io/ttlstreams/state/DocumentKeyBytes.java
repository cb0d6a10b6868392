package io.ttlstreams.state;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import org.bson.BSONException;
import org.bson.BsonBinary;
import org.bson.BsonBinaryReader;
import org.bson.BsonBinarySubType;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;
import org.bson.types.ObjectId;

/**
 * A document's {@code _id} as the tail of a {@link DocumentRef}: one tag byte, then the {@code _id}. Only the {@code
 * _id} of a document key is written (a sharded collection's shard key fields are not: the document is the same
 * whatever they are, see {@link DocumentRef}); one of a common type without BSON framing, any other as the BSON
 * document {@code {_id: ...}}, as format 1 wrote every key.
 *
 * <p>The tags are the BSON type numbers of what follows: {@code 0x07} ObjectId (12 bytes), {@code 0x02} string
 * (its UTF-8 bytes, to the end), {@code 0x10} 32-bit integer (4 bytes), {@code 0x12} 64-bit integer (8 bytes),
 * {@code 0x05} UUID (binary subtype 4, 16 bytes), {@code 0x03} the key as a BSON document (to the end). Integers are
 * big-endian, so one key has one encoding and distinct keys distinct ones. The BSON type stays part of the key: an
 * {@code _id} of 32-bit 1 and one of 64-bit 1 give distinct references, as they did in format 1. MongoDB's unique
 * {@code _id} index compares numbers across types, so one collection never holds both, and the change stream
 * reports a document's {@code _id} in the type it is stored with, every time.
 *
 * <p>A string {@code _id} that is not well-formed UTF-16 (an unpaired surrogate, which MongoDB's UTF-8 cannot
 * hold) takes the BSON fallback, so that the compact string form always reads back as the string written.
 */
final class DocumentKeyBytes {

    // The BSON type numbers (BsonType.getValue()), as constants the switches can name.
    static final byte STRING = 0x02;
    static final byte DOCUMENT = 0x03;
    static final byte UUID = 0x05;
    static final byte OBJECT_ID = 0x07;
    static final byte INT32 = 0x10;
    static final byte INT64 = 0x12;

    private static final String ID = "_id";
    private static final int UUID_BYTES = 16;
    private static final int OBJECT_ID_BYTES = 12;
    private static final int MIN_BSON_DOCUMENT = 5;
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();
    private static final DecoderContext DECODER_CONTEXT =
            DecoderContext.builder().build();

    private DocumentKeyBytes() {}

    /**
     * The tagged bytes of the {@code _id} of {@code documentKey}.
     *
     * @throws IllegalArgumentException when the key has no {@code _id}
     */
    static byte[] ofId(BsonDocument documentKey) {
        BsonValue id = soleId(documentKey);
        if (id == null) {
            BsonValue anyId = documentKey.get(ID);
            if (anyId == null) {
                throw new IllegalArgumentException("A document key without _id");
            }
            if (documentKey.size() != 1) {
                return ofId(new BsonDocument(ID, anyId));
            }
        }
        if (id != null) {
            switch (id.getBsonType()) {
                case OBJECT_ID:
                    return tagged(OBJECT_ID, OBJECT_ID_BYTES)
                            .put(id.asObjectId().getValue().toByteArray())
                            .array();
                case INT32:
                    return tagged(INT32, Integer.BYTES)
                            .putInt(id.asInt32().getValue())
                            .array();
                case INT64:
                    return tagged(INT64, Long.BYTES)
                            .putLong(id.asInt64().getValue())
                            .array();
                case STRING:
                    try {
                        // The encoder refuses an unpaired surrogate, where getBytes would write a '?'.
                        ByteBuffer utf8 = StandardCharsets.UTF_8
                                .newEncoder()
                                .encode(CharBuffer.wrap(id.asString().getValue()));
                        return tagged(STRING, utf8.remaining()).put(utf8).array();
                    } catch (CharacterCodingException e) {
                        break; // not well-formed UTF-16: the BSON form
                    }
                case BINARY:
                    BsonBinary binary = id.asBinary();
                    if (binary.getType() == BsonBinarySubType.UUID_STANDARD.getValue()
                            && binary.getData().length == UUID_BYTES) {
                        return tagged(UUID, UUID_BYTES).put(binary.getData()).array();
                    }
                    break;
                default:
                    break;
            }
        }
        ByteBuffer bson = bson(documentKey);
        return tagged(DOCUMENT, bson.remaining()).put(bson).array();
    }

    /**
     * The key's {@code _id} when it is the key's only field and of a type with a compact form; null otherwise. A raw
     * key (as the event parser hands it on) is read once, field by field, instead of being counted and then decoded
     * through the codec registry: that was 4.5 % of the stream thread per insert.
     */
    private static BsonValue soleId(BsonDocument documentKey) {
        if (!(documentKey instanceof RawBsonDocument raw)) {
            return documentKey.size() == 1 ? documentKey.get(ID) : null;
        }
        try (BsonBinaryReader reader = new BsonBinaryReader(raw.getByteBuffer().asNIO())) {
            reader.readStartDocument();
            if (reader.readBsonType() == BsonType.END_OF_DOCUMENT
                    || !reader.readName().equals(ID)) {
                return null;
            }
            BsonValue id = switch (reader.getCurrentBsonType()) {
                case OBJECT_ID -> new BsonObjectId(reader.readObjectId());
                case STRING -> new BsonString(reader.readString());
                case INT32 -> new BsonInt32(reader.readInt32());
                case INT64 -> new BsonInt64(reader.readInt64());
                case BINARY -> reader.readBinaryData();
                default -> null;
            };
            return id != null && reader.readBsonType() == BsonType.END_OF_DOCUMENT ? id : null;
        }
    }

    /**
     * The key {@code {_id: ...}} of the tagged bytes {@code length} bytes from {@code offset} in {@code bytes}; refuses an
     * unknown tag, a wrong length for the tag and BSON that is not exactly one document.
     */
    static BsonDocument read(byte[] bytes, int offset, int length) {
        if (length < 1) {
            throw new IllegalArgumentException("Not a document reference: it has no document key after the namespace");
        }
        byte tag = bytes[offset];
        ByteBuffer key = ByteBuffer.wrap(bytes, offset + 1, length - 1);
        BsonValue id;
        switch (tag) {
            case OBJECT_ID -> id = new BsonObjectId(new ObjectId(exactly(key, OBJECT_ID_BYTES, tag)));
            case INT32 ->
                id = new BsonInt32(
                        ByteBuffer.wrap(exactly(key, Integer.BYTES, tag)).getInt());
            case INT64 ->
                id = new BsonInt64(
                        ByteBuffer.wrap(exactly(key, Long.BYTES, tag)).getLong());
            case UUID -> id = new BsonBinary(BsonBinarySubType.UUID_STANDARD, exactly(key, UUID_BYTES, tag));
            case STRING -> id = new BsonString(utf8(key));
            case DOCUMENT -> {
                return document(bytes, offset + 1, length - 1);
            }
            default ->
                throw new IllegalArgumentException(
                        "Not a document reference: unknown document key tag 0x" + Integer.toHexString(tag & 0xFF));
        }
        return new BsonDocument(ID, id);
    }

    private static ByteBuffer tagged(byte tag, int size) {
        return ByteBuffer.allocate(1 + size).put(tag);
    }

    private static byte[] exactly(ByteBuffer key, int size, byte tag) {
        if (key.remaining() != size) {
            throw new IllegalArgumentException("Not a document reference: a key of tag 0x" + Integer.toHexString(tag)
                    + " has " + size + " bytes, not " + key.remaining());
        }
        byte[] value = new byte[size];
        key.get(value);
        return value;
    }

    private static String utf8(ByteBuffer key) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(key).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("Not a document reference: its string key is not UTF-8", e);
        }
    }

    private static BsonDocument document(byte[] bytes, int offset, int length) {
        // The BSON's own length must be the rest of the reference: a truncated or extended key is refused here,
        // not misread later; decoding it whole checks everything inside.
        if (length < MIN_BSON_DOCUMENT
                || ByteBuffer.wrap(bytes, offset, Integer.BYTES)
                                .order(ByteOrder.LITTLE_ENDIAN)
                                .getInt()
                        != length) {
            throw new IllegalArgumentException(
                    "Not a document reference: its BSON document key is not exactly the rest of its bytes");
        }
        try (BsonBinaryReader reader = new BsonBinaryReader(ByteBuffer.wrap(bytes, offset, length))) {
            return CODEC.decode(reader, DECODER_CONTEXT);
        } catch (BSONException | IllegalStateException e) {
            throw new IllegalArgumentException("Not a document reference: its BSON document key is malformed", e);
        }
    }

    private static ByteBuffer bson(BsonDocument document) {
        RawBsonDocument raw = document instanceof RawBsonDocument r ? r : new RawBsonDocument(document, CODEC);
        return raw.getByteBuffer().asNIO();
    }
}

package io.ttlstreams.event;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonReader;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.codecs.BsonValueCodecProvider;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.json.JsonParseException;
import org.bson.json.JsonReader;

/**
 * Reads (extended) JSON documents with a nesting limit.
 *
 * <p>The BSON library decodes nested documents and arrays recursively, so a value nested a few thousand levels deep
 * overflows the stack: a {@link StackOverflowError}, which ordinary error handling does not catch. Here the
 * containers are read by a loop that counts its depth and refuses more than {@value #MAX_DEPTH} levels before the
 * stack is at risk; only scalar values go through the library's codecs. MongoDB itself refuses documents nested more
 * than 100 levels, and a change event wraps a document in one more, so no real event comes near the limit.
 *
 * <p>Thread-safe: it holds no mutable state.
 */
public final class BoundedJson {

    /** The deepest nesting accepted: the top-level document is level 1, each document or array inside adds one. */
    public static final int MAX_DEPTH = 200;

    private static final CodecRegistry SCALARS = CodecRegistries.fromProviders(new BsonValueCodecProvider());
    private static final DecoderContext DECODER_CONTEXT =
            DecoderContext.builder().build();

    private BoundedJson() {}

    /**
     * Parses one JSON document, as {@link BsonDocument#parse} does, but within the nesting limit.
     *
     * @throws JsonParseException if {@code json} is not a JSON document or nests deeper than {@value #MAX_DEPTH}
     *                            levels
     * @throws org.bson.BSONException or another runtime exception of the BSON library for malformed extended JSON
     */
    public static BsonDocument parse(String json) {
        return readDocument(new JsonReader(json));
    }

    /**
     * Reads the document the reader is positioned at (its type already read with {@link BsonReader#readBsonType()},
     * or at the start of the input).
     *
     * @throws JsonParseException if the document nests deeper than {@value #MAX_DEPTH} levels
     */
    public static BsonDocument readDocument(BsonReader reader) {
        return readDocument(reader, 1);
    }

    private static BsonDocument readDocument(BsonReader reader, int depth) {
        checkDepth(depth);
        BsonDocument document = new BsonDocument();
        reader.readStartDocument();
        while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = reader.readName();
            document.append(name, readValue(reader, depth));
        }
        reader.readEndDocument();
        return document;
    }

    private static BsonArray readArray(BsonReader reader, int depth) {
        checkDepth(depth);
        BsonArray array = new BsonArray();
        reader.readStartArray();
        while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
            array.add(readValue(reader, depth));
        }
        reader.readEndArray();
        return array;
    }

    /** Reads the current value of a container at {@code depth}; containers inside it are one level deeper. */
    private static BsonValue readValue(BsonReader reader, int depth) {
        BsonType type = reader.getCurrentBsonType();
        return switch (type) {
            case DOCUMENT -> readDocument(reader, depth + 1);
            case ARRAY -> readArray(reader, depth + 1);
            case JAVASCRIPT_WITH_SCOPE -> {
                // The scope is a document too, and the library would decode it recursively.
                String code = reader.readJavaScriptWithScope();
                yield new BsonJavaScriptWithScope(code, readDocument(reader, depth + 1));
            }
            default ->
                SCALARS.get(BsonValueCodecProvider.getClassForBsonType(type)).decode(reader, DECODER_CONTEXT);
        };
    }

    private static void checkDepth(int depth) {
        if (depth > MAX_DEPTH) {
            throw new JsonParseException("the JSON nests deeper than " + MAX_DEPTH + " levels of documents and arrays");
        }
    }
}

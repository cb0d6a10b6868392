package io.ttlstreams.contract;

import java.util.EnumMap;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonReader;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.codecs.BsonValueCodecProvider;
import org.bson.codecs.Decoder;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.json.JsonParseException;
import org.bson.json.JsonReader;

/**
 * Reads (extended) JSON documents with a nesting limit: the one JSON reader for everything ttl-streams reads from
 * outside (change events, control records, rule filters, delete commands at the sink).
 *
 * <p>The BSON library decodes nested documents and arrays recursively, so a value nested a few thousand levels deep
 * overflows the stack: a {@link StackOverflowError}, which ordinary error handling does not catch. Here the
 * containers are read with an explicit depth, refused beyond the limit before the stack is at risk; only scalar
 * values go through the library's codecs. MongoDB itself refuses documents nested more than 100 levels, and a change
 * event wraps a document in one more, so no real event comes near {@value #MAX_DEPTH}.
 *
 * <p>A reader may build only some fields ({@link Fields}): the others are skipped without building anything, but
 * within the same limit, so that a value the whole document would have been refused for is refused all the same.
 *
 * <p>Thread-safe: it holds no mutable state.
 */
public final class BoundedJson {

    /** The deepest nesting accepted by default: the top-level document is level 1, each container inside adds one. */
    public static final int MAX_DEPTH = 200;

    /**
     * The library's decoder of each scalar type, looked up once: a registry lookup per value was a measurable share
     * of reading a change event.
     */
    private static final Map<BsonType, Decoder<? extends BsonValue>> SCALARS = scalarDecoders();

    private static final DecoderContext DECODER_CONTEXT =
            DecoderContext.builder().build();

    private final int maxDepth;
    private final boolean uniqueNames;

    private BoundedJson(int maxDepth, boolean uniqueNames) {
        this.maxDepth = maxDepth;
        this.uniqueNames = uniqueNames;
    }

    /**
     * Parses one JSON document, as {@link BsonDocument#parse} does (a repeated name keeps its last value), but within
     * {@value #MAX_DEPTH} levels.
     *
     * @throws JsonParseException if {@code json} is not a JSON document or nests deeper than {@value #MAX_DEPTH}
     *                            levels
     * @throws org.bson.BSONException or another runtime exception of the BSON library for malformed extended JSON
     */
    public static BsonDocument parse(String json) {
        return parse(json, MAX_DEPTH, false);
    }

    /**
     * Parses one JSON document within {@code maxDepth} levels.
     *
     * @param uniqueNames refuse a field name that appears twice in one document, rather than keep its last value
     * @throws JsonParseException if {@code json} is not a JSON document, nests deeper than {@code maxDepth} levels or
     *                            repeats a name where {@code uniqueNames} forbids it ({@link RepeatedNameException})
     * @throws org.bson.BSONException or another runtime exception of the BSON library for malformed extended JSON
     */
    public static BsonDocument parse(String json, int maxDepth, boolean uniqueNames) {
        try (JsonReader reader = new JsonReader(json)) {
            return new BoundedJson(maxDepth, uniqueNames).readDocument(reader, 1, "");
        }
    }

    /**
     * Reads the document the reader is positioned at (its type already read with {@link BsonReader#readBsonType()},
     * or at the start of the input), within {@value #MAX_DEPTH} levels.
     *
     * @throws JsonParseException if the document nests deeper than {@value #MAX_DEPTH} levels
     */
    public static BsonDocument readDocument(BsonReader reader) {
        return new BoundedJson(MAX_DEPTH, false).readDocument(reader, 1, "");
    }

    /**
     * Reads the document the reader is positioned at, as {@link #readDocument(BsonReader)} does, but builds only the
     * fields {@code fields} names; the others are read past, within the same nesting limit: a skipped value nested
     * too deep is refused with the same message, and malformed (extended) JSON in it fails as it would when built.
     * A repeated name keeps its last value.
     *
     * @throws JsonParseException if the document, skipped parts included, nests deeper than {@value #MAX_DEPTH}
     *                            levels
     */
    public static BsonDocument readDocument(BsonReader reader, Fields fields) {
        return new BoundedJson(MAX_DEPTH, false).readDocument(reader, 1, "", fields);
    }

    private BsonDocument readDocument(BsonReader reader, int depth, String path) {
        return readDocument(reader, depth, path, Fields.ALL);
    }

    /** @param path the dotted path of the document, for the message about a repeated name */
    private BsonDocument readDocument(BsonReader reader, int depth, String path, Fields fields) {
        checkDepth(depth);
        BsonDocument document = new BsonDocument();
        reader.readStartDocument();
        while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = reader.readName();
            Fields inside = fields.of(name);
            if (inside == null) {
                skipValue(reader, depth);
                continue;
            }
            if (uniqueNames && document.containsKey(name)) {
                throw new RepeatedNameException(path + name);
            }
            document.append(name, readValue(reader, depth, uniqueNames ? path + name + "." : path, inside));
        }
        reader.readEndDocument();
        return document;
    }

    private BsonArray readArray(BsonReader reader, int depth, String path, Fields fields) {
        checkDepth(depth);
        BsonArray array = new BsonArray();
        reader.readStartArray();
        while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
            array.add(readValue(reader, depth, path, fields));
        }
        reader.readEndArray();
        return array;
    }

    /**
     * Reads the current value of a container at {@code depth}; containers inside it are one level deeper. {@code
     * fields} applies to a document value, and to the documents of an array value, as a projection does.
     */
    private BsonValue readValue(BsonReader reader, int depth, String path, Fields fields) {
        BsonType type = reader.getCurrentBsonType();
        return switch (type) {
            case DOCUMENT -> readDocument(reader, depth + 1, path, fields);
            case ARRAY -> readArray(reader, depth + 1, path, fields);
            case JAVASCRIPT_WITH_SCOPE -> {
                // The scope is a document too, and the library would decode it recursively.
                String code = reader.readJavaScriptWithScope();
                yield new BsonJavaScriptWithScope(code, readDocument(reader, depth + 1, path));
            }
            default -> SCALARS.get(type).decode(reader, DECODER_CONTEXT);
        };
    }

    /**
     * Reads past the current value of a container at {@code depth}, building nothing, with the depth counted as
     * {@link #readValue} counts it. The library's own {@link BsonReader#skipValue()} is used for scalars only: it
     * skips containers recursively, without a limit.
     */
    private void skipValue(BsonReader reader, int depth) {
        switch (reader.getCurrentBsonType()) {
            case DOCUMENT -> skipDocument(reader, depth + 1);
            case ARRAY -> {
                checkDepth(depth + 1);
                reader.readStartArray();
                while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                    skipValue(reader, depth + 1);
                }
                reader.readEndArray();
            }
            case JAVASCRIPT_WITH_SCOPE -> {
                reader.readJavaScriptWithScope();
                skipDocument(reader, depth + 1);
            }
            default -> reader.skipValue();
        }
    }

    private void skipDocument(BsonReader reader, int depth) {
        checkDepth(depth);
        reader.readStartDocument();
        while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
            reader.skipName();
            skipValue(reader, depth);
        }
        reader.readEndDocument();
    }

    /**
     * Which fields of a document to build: the others are skipped. {@link #ALL} builds everything; a projection
     * names the fields to keep at each level.
     */
    @FunctionalInterface
    public interface Fields {

        /** Every field, at every level. */
        Fields ALL = name -> Fields.ALL;

        /**
         * What to build of the field {@code name}: the fields of its value when that is a document (or an array of
         * documents), {@link #ALL} to build the whole value; null to skip it.
         */
        Fields of(String name);
    }

    private static Map<BsonType, Decoder<? extends BsonValue>> scalarDecoders() {
        CodecRegistry registry = CodecRegistries.fromProviders(new BsonValueCodecProvider());
        Map<BsonType, Decoder<? extends BsonValue>> decoders = new EnumMap<>(BsonType.class);
        for (BsonType type : BsonType.values()) {
            // Containers are read here, with their depth; the end of a document is no value.
            boolean scalar = switch (type) {
                case DOCUMENT, ARRAY, JAVASCRIPT_WITH_SCOPE, END_OF_DOCUMENT -> false;
                default -> true;
            };
            if (scalar) {
                decoders.put(type, registry.get(BsonValueCodecProvider.getClassForBsonType(type)));
            }
        }
        return decoders;
    }

    /** A field name that appears twice in one document, where names must be unique. */
    public static final class RepeatedNameException extends JsonParseException {

        private final String path;

        RepeatedNameException(String path) {
            super("repeats field '" + path + "'");
            this.path = path;
        }

        /** The dotted path of the repeated field. */
        public String path() {
            return path;
        }
    }

    private void checkDepth(int depth) {
        if (depth > maxDepth) {
            throw new JsonParseException("the JSON nests deeper than " + maxDepth + " levels of documents and arrays");
        }
    }
}

package io.ttlstreams.config;

import org.bson.BsonType;
import org.bson.json.JsonReader;

/**
 * Checks how deeply a JSON document nests before it is decoded. The BSON codecs decode a nested document by
 * recursion, so {@code BsonDocument.parse} of a value nested 20,000 levels deep ends in a {@link StackOverflowError};
 * the {@link JsonReader} underneath keeps its state on the heap, so walking its tokens in a loop measures any depth
 * safely.
 */
final class JsonDepth {

    /** MongoDB's own limit: a BSON document nests at most 100 levels deep. */
    static final int MAX_DEPTH = 100;

    private JsonDepth() {}

    /**
     * Walks the JSON document {@code json} (extended JSON, as {@code BsonDocument.parse} reads it) without decoding
     * it. The outermost document is level 1; each nested document or array adds one.
     *
     * @throws IllegalArgumentException when it nests deeper than {@code maxDepth}
     * @throws org.bson.json.JsonParseException when it is not JSON
     */
    static void check(String json, int maxDepth) {
        // Whether each open level is an array, to close it the way it was opened.
        boolean[] array = new boolean[maxDepth + 1];
        try (JsonReader reader = new JsonReader(json)) {
            reader.readStartDocument();
            int depth = 1;
            while (depth > 0) {
                BsonType type = reader.readBsonType();
                if (type == BsonType.END_OF_DOCUMENT) {
                    if (array[depth]) {
                        reader.readEndArray();
                    } else {
                        reader.readEndDocument();
                    }
                    depth--;
                    continue;
                }
                if (!array[depth]) {
                    reader.skipName();
                }
                switch (type) {
                    case DOCUMENT, ARRAY, JAVASCRIPT_WITH_SCOPE -> {
                        if (depth == maxDepth) {
                            throw new IllegalArgumentException(
                                    "Nested deeper than " + maxDepth + " levels of documents and arrays");
                        }
                        depth++;
                        array[depth] = type == BsonType.ARRAY;
                        if (type == BsonType.ARRAY) {
                            reader.readStartArray();
                        } else {
                            if (type == BsonType.JAVASCRIPT_WITH_SCOPE) {
                                reader.readJavaScriptWithScope(); // then its scope, a document
                            }
                            reader.readStartDocument();
                        }
                    }
                    default -> reader.skipValue();
                }
            }
        }
    }
}

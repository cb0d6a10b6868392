package io.ttlstreams.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** Dotted field paths ({@code session.expiresAt}) resolved the way MongoDB queries and indexes resolve them. */
public final class BsonPaths {

    private BsonPaths() {}

    /**
     * Checks that {@code path} can name a field: non-empty segments, none starting with {@code $} (that would be an
     * operator, not a field); public so that configuration can report a bad path against the option that holds it.
     *
     * @return {@code path}
     * @throws IllegalArgumentException otherwise
     */
    public static String validate(String path) {
        Objects.requireNonNull(path, "path");
        for (String segment : path.split("\\.", -1)) {
            if (segment.isEmpty() || segment.startsWith("$")) {
                throw new IllegalArgumentException("Invalid field path '" + path
                        + "': segments between dots must be non-empty and must not start with $");
            }
        }
        return path;
    }

    /**
     * Every value {@code path} reaches in {@code document}; empty when the field is missing. Like MongoDB, a path
     * continues into each subdocument of an array ({@code items.at} reaches every item's {@code at}) and a numeric
     * segment also indexes the array. An array at the end of the path is returned whole; callers decide how its
     * elements count.
     */
    static List<BsonValue> resolve(BsonDocument document, String path) {
        List<BsonValue> found = new ArrayList<>(1);
        collect(document, path.split("\\."), 0, found);
        return found;
    }

    /**
     * {@code values} with each array among them followed by its elements: what a query compares with, as MongoDB
     * expands one array level.
     */
    static List<BsonValue> withElements(List<BsonValue> values) {
        List<BsonValue> expanded = new ArrayList<>(values.size());
        for (BsonValue value : values) {
            expanded.add(value);
            if (value.isArray()) {
                expanded.addAll(value.asArray());
            }
        }
        return expanded;
    }

    /**
     * The filter condition that matches exactly {@code value}: {@code {"$eq": value}}, so that a value taken from a
     * document is always compared as data, never read as a query operator (a document such as {@code {"$gt": ""}}
     * or a regular expression would otherwise match other values). The value is detached from the document it was
     * found in, so that the condition stays as found even if the caller reuses the document.
     */
    static BsonDocument pinned(BsonValue value) {
        BsonValue detached = value.isDocument()
                ? value.asDocument().clone()
                : value.isArray() ? value.asArray().clone() : value;
        return new BsonDocument("$eq", detached);
    }

    private static void collect(BsonValue current, String[] segments, int index, List<BsonValue> found) {
        if (index == segments.length) {
            found.add(current);
        } else if (current.isDocument()) {
            BsonValue next = current.asDocument().get(segments[index]);
            if (next != null) {
                collect(next, segments, index + 1, found);
            }
        } else if (current.isArray()) {
            BsonArray array = current.asArray();
            int position = arrayIndex(segments[index]);
            if (position >= 0 && position < array.size()) {
                collect(array.get(position), segments, index + 1, found);
            }
            // MongoDB descends one array level only, so nested arrays are skipped rather than flattened.
            for (BsonValue element : array) {
                if (element.isDocument()) {
                    collect(element, segments, index, found);
                }
            }
        }
    }

    private static int arrayIndex(String segment) {
        if (segment.isEmpty() || segment.length() > 9 || !segment.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Integer.parseInt(segment);
    }
}

package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code updateDescription} of an update event, as MongoDB 5.0 reports it: {@code updatedFields} (each path
 * the update set, with its new value), {@code removedFields} (the paths it removed) and {@code truncatedArrays}.
 *
 * <p>The paths are those the update operators name, as MongoDB's oplog records them for operator updates: a
 * {@code $set} of {@code "a.b"} reports {@code "a.b"}, a {@code $set} of {@code "a"} reports the whole of
 * {@code a}. A path whose value the update left as it was is not reported. A path with a positional operator
 * ({@code "arr.$.x"}) is reported from its first field on ({@code "arr"}), and array changes as the whole array,
 * where MongoDB may report an element path or a truncation; {@code truncatedArrays} is always empty.
 */
final class UpdateDescriptions {

    private UpdateDescriptions() {}

    /**
     * @param update the update specification, operators only
     * @param before the document before the update
     * @param after  the document after it
     */
    static Document describe(Document update, Document before, Document after) {
        Map<String, Object> updated = new LinkedHashMap<>();
        List<String> removed = new ArrayList<>();
        for (Map.Entry<String, Object> operator : update.entrySet()) {
            if (!(operator.getValue() instanceof Document arguments)) {
                continue;
            }
            for (Map.Entry<String, Object> argument : arguments.entrySet()) {
                String path = reportedPath(argument.getKey());
                switch (operator.getKey()) {
                    case "$unset" -> {
                        if (value(before, path).isPresent() && !removed.contains(path)) {
                            removed.add(path);
                        }
                    }
                    case "$rename" -> {
                        if (value(before, path).isPresent() && !removed.contains(path)) {
                            removed.add(path);
                        }
                        if (argument.getValue() instanceof String target) {
                            report(updated, reportedPath(target), before, after);
                        }
                    }
                    default -> report(updated, path, before, after);
                }
            }
        }
        return new Document()
                .append("updatedFields", new Document(updated))
                .append("removedFields", removed)
                .append("truncatedArrays", List.of());
    }

    private static void report(Map<String, Object> updated, String path, Document before, Document after) {
        Optional<Object> now = value(after, path);
        if (now.isPresent() && !Objects.equals(value(before, path), now)) {
            updated.put(path, now.get() == NULL ? null : now.get());
        }
    }

    /** The path up to its first positional or array-filter segment ({@code $}, {@code $[]}, {@code $[id]}). */
    private static String reportedPath(String path) {
        List<String> kept = new ArrayList<>();
        for (String segment : path.split("\\.", -1)) {
            if (segment.startsWith("$")) {
                break;
            }
            kept.add(segment);
        }
        return kept.isEmpty() ? path : String.join(".", kept);
    }

    /** The value at a dotted path through sub-documents and array indexes; empty when there is none. */
    static Optional<Object> value(Object document, String path) {
        Object current = document;
        for (String segment : path.split("\\.", -1)) {
            if (current instanceof Document sub && sub.containsKey(segment)) {
                current = sub.get(segment);
            } else if (current instanceof List<?> list
                    && segment.matches("\\d{1,9}")
                    && Integer.parseInt(segment) < list.size()) {
                current = list.get(Integer.parseInt(segment));
            } else {
                return Optional.empty();
            }
        }
        return Optional.ofNullable(current).or(() -> Optional.of(NULL));
    }

    /** Stands for a present null value, which {@link Optional} cannot hold. */
    private static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };
}

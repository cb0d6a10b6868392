package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The {@code updateDescription} of an update event, as MongoDB reports it: {@code updatedFields} (each path the update
 * set, with its new value), {@code removedFields} (the paths it removed), {@code truncatedArrays} (arrays a pipeline
 * update shortened, with their new size) and, for a stream with {@code showExpandedEvents}, {@code
 * disambiguatedPaths}: for each reported path that a reader could split wrongly (a field name holding a dot, or a
 * numeric field name of a sub-document, which reads like an array index), its components, array indexes as numbers.
 *
 * <p>For an update by operators the paths are those the operators name, as MongoDB's oplog records them: a
 * {@code $set} of {@code "a.b"} reports {@code "a.b"}, a {@code $set} of {@code "a"} reports the whole of {@code a}. A
 * path whose value the update left as it was is not reported. A path with a positional operator ({@code "arr.$.x"}) is
 * reported from its first field on ({@code "arr"}), and array changes as the whole array, where MongoDB may report an
 * element path; such an update never truncates. An update by pipeline is described by {@link DocumentDiff}.
 */
final class UpdateDescriptions {

    private UpdateDescriptions() {}

    /**
     * A described update.
     *
     * @param updateDescription  {@code updatedFields}, {@code removedFields}, {@code truncatedArrays}
     * @param disambiguatedPaths the components of each ambiguous path; null when no path is ambiguous
     */
    record Described(Document updateDescription, Document disambiguatedPaths) {}

    /** Collects the paths of one description, each as its list of components (field names, array indexes). */
    static final class Builder {
        private final Map<String, Object> updated = new LinkedHashMap<>();
        private final List<String> removed = new ArrayList<>();
        private final List<Document> truncated = new ArrayList<>();
        private final Map<String, List<Object>> ambiguous = new LinkedHashMap<>();

        void updated(List<Object> path, Object value) {
            updated.put(noted(path), value);
        }

        void removed(List<Object> path) {
            String joined = noted(path);
            if (!removed.contains(joined)) {
                removed.add(joined);
            }
        }

        void truncated(List<Object> path, int newSize) {
            truncated.add(new Document("field", noted(path)).append("newSize", newSize));
        }

        Described build() {
            Document description = new Document()
                    .append("updatedFields", new Document(updated))
                    .append("removedFields", removed)
                    .append("truncatedArrays", truncated);
            if (ambiguous.isEmpty()) {
                return new Described(description, null);
            }
            Document paths = new Document();
            ambiguous.forEach(paths::append);
            return new Described(description, paths);
        }

        private String noted(List<Object> path) {
            String joined = path.stream().map(String::valueOf).collect(Collectors.joining("."));
            if (isAmbiguous(path)) {
                ambiguous.put(joined, List.copyOf(path));
            }
            return joined;
        }
    }

    /**
     * Whether the dotted form of {@code path} could be split into other components: a field name with a dot, or a
     * numeric field name (without leading zeros) below the top level, where it reads like an array index.
     */
    static boolean isAmbiguous(List<Object> path) {
        for (int i = 0; i < path.size(); i++) {
            if (path.get(i) instanceof String field
                    && (field.contains(".") || (i > 0 && field.matches("0|[1-9][0-9]*")))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Describes an update by operators.
     *
     * @param update the update specification, operators only
     * @param before the document before the update
     * @param after  the document after it
     */
    static Described describe(Document update, Document before, Document after) {
        Builder description = new Builder();
        for (Map.Entry<String, Object> operator : update.entrySet()) {
            if (!(operator.getValue() instanceof Document arguments)) {
                continue;
            }
            for (Map.Entry<String, Object> argument : arguments.entrySet()) {
                String path = reportedPath(argument.getKey());
                switch (operator.getKey()) {
                    case "$unset" -> {
                        if (value(before, path).isPresent()) {
                            description.removed(components(before, path));
                        }
                    }
                    case "$rename" -> {
                        if (value(before, path).isPresent()) {
                            description.removed(components(before, path));
                        }
                        if (argument.getValue() instanceof String target) {
                            report(description, reportedPath(target), before, after);
                        }
                    }
                    default -> report(description, path, before, after);
                }
            }
        }
        return description.build();
    }

    /** An update whose images are unknown: nothing to report. */
    static Described empty() {
        return new Builder().build();
    }

    private static void report(Builder description, String path, Document before, Document after) {
        Optional<Object> now = value(after, path);
        if (now.isPresent() && !Objects.equals(value(before, path), now)) {
            description.updated(components(after, path), now.get() == NULL ? null : now.get());
        }
    }

    /** The components of a dotted path as {@code document} resolves it: array indexes as numbers. */
    private static List<Object> components(Document document, String path) {
        List<Object> components = new ArrayList<>();
        Object current = document;
        for (String segment : path.split("\\.", -1)) {
            if (current instanceof List<?> list && segment.matches("\\d{1,9}")) {
                int index = Integer.parseInt(segment);
                components.add(index);
                current = index < list.size() ? list.get(index) : null;
            } else {
                components.add(segment);
                current = current instanceof Document sub ? sub.get(segment) : null;
            }
        }
        return components;
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

package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.aggregation.Expression;
import de.bwaldvogel.mongo.bson.Document;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The stages that shape fields, {@code $addFields}/{@code $set} and an inclusion {@code $project}, evaluated as
 * MongoDB evaluates them where mongo-java-server 1.47's own stages differ: a dotted path ({@code "meta.hits"}) sets or
 * computes a field of the sub-document (mongo-java-server makes a top-level field named with the dot), a nested
 * specification ({@code {meta: {hits: 2}}}) merges into the sub-document, and an expression whose value is a document
 * replaces the field (mongo-java-server merges it). Expressions are evaluated by mongo-java-server on the whole
 * document, as MongoDB evaluates field paths against {@code $$CURRENT}.
 *
 * <p>Shapes this class does not evaluate (a path through an array; {@code $bsonSize}, which mongo-java-server lacks)
 * are reported as such, and the caller runs mongo-java-server's stage instead.
 */
final class FieldStages {

    private FieldStages() {}

    /** Whether {@code spec} is a specification this class evaluates. */
    static boolean evaluates(Object spec) {
        return spec instanceof Document document && !document.isEmpty() && !mentions(document, "$bsonSize");
    }

    /**
     * {@code document} after {@code $addFields: spec}; {@code document} is not changed.
     *
     * @return null when a path runs through an array (the caller falls back to mongo-java-server)
     */
    static Document addFields(Document document, Document spec) {
        Document out = document.cloneDeeply();
        return set(out, "", spec, document) ? out : null;
    }

    /** Sets each field of {@code spec} under {@code prefix} in {@code out}; false for a path through an array. */
    private static boolean set(Document out, String prefix, Document spec, Document root) {
        for (Map.Entry<String, Object> field : spec.entrySet()) {
            String path = prefix + field.getKey();
            Object value = field.getValue();
            if (value instanceof Document nested && !nested.isEmpty() && !isExpression(nested)) {
                if (!(containerAt(out, path, true) instanceof Document)) {
                    return false;
                }
                if (!set(out, path + ".", nested, root)) {
                    return false;
                }
                continue;
            }
            Object computed = Expression.evaluateDocument(value, root);
            String[] parts = path.split("\\.", -1);
            Object parent = parts.length == 1 ? out : containerAt(out, path.substring(0, path.lastIndexOf('.')), true);
            if (!(parent instanceof Document target)) {
                return false;
            }
            String name = parts[parts.length - 1];
            if (computed instanceof Missing) {
                target.remove(name);
            } else {
                target.put(name, computed);
            }
        }
        return true;
    }

    /**
     * The sub-document at a dotted path, created (replacing a scalar) where missing when {@code create}; a list when
     * the path runs through an array.
     */
    private static Object containerAt(Document document, String path, boolean create) {
        Object current = document;
        for (String part : path.split("\\.", -1)) {
            if (!(current instanceof Document container)) {
                return current;
            }
            Object next = container.get(part);
            if (next instanceof List<?>) {
                return next;
            }
            if (!(next instanceof Document) && create) {
                next = new Document();
                container.put(part, next);
            }
            current = next;
        }
        return current;
    }

    private static boolean isExpression(Document document) {
        return document.keySet().stream().anyMatch(key -> key.startsWith("$"));
    }

    /** Whether {@code key} is a key anywhere in {@code value}. */
    static boolean mentions(Object value, String key) {
        if (value instanceof Document document) {
            return document.containsKey(key) || document.values().stream().anyMatch(inner -> mentions(inner, key));
        }
        return value instanceof List<?> list && list.stream().anyMatch(inner -> mentions(inner, key));
    }

    /**
     * An inclusion {@code $project} (each path {@code 1} or {@code true}, {@code _id} kept unless {@code _id: 0}) with
     * computed fields (any other value: an expression, evaluated on the event by mongo-java-server), paths dotted
     * ({@code "ns.viewOn"}) or nested ({@code {ns: {viewOn: ...}}}) alike, as a tree. Included fields come out in the
     * event's order and computed ones after them, in the projection's order, as MongoDB's do; a computed dotted path
     * lands in its sub-document (mongo-java-server 1.47's own stage makes a top-level field named with the dot). A
     * path through a scalar or null selects nothing (an {@code updateLookup} that found no document: {@code
     * fullDocument} is left out); a document where a projected path runs through an array is left to
     * mongo-java-server's stage ({@link #apply} answers null).
     */
    static final class Inclusion {

        /** Marks a path included whole. */
        private static final Object WHOLE = new Object();

        /** A computed field's expression. */
        private record Computed(Object expression) {}

        /** Field name → {@link #WHOLE}, a {@link Computed}, or the sub-tree of the paths under it. */
        private final Map<String, Object> tree;

        private Inclusion(Map<String, Object> tree) {
            this.tree = tree;
        }

        /** The inclusion of {@code projection}; empty for an exclusion or a shape left to mongo-java-server. */
        static Optional<Inclusion> of(Document projection) {
            Map<String, Object> tree = new LinkedHashMap<>();
            boolean[] withId = {true};
            if (!addAll(tree, "", projection, withId) || tree.isEmpty()) {
                return Optional.empty(); // an exclusion, {_id: 0} alone, or a shape left to the general stage
            }
            if (withId[0]) {
                tree.putIfAbsent("_id", WHOLE);
            }
            return Optional.of(new Inclusion(tree));
        }

        /** Adds a projection's paths under {@code prefix}; false for what this stage leaves to the general one. */
        private static boolean addAll(Map<String, Object> tree, String prefix, Document projection, boolean[] withId) {
            for (Map.Entry<String, Object> entry : projection.entrySet()) {
                String path = prefix + entry.getKey();
                Object value = entry.getValue();
                if (path.equals("_id") && isExclusion(value)) {
                    withId[0] = false;
                    continue;
                }
                if (entry.getKey().isEmpty() || entry.getKey().startsWith("$") || isExclusion(value)) {
                    return false;
                }
                if (value instanceof Document nested && !nested.isEmpty() && !isExpression(nested)) {
                    if (!addAll(tree, path + ".", nested, withId)) {
                        return false;
                    }
                } else if (mentions(value, "$bsonSize")
                        || !add(tree, path.split("\\.", -1), isInclusion(value) ? WHOLE : new Computed(value))) {
                    return false;
                }
            }
            return true;
        }

        private static boolean isExpression(Document document) {
            return document.keySet().stream().anyMatch(key -> key.startsWith("$"));
        }

        private static boolean isInclusion(Object value) {
            return Boolean.TRUE.equals(value) || (value instanceof Number n && n.doubleValue() != 0);
        }

        private static boolean isExclusion(Object value) {
            return Boolean.FALSE.equals(value) || (value instanceof Number n && n.doubleValue() == 0);
        }

        /** Adds a path; false on a path collision (a path under another), which the general stage reports. */
        @SuppressWarnings("unchecked")
        private static boolean add(Map<String, Object> tree, String[] parts, Object leaf) {
            Map<String, Object> node = tree;
            for (int i = 0; i < parts.length; i++) {
                String part = parts[i];
                if (part.isEmpty()) {
                    return false;
                }
                Object existing = node.get(part);
                if (i == parts.length - 1) {
                    if (existing != null) {
                        return false;
                    }
                    node.put(part, leaf);
                } else if (existing == null) {
                    Map<String, Object> child = new LinkedHashMap<>();
                    node.put(part, child);
                    node = child;
                } else if (existing instanceof Map<?, ?> child) {
                    node = (Map<String, Object>) child;
                } else {
                    return false;
                }
            }
            return true;
        }

        /** The projection of {@code document}, or null when a projected path runs through an array. */
        Document apply(Document document) {
            Document projected = project(document, tree);
            if (projected != null) {
                compute(projected, tree, document);
            }
            return projected;
        }

        /** The included paths of {@code document}, or null when one runs through an array. */
        @SuppressWarnings("unchecked")
        private static Document project(Document document, Map<String, Object> tree) {
            Document out = new Document();
            for (Map.Entry<String, Object> field : document.entrySet()) {
                Object node = tree.get(field.getKey());
                if (node == null || node instanceof Computed) {
                    continue;
                }
                Object value = field.getValue();
                if (node == WHOLE) {
                    out.put(field.getKey(), value);
                } else if (value instanceof Document nested) {
                    Document inner = project(nested, (Map<String, Object>) node);
                    if (inner == null) {
                        return null;
                    }
                    out.put(field.getKey(), inner);
                } else if (value instanceof List<?>) {
                    return null;
                }
                // A path through a scalar or null selects nothing there: the field is left out, as MongoDB does.
            }
            return out;
        }

        /** Adds the computed fields of {@code tree} to {@code out}, evaluated on the whole {@code event}. */
        @SuppressWarnings("unchecked")
        private static boolean compute(Document out, Map<String, Object> tree, Document event) {
            boolean any = false;
            for (Map.Entry<String, Object> node : tree.entrySet()) {
                if (node.getValue() instanceof Computed computed) {
                    Object value = Expression.evaluateDocument(computed.expression(), event);
                    if (!(value instanceof Missing)) {
                        out.put(node.getKey(), value);
                        any = true;
                    }
                } else if (node.getValue() instanceof Map<?, ?> subtree) {
                    Document inner = out.get(node.getKey()) instanceof Document existing ? existing : new Document();
                    if (compute(inner, (Map<String, Object>) subtree, event)) {
                        out.put(node.getKey(), inner);
                        any = true;
                    }
                }
            }
            return any;
        }
    }
}

package io.ttlstreams.contract;

import java.util.Objects;

/**
 * The namespaces a TTL rule (or the sink's allow-list) covers: one collection ({@code db.coll}) or every collection
 * of a database ({@code db.*}).
 *
 * @param database the database name
 * @param collection the collection name, or {@code null} for every collection of {@code database}
 */
public record NamespacePattern(String database, String collection) {

    private static final String WILDCARD = "*";

    /** Validates the names with MongoDB's rules ({@link Namespace}), so that a typo fails at start-up. */
    public NamespacePattern {
        new Namespace(database, collection);
        if (database.contains(WILDCARD) || collection != null && collection.contains(WILDCARD)) {
            throw new IllegalArgumentException("Invalid namespace pattern "
                    + Namespace.quoted(database + "." + (collection == null ? WILDCARD : collection))
                    + ": * stands only for a whole collection name,"
                    + " as in db.*");
        }
    }

    /**
     * Parses {@code "db.coll"} or {@code "db.*"}; the database ends at the first dot.
     *
     * @throws IllegalArgumentException when {@code text} has neither form
     */
    public static NamespacePattern parse(String text) {
        Objects.requireNonNull(text, "text");
        int dot = text.indexOf('.');
        if (dot < 0) {
            throw new IllegalArgumentException(
                    "Invalid namespace " + Namespace.quoted(text) + ": expected db.coll or db.*");
        }
        String collection = text.substring(dot + 1);
        try {
            return new NamespacePattern(text.substring(0, dot), WILDCARD.equals(collection) ? null : collection);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Invalid namespace " + Namespace.quoted(text) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether {@code namespace} is one this pattern names. A whole database, as a {@code dropDatabase} event
     * carries, matches no pattern: rules are about documents, which live in collections.
     */
    public boolean matches(Namespace namespace) {
        return namespace != null
                && !namespace.isDatabase()
                && database.equals(namespace.database())
                && (collection == null || collection.equals(namespace.collection()));
    }

    /** The one collection this pattern names; empty for {@code db.*}. */
    public java.util.Optional<Namespace> exactNamespace() {
        return collection == null
                ? java.util.Optional.empty()
                : java.util.Optional.of(Namespace.of(database, collection));
    }

    /** The pattern as written in configuration: {@code db.coll} or {@code db.*}. */
    @Override
    public String toString() {
        return database + "." + (collection == null ? WILDCARD : collection);
    }
}

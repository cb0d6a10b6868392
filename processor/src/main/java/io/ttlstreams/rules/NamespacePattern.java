package io.ttlstreams.rules;

import java.util.Objects;

/**
 * The namespaces a rule applies to: one collection ({@code db.coll}) or every collection of a database
 * ({@code db.*}).
 *
 * @param database   the database name
 * @param collection the collection name, or {@code null} for every collection of {@code database}
 */
public record NamespacePattern(String database, String collection) {

    private static final String WILDCARD = "*";

    /** Validates the names with MongoDB's rules, so that a typo fails at start-up rather than never matching. */
    public NamespacePattern {
        Objects.requireNonNull(database, "database");
        if (database.isEmpty() || database.chars().anyMatch(c -> "/\\. \"$*\0".indexOf(c) >= 0)) {
            throw new IllegalArgumentException("Invalid database name '" + database
                    + "': it must be non-empty and free of / \\ . space \" $ * and NUL");
        }
        if (collection != null && (collection.isEmpty() || collection.chars().anyMatch(c -> "$*\0".indexOf(c) >= 0))) {
            throw new IllegalArgumentException("Invalid collection name '" + collection
                    + "': it must be non-empty and free of $ * and NUL (use db.* for every collection)");
        }
    }

    /**
     * Parses {@code "db.coll"} or {@code "db.*"}. The database ends at the first dot, because MongoDB database names
     * cannot contain one while collection names can.
     *
     * @throws IllegalArgumentException when {@code text} has neither form
     */
    public static NamespacePattern parse(String text) {
        Objects.requireNonNull(text, "text");
        int dot = text.indexOf('.');
        if (dot < 0) {
            throw new IllegalArgumentException("Invalid namespace '" + text + "': expected db.coll or db.*");
        }
        String collection = text.substring(dot + 1);
        return new NamespacePattern(text.substring(0, dot), WILDCARD.equals(collection) ? null : collection);
    }

    /**
     * Whether {@code namespace} ({@code "db.coll"}) is one this pattern names. A bare database name, as a
     * {@code dropDatabase} event carries, matches no pattern: rules are about documents, which live in collections.
     */
    public boolean matches(String namespace) {
        if (namespace == null) {
            return false;
        }
        int dot = namespace.indexOf('.');
        if (dot < 0 || !database.equals(namespace.substring(0, dot))) {
            return false;
        }
        String actualCollection = namespace.substring(dot + 1);
        return collection == null ? !actualCollection.isEmpty() : collection.equals(actualCollection);
    }

    /** The pattern as written in configuration: {@code db.coll} or {@code db.*}. */
    @Override
    public String toString() {
        return database + "." + (collection == null ? WILDCARD : collection);
    }
}

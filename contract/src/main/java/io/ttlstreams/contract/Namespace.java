package io.ttlstreams.contract;

import java.util.Objects;

/**
 * A MongoDB namespace: a collection ({@code db.coll}), or a whole database for the events that concern one
 * ({@code dropDatabase}). Validated once, when built, with MongoDB's naming rules, so that code holding a {@code
 * Namespace} never splits strings: database names cannot contain a dot, so the first dot separates the parts;
 * neither part may contain a NUL (which the state stores use as a separator) or a {@code $}.
 *
 * @param database the database name
 * @param collection the collection name; {@code null} for a whole database
 */
public record Namespace(String database, String collection) {

    /** Characters MongoDB forbids in database names (on any platform), besides NUL. */
    private static final String DATABASE_FORBIDDEN = "/\\. \"$*<>:|?";

    /** Validates both names; see the class comment. */
    public Namespace {
        Objects.requireNonNull(database, "database");
        if (database.isEmpty() || database.chars().anyMatch(c -> c == 0 || DATABASE_FORBIDDEN.indexOf(c) >= 0)) {
            throw new IllegalArgumentException("Invalid database name " + quoted(database)
                    + ": it must be non-empty and free of / \\ . space \"" + " $ * < > : | ? and NUL");
        }
        if (collection != null && (collection.isEmpty() || collection.chars().anyMatch(c -> c == 0 || c == '$'))) {
            throw new IllegalArgumentException(
                    "Invalid collection name " + quoted(collection) + ": it must be non-empty and free of $ and NUL");
        }
    }

    /** The collection {@code collection} of database {@code database}. */
    public static Namespace of(String database, String collection) {
        return new Namespace(database, Objects.requireNonNull(collection, "collection"));
    }

    /** The whole database {@code database}. */
    public static Namespace database(String database) {
        return new Namespace(database, null);
    }

    /**
     * Parses {@code "db.coll"}: the database ends at the first dot, because database names cannot contain one while
     * collection names can.
     *
     * @throws IllegalArgumentException when {@code text} is not a valid {@code db.coll}
     */
    public static Namespace parse(String text) {
        Objects.requireNonNull(text, "text");
        int dot = text.indexOf('.');
        if (dot < 0) {
            throw new IllegalArgumentException("Invalid namespace " + quoted(text) + ": expected database.collection");
        }
        return of(text.substring(0, dot), text.substring(dot + 1));
    }

    /**
     * The namespace {@link #toString()} printed: {@code db.coll}, or {@code db} for a whole database.
     *
     * @throws IllegalArgumentException when {@code text} is neither
     */
    public static Namespace valueOf(String text) {
        Objects.requireNonNull(text, "text");
        return text.indexOf('.') < 0 ? database(text) : parse(text);
    }

    /** Whether this names a whole database rather than one collection. */
    public boolean isDatabase() {
        return collection == null;
    }

    /** The database this namespace lies in, as a namespace. */
    public Namespace databaseNamespace() {
        return isDatabase() ? this : database(database);
    }

    /** {@code db.coll}, or {@code db} for a whole database. */
    @Override
    public String toString() {
        return isDatabase() ? database : database + "." + collection;
    }

    /** A name in quotes with control characters escaped, so that an error message shows what was really there. */
    static String quoted(String name) {
        StringBuilder text = new StringBuilder("'");
        name.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                text.append(String.format("\\u%04x", c));
            } else {
                text.appendCodePoint(c);
            }
        });
        return text.append('\'').toString();
    }
}

package io.ttlstreams.embedded;

/** Splits and checks {@code "db.coll"} namespaces for the embedded stack's connector configurations. */
final class Namespaces {

    private Namespaces() {}

    /**
     * @param namespace {@code "db.coll"}; the database ends at the first dot, the collection may contain dots
     * @return {@code [database, collection]}
     * @throws IllegalArgumentException naming the namespace if either part is missing
     */
    static String[] split(String namespace) {
        int dot = namespace == null ? -1 : namespace.indexOf('.');
        if (dot <= 0 || dot == namespace.length() - 1) {
            throw new IllegalArgumentException(
                    "A watched namespace must look like 'database.collection', got '" + namespace + "'");
        }
        return new String[] {namespace.substring(0, dot), namespace.substring(dot + 1)};
    }

    /** Quotes a string as a JSON string literal. */
    static String jsonString(String value) {
        StringBuilder json = new StringBuilder(value.length() + 2).append('"');
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"').toString();
    }
}

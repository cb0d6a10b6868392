package io.ttlstreams.event;

/** Test values nested to a given depth, for the parser's nesting bound. */
final class NestedJson {

    private NestedJson() {}

    /** {@code levels} nested documents and arrays, alternating, around the number 1: {@code {"a": [{"a": ... 1}]}}. */
    static String nested(int levels) {
        StringBuilder value = new StringBuilder();
        for (int i = 0; i < levels; i++) {
            value.append(i % 2 == 0 ? "{\"a\": " : "[");
        }
        value.append('1');
        for (int i = levels - 1; i >= 0; i--) {
            value.append(i % 2 == 0 ? '}' : ']');
        }
        return value.toString();
    }
}

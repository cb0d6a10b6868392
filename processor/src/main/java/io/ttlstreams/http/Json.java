package io.ttlstreams.http;

import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Writes the endpoints' JSON: maps (in their iteration order), lists, strings, numbers, booleans, null, instants as
 * ISO-8601 strings, empty optionals and non-finite numbers as null, and {@link Raw} text inserted as it is (a
 * document key in canonical extended JSON, so that its types survive a round trip) but for {@code <}, {@code >} and
 * {@code &}, escaped there as in every string, so that no text a client sent turns into markup.
 */
public final class Json {

    /** JSON text written as it is, but for {@code <}, {@code >} and {@code &}. */
    public record Raw(String json) {}

    private Json() {}

    /** {@code value} as JSON text. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Raw raw) {
            raw(raw.json(), out);
        } else if (value instanceof String text) {
            string(text, out);
        } else if (value instanceof Instant instant) {
            string(instant.toString(), out);
        } else if (value instanceof Boolean bool) {
            out.append(bool);
        } else if (value instanceof Double || value instanceof Float) {
            finite(((Number) value).doubleValue(), out);
        } else if (value instanceof Number number) {
            out.append(number);
        } else if (value instanceof OptionalLong optional) {
            write(optional.isPresent() ? optional.getAsLong() : null, out);
        } else if (value instanceof OptionalDouble optional) {
            write(optional.isPresent() ? optional.getAsDouble() : null, out);
        } else if (value instanceof Optional<?> optional) {
            write(optional.orElse(null), out);
        } else if (value instanceof Map<?, ?> map) {
            object(map, out);
        } else if (value instanceof List<?> list) {
            array(list, out);
        } else {
            throw new IllegalArgumentException("No JSON form for " + value.getClass());
        }
    }

    private static void finite(double number, StringBuilder out) {
        if (Double.isFinite(number)) {
            out.append(number);
        } else {
            out.append("null");
        }
    }

    private static void object(Map<?, ?> map, StringBuilder out) {
        out.append('{');
        Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
        while (entries.hasNext()) {
            Map.Entry<?, ?> entry = entries.next();
            string(String.valueOf(entry.getKey()), out);
            out.append(": ");
            write(entry.getValue(), out);
            if (entries.hasNext()) {
                out.append(", ");
            }
        }
        out.append('}');
    }

    private static void array(List<?> list, StringBuilder out) {
        out.append('[');
        for (int i = 0; i < list.size(); i++) {
            if (i > 0) {
                out.append(", ");
            }
            write(list.get(i), out);
        }
        out.append(']');
    }

    /**
     * Valid JSON holds {@code <}, {@code >} and {@code &} only inside strings, where {@code \\u003c} means the same:
     * escaping them everywhere changes no value.
     */
    private static void raw(String json, StringBuilder out) {
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (markup(c)) {
                unicodeEscape(c, out);
            } else {
                out.append(c);
            }
        }
    }

    private static boolean markup(char c) {
        return c == '<' || c == '>' || c == '&';
    }

    private static void unicodeEscape(char c, StringBuilder out) {
        out.append(String.format("\\u%04x", (int) c));
    }

    private static void string(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || markup(c)) {
                        // Control characters must be escaped; <, > and & too, so that no text turns into markup.
                        unicodeEscape(c, out);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}

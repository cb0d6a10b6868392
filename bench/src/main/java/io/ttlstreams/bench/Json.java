package io.ttlstreams.bench;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** A minimal JSON writer for the results file: maps, lists, arrays of doubles, strings, numbers, booleans. */
final class Json {

    private Json() {}

    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, "");
        return out.append('\n').toString();
    }

    private static void write(Object value, StringBuilder out, String indent) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Map<?, ?> map) {
            out.append("{");
            Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
            String inner = indent + "  ";
            while (entries.hasNext()) {
                Map.Entry<?, ?> entry = entries.next();
                out.append('\n').append(inner);
                string(String.valueOf(entry.getKey()), out);
                out.append(": ");
                write(entry.getValue(), out, inner);
                if (entries.hasNext()) {
                    out.append(',');
                }
            }
            out.append(map.isEmpty() ? "}" : "\n" + indent + "}");
        } else if (value instanceof List<?> list) {
            out.append('[');
            String inner = indent + "  ";
            for (int i = 0; i < list.size(); i++) {
                out.append(i == 0 ? "\n" : ",\n").append(inner);
                write(list.get(i), out, inner);
            }
            out.append(list.isEmpty() ? "]" : "\n" + indent + "]");
        } else if (value instanceof double[] numbers) {
            out.append('[');
            for (int i = 0; i < numbers.length; i++) {
                out.append(i == 0 ? "" : ", ");
                number(numbers[i], out);
            }
            out.append(']');
        } else if (value instanceof Double d) {
            number(d, out);
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else {
            string(value.toString(), out);
        }
    }

    private static void number(double d, StringBuilder out) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            out.append("null");
        } else {
            out.append(Math.round(d * 1000.0) / 1000.0);
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}

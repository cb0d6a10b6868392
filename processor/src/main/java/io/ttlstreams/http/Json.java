package io.ttlstreams.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * Writes the endpoints' JSON with Jackson: records (fields in declaration order), maps (in their iteration order),
 * lists, strings, numbers, booleans, null, instants as ISO-8601 strings, empty optionals and non-finite numbers as
 * null, and {@link Raw} text inserted as it is (a document key in canonical extended JSON, so that its types survive a
 * round trip) but for {@code <}, {@code >} and {@code &}, escaped there as in every string, so that no text a client
 * sent turns into markup. A space follows every colon and comma: {@code {"a": 1, "b": [2, 3]}}.
 */
public final class Json {

    /** JSON text written as it is, but for {@code <}, {@code >} and {@code &}. */
    public record Raw(String json) {}

    private static final ObjectWriter WRITER = mapper().writer(new Spaced());

    private Json() {}

    /** {@code value} as JSON text. */
    public static String write(Object value) {
        try {
            return WRITER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "No JSON form for " + value.getClass() + ": " + e.getOriginalMessage(), e);
        }
    }

    private static ObjectMapper mapper() {
        StdSerializer<Double> finite = serializer(Double.class, (number, out, provider) -> finite(number, out));
        SimpleModule types = new SimpleModule("ttl-streams")
                .addSerializer(Raw.class, serializer(Raw.class, (raw, out, provider) -> writeRaw(raw, out)))
                .addSerializer(
                        Instant.class,
                        serializer(Instant.class, (instant, out, provider) -> out.writeString(instant.toString())))
                .addSerializer(Double.class, finite)
                .addSerializer(double.class, finite)
                .addSerializer(
                        OptionalLong.class,
                        orNull(
                                OptionalLong.class,
                                OptionalLong::isPresent,
                                (value, out, provider) -> out.writeNumber(value.getAsLong())))
                .addSerializer(
                        OptionalDouble.class,
                        orNull(
                                OptionalDouble.class,
                                OptionalDouble::isPresent,
                                (value, out, provider) -> finite(value.getAsDouble(), out)));
        @SuppressWarnings({"unchecked", "rawtypes"})
        Class<Optional<?>> optional = (Class) Optional.class;
        types.addSerializer(
                optional,
                orNull(
                        optional,
                        Optional::isPresent,
                        (value, out, provider) -> provider.defaultSerializeValue(value.get(), out)));
        JsonMapper mapper = JsonMapper.builder().addModule(types).build();
        mapper.getFactory().setCharacterEscapes(new MarkupEscapes());
        return mapper;
    }

    /** How one type is written. */
    @FunctionalInterface
    private interface Writer<T> {
        void write(T value, JsonGenerator out, SerializerProvider provider) throws IOException;
    }

    private static <T> StdSerializer<T> serializer(Class<T> type, Writer<T> writer) {
        return new StdSerializer<>(type) {
            @Override
            public void serialize(T value, JsonGenerator out, SerializerProvider provider) throws IOException {
                writer.write(value, out, provider);
            }
        };
    }

    /** An optional type: written by {@code writer} when {@code present}, as null when empty. */
    private static <T> StdSerializer<T> orNull(Class<T> type, Predicate<T> present, Writer<T> writer) {
        return serializer(type, (value, out, provider) -> {
            if (present.test(value)) {
                writer.write(value, out, provider);
            } else {
                out.writeNull();
            }
        });
    }

    /** Jackson's compact form with a space after each colon and comma, as the hand-written JSON had. */
    private static final class Spaced extends MinimalPrettyPrinter {
        @Override
        public void writeObjectFieldValueSeparator(JsonGenerator out) throws IOException {
            out.writeRaw(": ");
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator out) throws IOException {
            out.writeRaw(", ");
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator out) throws IOException {
            out.writeRaw(", ");
        }
    }

    /** Jackson's escapes, and {@code <}, {@code >} and {@code &} as {@code \\u003c}, {@code \\u003e}, {@code \\u0026}. */
    private static final class MarkupEscapes extends CharacterEscapes {
        private final int[] escapes = standardAsciiEscapesForJSON();

        MarkupEscapes() {
            for (char c : new char[] {'<', '>', '&'}) {
                escapes[c] = ESCAPE_CUSTOM;
            }
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return escapes;
        }

        @Override
        public SerializableString getEscapeSequence(int c) {
            return new SerializedString(unicodeEscape((char) c));
        }
    }

    private static boolean markup(char c) {
        return c == '<' || c == '>' || c == '&';
    }

    private static String unicodeEscape(char c) {
        return String.format("\\u%04x", (int) c);
    }

    /**
     * Valid JSON holds {@code <}, {@code >} and {@code &} only inside strings, where {@code \\u003c} means the same:
     * escaping them everywhere changes no value.
     */
    private static void writeRaw(Raw raw, JsonGenerator out) throws IOException {
        StringBuilder escaped = new StringBuilder(raw.json().length());
        for (int i = 0; i < raw.json().length(); i++) {
            char c = raw.json().charAt(i);
            escaped.append(markup(c) ? unicodeEscape(c) : String.valueOf(c));
        }
        out.writeRawValue(escaped.toString());
    }

    /** NaN and infinities, which JSON has no number for, as null. */
    private static void finite(double number, JsonGenerator out) throws IOException {
        if (Double.isFinite(number)) {
            out.writeNumber(number);
        } else {
            out.writeNull();
        }
    }
}

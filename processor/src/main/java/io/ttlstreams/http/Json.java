package io.ttlstreams.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.util.OptionalDouble;

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

    /** What could turn into markup where a client shows the text: escaped wherever it stands. */
    private static final String MARKUP = "<>&";

    private static final ObjectWriter WRITER = mapper().writer(spaced());

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

    /** Jackson's compact form with a space after each colon and comma, as the hand-written JSON had. */
    private static DefaultPrettyPrinter spaced() {
        DefaultPrettyPrinter spaced = new DefaultPrettyPrinter(Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEntrySpacing(Separators.Spacing.AFTER)
                .withArrayValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator(""));
        spaced.indentObjectsWith(DefaultPrettyPrinter.NopIndenter.instance);
        spaced.indentArraysWith(DefaultPrettyPrinter.NopIndenter.instance);
        return spaced;
    }

    /**
     * Jackson with its modules for {@code Optional} (empty as null) and {@code Instant} (ISO-8601), and writers of
     * our own for what JSON has no form for: non-finite numbers, as null, and {@link Raw} text.
     */
    private static ObjectMapper mapper() {
        StdSerializer<Double> finite = new StdSerializer<>(Double.class) {
            @Override
            public void serialize(Double number, JsonGenerator out, SerializerProvider provider) throws IOException {
                finite(number, out);
            }
        };
        SimpleModule types = new SimpleModule("ttl-streams")
                .addSerializer(Double.class, finite)
                .addSerializer(double.class, finite)
                .addSerializer(OptionalDouble.class, new StdSerializer<>(OptionalDouble.class) {
                    @Override
                    public void serialize(OptionalDouble number, JsonGenerator out, SerializerProvider provider)
                            throws IOException {
                        finite(number.orElse(Double.NaN), out);
                    }
                })
                .addSerializer(Raw.class, new StdSerializer<>(Raw.class) {
                    @Override
                    public void serialize(Raw raw, JsonGenerator out, SerializerProvider provider) throws IOException {
                        writeRaw(raw, out);
                    }
                });
        JsonMapper mapper = JsonMapper.builder()
                .addModule(new Jdk8Module())
                .addModule(new JavaTimeModule())
                .addModule(types)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .build();
        mapper.getFactory().setCharacterEscapes(new MarkupEscapes());
        return mapper;
    }

    /** Jackson's escapes, and {@code <}, {@code >} and {@code &} as {@code \\u003c}, {@code \\u003e}, {@code \\u0026}. */
    private static final class MarkupEscapes extends CharacterEscapes {
        private final int[] escapes = standardAsciiEscapesForJSON();

        MarkupEscapes() {
            for (char c : MARKUP.toCharArray()) {
                escapes[c] = ESCAPE_CUSTOM;
            }
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return escapes;
        }

        @Override
        public SerializableString getEscapeSequence(int c) {
            return new SerializedString(unicodeEscape(c));
        }
    }

    private static String unicodeEscape(int c) {
        return String.format("\\u%04x", c);
    }

    /**
     * Valid JSON holds {@code <}, {@code >} and {@code &} only inside strings, where {@code \\u003c} means the same:
     * escaping them everywhere changes no value.
     */
    private static void writeRaw(Raw raw, JsonGenerator out) throws IOException {
        String json = raw.json();
        for (char c : MARKUP.toCharArray()) {
            json = json.replace(String.valueOf(c), unicodeEscape(c));
        }
        out.writeRawValue(json);
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

package io.ttlstreams.bench;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The results file's JSON, with Jackson: indented, numbers to three decimals, NaN and infinities as null. */
final class Json {

    private static final ObjectWriter WRITER = JsonMapper.builder()
            .addModule(new SimpleModule("bench")
                    .addSerializer(Double.class, new Rounded())
                    .addSerializer(double.class, new Rounded())
                    .addSerializer(double[].class, new StdSerializer<>(double[].class) {
                        @Override
                        public void serialize(double[] numbers, JsonGenerator out, SerializerProvider provider)
                                throws IOException {
                            out.writeStartArray();
                            for (double number : numbers) {
                                Rounded.write(number, out);
                            }
                            out.writeEndArray();
                        }
                    }))
            .build()
            .writerWithDefaultPrettyPrinter();

    private Json() {}

    static String write(Object value) {
        try {
            return WRITER.writeValueAsString(value) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A figure as the results show it. */
    private static final class Rounded extends StdSerializer<Double> {
        Rounded() {
            super(Double.class);
        }

        @Override
        public void serialize(Double d, JsonGenerator out, SerializerProvider provider) throws IOException {
            write(d, out);
        }

        static void write(double d, JsonGenerator out) throws IOException {
            if (Double.isFinite(d)) {
                out.writeNumber(Math.round(d * 1000.0) / 1000.0);
            } else {
                out.writeNull();
            }
        }
    }
}

package io.ttlstreams.contract;

import java.io.Writer;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.Consumer;
import org.bson.BsonBinaryReader;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.BsonWriter;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.RawBsonDocumentCodec;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriter;
import org.bson.json.JsonWriterSettings;

/**
 * Canonical extended JSON ({@link JsonMode#EXTENDED}), the one JSON form of BSON in this project: every value keeps
 * its BSON type (a 64-bit integer stays {@code {"$numberLong": ...}}, a date {@code {"$date": ...}}), and the same
 * document always gives the same string. The MongoDB source connector's {@code ExtendedJson} formatter writes the
 * same form, so a document key rendered here equals the connector's record key.
 *
 * <p>It writes what {@link BsonDocument#toJson(JsonWriterSettings)} writes, character for character, through the same
 * {@link JsonWriter}, but into an unsynchronized buffer: {@code toJson} writes into a {@code StringWriter}, whose
 * {@code StringBuffer} takes a lock for every character (6% of a mass drain's punctuation in its profile, see
 * bench/README.md).
 *
 * <p>Documents holding only the values document keys and delete filters usually hold (strings of printable ASCII,
 * ObjectIds, 32- and 64-bit integers, dates, booleans, nulls, nested documents of these) are written straight into
 * a {@link StringBuilder}, without the {@code JsonWriter}'s per-character escaping and codec look-ups (the largest
 * part of a delete command's cost in the mass drain's profile); any other document goes through the {@code
 * JsonWriter}. {@code CanonicalJsonTest} pins both paths to {@code toJson}'s output.
 */
public final class CanonicalJson {

    /**
     * More than one byte of BSON ever becomes in canonical extended JSON. The worst cases are small values in long
     * wrappers: an empty regular expression under a one-letter name is 5 bytes of BSON and 62 characters of JSON
     * (12.4 times), an undefined 3 bytes and 22 characters, a control character in a string 1 byte and a 6-character
     * escape.
     */
    public static final int MAX_GROWTH = 16;

    /**
     * The writer settings: extended JSON, a double written as {@link Double#toString(double)} writes it ({@code
     * {"$numberDouble": "1.0E7"}}). That is what the BSON library of the source connector's driver (4.7) writes, so
     * a resync's record key equals the connector's byte for byte and lands on the same partition; the BSON library
     * of the processor's driver (5.x) would write {@code "1.0E+7"}.
     */
    public static final JsonWriterSettings SETTINGS = JsonWriterSettings.builder()
            .outputMode(JsonMode.EXTENDED)
            .doubleConverter((value, writer) -> {
                writer.writeStartObject();
                writer.writeName("$numberDouble");
                writer.writeString(Double.toString(value));
                writer.writeEndObject();
            })
            .build();

    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();
    private static final RawBsonDocumentCodec RAW_CODEC = new RawBsonDocumentCodec();
    private static final EncoderContext CONTEXT = EncoderContext.builder().build();

    private CanonicalJson() {}

    /** {@code document} as canonical extended JSON. */
    public static String of(BsonDocument document) {
        StringBuilder out = new StringBuilder(128);
        if (appendSimple(out, document)) {
            return out.toString();
        }
        return write(writer -> encode(writer, document));
    }

    /**
     * Appends {@code document} as canonical extended JSON if it holds only the values written without the {@code
     * JsonWriter} (see the class comment); returns false, with {@code out} holding a partial text to discard,
     * otherwise.
     */
    static boolean appendSimple(StringBuilder out, BsonDocument document) {
        if (document instanceof RawBsonDocument raw) {
            ByteBuffer bytes = raw.getByteBuffer().asNIO();
            try (BsonBinaryReader reader = new BsonBinaryReader(bytes)) {
                return appendRaw(out, reader);
            }
        }
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, BsonValue> field : document.entrySet()) {
            if (!first) {
                out.append(", ");
            }
            first = false;
            if (!appendString(out, field.getKey())) {
                return false;
            }
            out.append(": ");
            if (!appendValue(out, field.getValue())) {
                return false;
            }
        }
        out.append('}');
        return true;
    }

    /** Appends {@code text} as a JSON string if it needs no escape (printable ASCII, no quote or backslash). */
    static boolean appendString(StringBuilder out, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
                return false;
            }
        }
        out.append('"').append(text).append('"');
        return true;
    }

    /** Appends a date, epoch milliseconds, as canonical extended JSON writes it. */
    static void appendDate(StringBuilder out, long millis) {
        out.append("{\"$date\": {\"$numberLong\": \"").append(millis).append("\"}}");
    }

    private static boolean appendValue(StringBuilder out, BsonValue value) {
        if (value instanceof BsonString string) {
            return appendString(out, string.getValue());
        } else if (value instanceof BsonObjectId id) {
            out.append("{\"$oid\": \"").append(id.getValue().toHexString()).append("\"}");
        } else if (value instanceof BsonInt32 number) {
            out.append("{\"$numberInt\": \"").append(number.getValue()).append("\"}");
        } else if (value instanceof BsonInt64 number) {
            out.append("{\"$numberLong\": \"").append(number.getValue()).append("\"}");
        } else if (value instanceof BsonDateTime date) {
            appendDate(out, date.getValue());
        } else if (value instanceof BsonBoolean bool) {
            out.append(bool.getValue());
        } else if (value instanceof BsonNull) {
            out.append("null");
        } else if (value instanceof BsonDocument document) {
            return appendSimple(out, document);
        } else {
            return false;
        }
        return true;
    }

    private static boolean appendRaw(StringBuilder out, BsonBinaryReader reader) {
        reader.readStartDocument();
        out.append('{');
        boolean first = true;
        for (BsonType type = reader.readBsonType(); type != BsonType.END_OF_DOCUMENT; type = reader.readBsonType()) {
            if (!first) {
                out.append(", ");
            }
            first = false;
            if (!appendString(out, reader.readName())) {
                return false;
            }
            out.append(": ");
            switch (type) {
                case STRING -> {
                    if (!appendString(out, reader.readString())) {
                        return false;
                    }
                }
                case OBJECT_ID ->
                    out.append("{\"$oid\": \"")
                            .append(reader.readObjectId().toHexString())
                            .append("\"}");
                case INT32 ->
                    out.append("{\"$numberInt\": \"").append(reader.readInt32()).append("\"}");
                case INT64 ->
                    out.append("{\"$numberLong\": \"")
                            .append(reader.readInt64())
                            .append("\"}");
                case DATE_TIME -> appendDate(out, reader.readDateTime());
                case BOOLEAN -> out.append(reader.readBoolean());
                case NULL -> {
                    reader.readNull();
                    out.append("null");
                }
                case DOCUMENT -> {
                    if (!appendRaw(out, reader)) {
                        return false;
                    }
                }
                default -> {
                    return false;
                }
            }
        }
        reader.readEndDocument();
        out.append('}');
        return true;
    }

    /**
     * The canonical extended JSON of the one document {@code content} writes, from its {@code writeStartDocument} to
     * its {@code writeEndDocument}: a value made of parts is written without building its document first.
     */
    public static String write(Consumer<BsonWriter> content) {
        Buffer out = new Buffer();
        content.accept(new JsonWriter(out, SETTINGS));
        return out.toString();
    }

    /**
     * Writes {@code document} as the next value of {@code writer}: the whole document, or, after a {@code writeName},
     * that field's value. A raw document is piped from its bytes, without decoding its values first.
     */
    public static void encode(BsonWriter writer, BsonDocument document) {
        if (document instanceof RawBsonDocument raw) {
            RAW_CODEC.encode(writer, raw, CONTEXT);
        } else {
            CODEC.encode(writer, document, CONTEXT);
        }
    }

    /** A {@link Writer} into a {@link StringBuilder}, without the locks of {@code StringWriter}. */
    private static final class Buffer extends Writer {
        private final StringBuilder text = new StringBuilder(256);

        @Override
        public void write(int c) {
            text.append((char) c);
        }

        @Override
        public void write(char[] chars, int offset, int length) {
            text.append(chars, offset, length);
        }

        @Override
        public void write(String string, int offset, int length) {
            text.append(string, offset, offset + length);
        }

        @Override
        public void flush() {
            // Nothing is buffered beyond the text itself.
        }

        @Override
        public void close() {
            // Nothing to release.
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }
}

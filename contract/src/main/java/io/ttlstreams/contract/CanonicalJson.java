package io.ttlstreams.contract;

import java.io.Writer;
import java.util.function.Consumer;
import org.bson.BsonDocument;
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
 */
public final class CanonicalJson {

    /** The writer settings. */
    public static final JsonWriterSettings SETTINGS =
            JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();
    private static final RawBsonDocumentCodec RAW_CODEC = new RawBsonDocumentCodec();
    private static final EncoderContext CONTEXT = EncoderContext.builder().build();

    private CanonicalJson() {}

    /** {@code document} as canonical extended JSON. */
    public static String of(BsonDocument document) {
        return write(writer -> encode(writer, document));
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

package io.ttlstreams.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;

/**
 * Serde for the values of ttl-streams' own state stores: one format-version byte, then the record in Avro binary.
 *
 * <p>The version byte says which schema wrote the bytes, so that a later build with an evolved schema reads old
 * changelogs through Avro schema resolution, and a build meeting a version it does not know refuses the bytes with a
 * {@link SerializationException} rather than misreading them. One byte instead of Avro's 10-byte single-object
 * header, which matters when every change event writes two store values and their changelog records. Null
 * serializes to null and back. Thread-safe.
 *
 * @param <T> the generated record class
 */
public final class VersionedAvroSerde<T extends SpecificRecord> extends AvroRecordSerde<T> {

    private final byte version;
    private final SpecificDatumWriter<T> writer;
    private final SpecificDatumReader<T> reader;

    private VersionedAvroSerde(Class<T> type, int version) {
        super(type);
        if (version < 1 || version > Byte.MAX_VALUE) {
            throw new IllegalArgumentException("A format version is 1 to 127, not " + version);
        }
        this.version = (byte) version;
        // The class's own model carries its logical-type conversions (timestamp-millis as Instant).
        SpecificData model = SpecificData.getForClass(type);
        Schema schema = model.getSchema(type);
        this.writer = new SpecificDatumWriter<>(schema, model);
        this.reader = new SpecificDatumReader<>(schema, schema, model);
    }

    /**
     * The serde of a generated record class whose current schema is format {@code version}.
     *
     * @param version the format version this build writes, 1 to 127; it reads that version only (a later schema
     *     change adds its predecessors here)
     */
    public static <T extends SpecificRecord> VersionedAvroSerde<T> of(Class<T> type, int version) {
        return new VersionedAvroSerde<>(Objects.requireNonNull(type, "type"), version);
    }

    @Override
    void encode(T data, ByteArrayOutputStream out) throws IOException {
        out.write(version);
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        writer.write(data, encoder);
        encoder.flush();
    }

    @Override
    T decode(byte[] bytes) throws IOException {
        if (bytes.length == 0 || bytes[0] != version) {
            throw new SerializationException("Cannot read a " + typeName + " of "
                    + (bytes.length == 0 ? "no bytes" : "format version " + Byte.toUnsignedInt(bytes[0]))
                    + ": this build reads format version " + version + " only (state written by another build?"
                    + " see State formats in docs/operating.md)");
        }
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, 1, bytes.length - 1, null);
        T value = reader.read(null, decoder);
        if (!decoder.isEnd()) {
            throw new IOException((bytes.length - 1) + " bytes hold more than one " + typeName);
        }
        return value;
    }

    @Override
    String format() {
        return "format version " + version;
    }
}

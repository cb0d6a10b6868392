package io.ttlstreams.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
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

/**
 * Serde for the values of ttl-streams' own state stores: one format-version byte, then the record in Avro binary.
 *
 * <p>The version byte says which schema wrote the bytes, so that a later build with an evolved schema reads old
 * changelogs through Avro schema resolution, and a build meeting a version it does not know refuses the bytes rather
 * than misreading them. One byte instead of Avro's 10-byte single-object header, which matters when every change
 * event writes two store values and their changelog records. Thread-safe.
 *
 * @param <T> the generated record class
 */
public final class VersionedAvroSerde<T extends SpecificRecord> extends AvroRecordSerde<T> {

    private final SpecificDatumWriter<T> writer;
    private final SpecificDatumReader<T> reader;

    private VersionedAvroSerde(Class<T> type, int version) {
        super(type, version);
        if (version < 1) {
            throw new IllegalArgumentException("A format version is 1 to 127, not " + version);
        }
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
    protected void encode(T data, ByteArrayOutputStream out) throws IOException {
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        writer.write(data, encoder);
        encoder.flush();
    }

    @Override
    protected T decode(ByteBuffer in) throws IOException {
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(in.array(), in.position(), in.remaining(), null);
        T value = reader.read(null, decoder);
        if (!decoder.isEnd()) {
            throw moreThanOne(in);
        }
        return value;
    }
}

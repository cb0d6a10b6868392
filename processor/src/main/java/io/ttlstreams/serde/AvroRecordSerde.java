package io.ttlstreams.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * What the serdes of ttl-streams' Avro record types share, whatever their encoding: null to null and back, a leading
 * format-version byte that is checked (unless the encoding carries a header of its own), and every failure a {@link
 * SerializationException} naming the record type and the format.
 *
 * @param <T> the generated record class
 */
public abstract class AvroRecordSerde<T extends SpecificRecord> implements Serde<T> {

    /** The record class's simple name, for messages. */
    protected final String typeName;

    private final byte version;

    /**
     * @param version the format version written first and the only one read, 1 to 127; 0 for an encoding with a
     *     header of its own, which has none
     */
    protected AvroRecordSerde(Class<T> type, int version) {
        if (version < 0 || version > Byte.MAX_VALUE) {
            throw new IllegalArgumentException("A format version is 1 to 127, not " + version);
        }
        this.typeName = type.getSimpleName();
        this.version = (byte) version;
    }

    /** Writes {@code data}, never null, after the version byte. */
    protected abstract void encode(T data, ByteArrayOutputStream out) throws IOException;

    /**
     * Reads the one record {@code in} holds after the version byte; a {@link SerializationException} it throws reaches
     * the caller as it is, anything else is wrapped.
     */
    protected abstract T decode(ByteBuffer in) throws IOException;

    @Override
    public final Serializer<T> serializer() {
        return (topic, data) -> serialize(data);
    }

    @Override
    public final Deserializer<T> deserializer() {
        return (topic, bytes) -> deserialize(bytes);
    }

    private String format() {
        return version == 0 ? "Avro single-object encoding" : "format version " + version;
    }

    private byte[] serialize(T data) {
        if (data == null) {
            return null;
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(64);
            if (version != 0) {
                out.write(version);
            }
            encode(data, out);
            return out.toByteArray();
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("Could not serialize a " + typeName + " (" + format() + ")", e);
        }
    }

    private T deserialize(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        if (version != 0 && (bytes.length == 0 || bytes[0] != version)) {
            throw new SerializationException("Cannot read a " + typeName + " of "
                    + (bytes.length == 0 ? "no bytes" : "format version " + Byte.toUnsignedInt(bytes[0]))
                    + ": this build reads format version " + version + " only (state written by another build?"
                    + " see State formats in docs/operating.md)");
        }
        try {
            return decode(version == 0 ? ByteBuffer.wrap(bytes) : ByteBuffer.wrap(bytes, 1, bytes.length - 1));
        } catch (SerializationException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            // Corrupt input surfaces as anything from a bad header to an underflow or a bogus length: all are the same
            // failure to the caller.
            throw new SerializationException(
                    "Could not deserialize a " + typeName + " from " + bytes.length + " bytes (" + format() + "): "
                            + e.getMessage(),
                    e);
        }
    }

    /** The failure of a value followed by more bytes: they hold more than one record. */
    protected final IOException moreThanOne(ByteBuffer in) {
        return new IOException((in.limit() - 1) + " bytes hold more than one " + typeName);
    }
}

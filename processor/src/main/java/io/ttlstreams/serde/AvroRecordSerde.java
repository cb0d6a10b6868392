package io.ttlstreams.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * What the Avro serdes of ttl-streams share, whatever their framing: null to null and back, and every failure a
 * {@link SerializationException} naming the record type and the format.
 *
 * @param <T> the generated record class
 */
abstract class AvroRecordSerde<T extends SpecificRecord> implements Serde<T> {

    /** The record class's simple name, for messages. */
    final String typeName;

    AvroRecordSerde(Class<T> type) {
        this.typeName = type.getSimpleName();
    }

    /** Writes {@code data}, never null, in this serde's framing. */
    abstract void encode(T data, ByteArrayOutputStream out) throws IOException;

    /**
     * Reads one record from {@code bytes}, never null; a {@link SerializationException} it throws reaches the caller
     * as it is, anything else is wrapped.
     */
    abstract T decode(byte[] bytes) throws IOException;

    /** The framing, as the message of a failed read names it. */
    abstract String format();

    @Override
    public final Serializer<T> serializer() {
        return (topic, data) -> serialize(data);
    }

    @Override
    public final Deserializer<T> deserializer() {
        return (topic, bytes) -> deserialize(bytes);
    }

    private byte[] serialize(T data) {
        if (data == null) {
            return null;
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(64);
            encode(data, out);
            return out.toByteArray();
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("Could not serialize a " + typeName + " with Avro", e);
        }
    }

    private T deserialize(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        try {
            return decode(bytes);
        } catch (SerializationException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            // Corrupt input surfaces as anything from a bad header to an EOF or a bogus length: all are the same
            // failure to the caller.
            throw new SerializationException(
                    "Could not deserialize a " + typeName + " from " + bytes.length + " bytes (" + format() + "): "
                            + e.getMessage(),
                    e);
        }
    }
}

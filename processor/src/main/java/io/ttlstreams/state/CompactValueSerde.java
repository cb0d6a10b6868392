package io.ttlstreams.state;

import io.ttlstreams.serde.AvroRecordSerde;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.specific.SpecificRecord;

/**
 * The serde of a value written on every change event ({@code schedule} and {@code index}): format version 2, a
 * hand-written encoding of the record's fields (fixed 8 bytes for hashes, zigzag varints for times and counts, flags
 * for what is optional), which the store's changelog and RocksDB both hold once per document; it refuses any other
 * version rather than misreading it (no release wrote another: state from earlier builds is reset, see State formats
 * in docs/operating.md).
 *
 * <p>The in-memory type stays the generated Avro record: only the bytes change. Thread-safe.
 *
 * @param <T> the generated record class
 */
abstract class CompactValueSerde<T extends SpecificRecord> extends AvroRecordSerde<T> {

    /** The format this build writes. */
    static final byte FORMAT_VERSION = 2;

    CompactValueSerde(Class<T> type) {
        super(type, FORMAT_VERSION);
    }

    /** The value's bytes after the version byte; at most {@link #maxBytes} of them. */
    abstract void write(T value, ByteBuffer out);

    /** An upper bound of what {@link #write} writes for {@code value}. */
    abstract int maxBytes(T value);

    /** The value from the bytes after the version byte. */
    abstract T read(ByteBuffer in);

    @Override
    protected final void encode(T value, ByteArrayOutputStream out) {
        ByteBuffer bytes = ByteBuffer.allocate(maxBytes(value));
        write(value, bytes);
        out.write(bytes.array(), 0, bytes.position());
    }

    @Override
    protected final T decode(ByteBuffer in) throws IOException {
        T value = read(in);
        if (in.hasRemaining()) {
            throw moreThanOne(in);
        }
        return value;
    }

    /** Writes {@code value} as an unsigned varint: 7 bits a byte, least significant first. */
    static void writeUnsignedVarint(int value, ByteBuffer out) {
        writeVarint(Integer.toUnsignedLong(value), out);
    }

    /** Reads an unsigned varint of at most 5 bytes. */
    static int readUnsignedVarint(ByteBuffer in) {
        return (int) readVarint(in, 5);
    }

    /** Writes {@code value} zigzag-encoded as a varint, so that small negative values stay short too. */
    static void writeVarlong(long value, ByteBuffer out) {
        writeVarint((value << 1) ^ (value >> 63), out);
    }

    /** Writes {@code value}, taken as unsigned, 7 bits a byte, least significant first. */
    private static void writeVarint(long value, ByteBuffer out) {
        long rest = value;
        while ((rest & ~0x7fL) != 0) {
            out.put((byte) ((rest & 0x7f) | 0x80));
            rest >>>= 7;
        }
        out.put((byte) rest);
    }

    /** Reads a zigzag varint of at most 10 bytes. */
    static long readVarlong(ByteBuffer in) {
        long raw = readVarint(in, 10);
        return (raw >>> 1) ^ -(raw & 1);
    }

    private static long readVarint(ByteBuffer in, int maxBytes) {
        long value = 0;
        for (int i = 0; i < maxBytes; i++) {
            byte b = in.get();
            value |= (long) (b & 0x7f) << (7 * i);
            if (b >= 0) {
                return value;
            }
        }
        throw new IllegalArgumentException("a varint of more than " + maxBytes + " bytes");
    }

    /** A length read from {@code in}, checked against what remains. */
    static int length(ByteBuffer in) {
        int length = readUnsignedVarint(in);
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException(
                    "a length of " + Integer.toUnsignedString(length) + " with " + in.remaining() + " bytes left");
        }
        return length;
    }
}

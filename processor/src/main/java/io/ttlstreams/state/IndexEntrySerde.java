package io.ttlstreams.state;

import io.ttlstreams.schema.IndexEntry;
import java.nio.ByteBuffer;
import java.time.Instant;

/**
 * The {@code index} store's values, format version 2 (see {@link CompactValueSerde}): one byte for the timeline and
 * whether a clusterTime follows, the due time as a varint, the clusterTime (8 bytes) when there is one, and the
 * fingerprint (8 bytes). Hashes and BSON timestamps are fixed-size: as varints their 64 bits take up to 10 bytes.
 */
final class IndexEntrySerde extends CompactValueSerde<IndexEntry> {

    private static final int TIMELINE_BITS = 0x0f;
    private static final int CLUSTER_TIME = 0x10;

    IndexEntrySerde() {
        super(IndexEntry.class);
    }

    @Override
    int maxBytes(IndexEntry entry) {
        return 1 + 10 + 8 + 8;
    }

    @Override
    void write(IndexEntry entry, ByteBuffer out) {
        int timeline = entry.getTimeline();
        if (timeline < 0 || timeline > TIMELINE_BITS) {
            throw new IllegalArgumentException("Unknown schedule timeline " + timeline);
        }
        out.put((byte) (timeline | (entry.getSourceClusterTime() != null ? CLUSTER_TIME : 0)));
        writeVarlong(entry.getDueAt().toEpochMilli(), out);
        if (entry.getSourceClusterTime() != null) {
            out.putLong(entry.getSourceClusterTime());
        }
        out.putLong(entry.getFingerprint());
    }

    @Override
    IndexEntry read(ByteBuffer in) {
        int header = Byte.toUnsignedInt(in.get());
        if ((header & ~(TIMELINE_BITS | CLUSTER_TIME)) != 0) {
            throw new IllegalArgumentException("unknown flags " + Integer.toBinaryString(header));
        }
        long dueAt = readVarlong(in);
        Long clusterTime = (header & CLUSTER_TIME) != 0 ? in.getLong() : null;
        return new IndexEntry(header & TIMELINE_BITS, Instant.ofEpochMilli(dueAt), clusterTime, in.getLong());
    }
}

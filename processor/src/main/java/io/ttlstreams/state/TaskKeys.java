package io.ttlstreams.state;

import io.ttlstreams.schema.TaskRecord;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.BiConsumer;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The keys of the {@code task} store: a kind byte, then the record's own key. The kinds are listed here and in the
 * schema of {@link TaskRecord}, which says which field each kind sets.
 */
final class TaskKeys {

    /** An emission checkpoint ({@link EmittedDeadlines}): then the schedule key of the last deadline emitted. */
    static final byte CHECKPOINT = 1;
    /** A namespace of the dictionary ({@link NamespaceIds}): then its ids as a reference writes them, and its text. */
    static final byte NAMESPACE = 2;
    /** What a rule holds for approval ({@link HeldCounts}): then the rule's name in UTF-8. */
    static final byte HELD = 3;

    private TaskKeys() {}

    /** The key of a record of {@code kind}: the kind, then {@code rest}. */
    static Bytes key(byte kind, byte[] rest) {
        return Bytes.wrap(
                ByteBuffer.allocate(1 + rest.length).put(kind).put(rest).array());
    }

    /** Hands every record of {@code kind} in {@code store} to {@code each}: its key without the kind byte, its value. */
    static void forEach(
            ReadOnlyKeyValueStore<Bytes, TaskRecord> store, byte kind, BiConsumer<byte[], TaskRecord> each) {
        try (KeyValueIterator<Bytes, TaskRecord> records =
                store.prefixScan(Bytes.wrap(new byte[] {kind}), new BytesSerializer())) {
            while (records.hasNext()) {
                KeyValue<Bytes, TaskRecord> record = records.next();
                byte[] key = record.key.get();
                each.accept(Arrays.copyOfRange(key, 1, key.length), record.value);
            }
        }
    }
}

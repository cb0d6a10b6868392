package io.ttlstreams.processor;

import io.ttlstreams.contract.Namespace;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Remembers when each namespace was last dropped, in the task's {@code namespace-epochs} store, so that older events of
 * that namespace arriving later from other partitions are not scheduled again.
 */
final class NamespaceDrops {

    private final KeyValueStore<String, Long> namespaceEpochs;
    /**
     * The namespace-epochs store in memory: it holds one entry per dropped namespace, is read for every event and
     * written only here, so two store reads per event become two map lookups.
     */
    private final Map<Namespace, Long> dropTimes = new HashMap<>();

    /** @param namespaceEpochs the task's {@code namespace-epochs} store, loaded here */
    NamespaceDrops(KeyValueStore<String, Long> namespaceEpochs) {
        this.namespaceEpochs = namespaceEpochs;
        try (KeyValueIterator<String, Long> epochs = namespaceEpochs.all()) {
            epochs.forEachRemaining(epoch -> dropTimes.put(Namespace.valueOf(epoch.key), epoch.value));
        }
    }

    /** Whether an event of {@code namespace} at {@code clusterTime} is no newer than a drop of its collection or database. */
    boolean precede(Long clusterTime, Namespace namespace) {
        return isNotNewer(clusterTime, dropTimes.get(namespace))
                || isNotNewer(clusterTime, dropTimes.get(namespace.databaseNamespace()));
    }

    /** Records that {@code namespace} was dropped at {@code dropTime}, unless a later drop is known. */
    void dropped(Namespace namespace, long dropTime) {
        Long known = dropTimes.get(namespace);
        if (known == null || Long.compareUnsigned(known, dropTime) < 0) {
            namespaceEpochs.put(namespace.toString(), dropTime);
            dropTimes.put(namespace, dropTime);
        }
    }

    /**
     * Whether a clusterTime is at or before another. Unsigned: a BSON timestamp's seconds are an unsigned 32-bit
     * count, so from 2038 its 64-bit value is negative as a signed long.
     */
    static boolean isNotNewer(Long clusterTime, Long latest) {
        return clusterTime != null && latest != null && Long.compareUnsigned(clusterTime, latest) <= 0;
    }
}

package io.ttlstreams.processor;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.event.EventTimeWindow;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers when each namespace was last dropped, in the task's {@code namespace-epochs} store, so that older events of
 * that namespace arriving later from other partitions are not scheduled again.
 */
final class NamespaceDrops {

    private static final Logger LOG = LoggerFactory.getLogger(NamespaceDrops.class);

    private final KeyValueStore<String, Long> namespaceEpochs;
    private final ProcessorContext<?, ?> context;
    /**
     * The namespace-epochs store in memory: it holds one entry per dropped namespace, is read for every event and
     * written only here, so two store reads per event become two map lookups.
     */
    private final Map<Namespace, Long> dropTimes = new HashMap<>();

    /**
     * @param namespaceEpochs the task's {@code namespace-epochs} store, loaded here
     * @param context the task's context, for its id and its clock
     */
    NamespaceDrops(KeyValueStore<String, Long> namespaceEpochs, ProcessorContext<?, ?> context) {
        this.namespaceEpochs = namespaceEpochs;
        this.context = context;
        try (KeyValueIterator<String, Long> epochs = namespaceEpochs.all()) {
            epochs.forEachRemaining(epoch -> dropTimes.put(Namespace.valueOf(epoch.key), epoch.value));
        }
    }

    /** Whether an event of {@code namespace} at {@code clusterTime} is no newer than a drop of its collection or database. */
    boolean precede(Long clusterTime, Namespace namespace) {
        if (clusterTime == null) {
            return false;
        }
        return isNotNewer(clusterTime, dropTime(namespace))
                || isNotNewer(clusterTime, dropTime(namespace.databaseNamespace()));
    }

    /** Records that {@code namespace} was dropped at {@code dropTime}, unless a later drop is known. */
    void dropped(Namespace namespace, long dropTime) {
        Long known = dropTime(namespace);
        if (known == null || Long.compareUnsigned(known, dropTime) < 0) {
            namespaceEpochs.put(namespace.toString(), dropTime);
            dropTimes.put(namespace, dropTime);
        }
    }

    /**
     * The namespace's drop epoch, unless it lies more than {@link EventTimeWindow#MAX_FUTURE_SKEW} after the
     * processor's clock: no event whose times were checked can have set it (a forged clusterTime stored by a version
     * that did not check them), and kept, it would make every later event of the namespace look older than the drop,
     * for good. Such an epoch is removed, so the namespace heals at its next event.
     */
    private Long dropTime(Namespace namespace) {
        Long epoch = dropTimes.get(namespace);
        // A BSON timestamp's seconds, unsigned, are its upper 32 bits.
        if (epoch == null
                || (epoch >>> 32) * 1000
                        <= context.currentSystemTimeMs() + EventTimeWindow.MAX_FUTURE_SKEW.toMillis()) {
            return epoch;
        }
        LOG.warn(
                "Task {}: ignoring and removing the drop epoch of {}, clusterTime {}, which lies beyond any plausible"
                        + " event time",
                context.taskId(),
                namespace,
                new BsonTimestamp(epoch));
        namespaceEpochs.delete(namespace.toString());
        dropTimes.remove(namespace);
        return null;
    }

    /**
     * Whether a clusterTime is at or before another. Unsigned: a BSON timestamp's seconds are an unsigned 32-bit
     * count, so from 2038 its 64-bit value is negative as a signed long.
     */
    static boolean isNotNewer(Long clusterTime, Long latest) {
        return clusterTime != null && latest != null && Long.compareUnsigned(clusterTime, latest) <= 0;
    }
}

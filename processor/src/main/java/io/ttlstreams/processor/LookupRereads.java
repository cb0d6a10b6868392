package io.ttlstreams.processor;

import io.micrometer.core.instrument.Counter;
import io.ttlstreams.config.ResyncOptions;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.readback.DocumentReadBack;
import io.ttlstreams.readback.ReadBackInbox;
import io.ttlstreams.readback.ReadRequest;
import io.ttlstreams.readback.ReadResult;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.kafka.common.utils.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's reads of documents whose update event came without its document: the source connector's {@code
 * updateLookup} found nothing under the event's {@code documentKey}, which on a sharded collection holds the shard key
 * as it was before the update, so an update that changes a shard key value (one added by {@code
 * refineCollectionShardKey}, say) comes with a null {@code fullDocument} although the document is there. Its entry
 * is cancelled, since the event says nothing of its values, and the document is read again by namespace and {@code
 * _id} through the read-back service: a document present is scheduled as a resync would schedule it, counting from
 * when the answer is applied, which is after the change (late, never early); one absent was really deleted and stays
 * unscheduled.
 *
 * <p>Bounded: at most {@value #MAX_PENDING} reads wait per task, and the read-back service refuses what its own queue
 * cannot hold; a read not asked is counted ({@value TtlMetrics#LOOKUP_REREADS_DROPPED}) and its document waits for its
 * next change or a resync, as does one whose read fails, or was waiting when the task moved (the reads are in memory
 * only). Without a read-back service (no {@value ResyncOptions#MONGODB_URI_CONFIG}) nothing is read, and the first such
 * update is logged once.
 */
final class LookupRereads implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LookupRereads.class);
    /** How many reads may wait per task. */
    static final int MAX_PENDING = 1_000;

    private static final AtomicBoolean UNREAD_LOGGED = new AtomicBoolean();

    private final Optional<DocumentReadBack> reader;
    private final ReadBackInbox inbox = new ReadBackInbox();
    /** The latest read asked per document: an answer to an earlier one is stale. */
    private final Map<Bytes, ReadRequest> pending = new HashMap<>();

    private final Counter asked;
    private final Counter dropped;

    LookupRereads(Optional<DocumentReadBack> reader, TtlMetrics metrics) {
        this.reader = reader;
        this.asked = metrics.counter(TtlMetrics.LOOKUP_REREADS);
        this.dropped = metrics.counter(TtlMetrics.LOOKUP_REREADS_DROPPED);
    }

    /** Asks for the document {@code ref} of {@code namespace} to be read again; false when it is not. */
    boolean ask(Bytes ref, Namespace namespace) {
        if (reader.isEmpty()) {
            if (UNREAD_LOGGED.compareAndSet(false, true)) {
                LOG.warn(
                        "An update of {} came without its document (its look-up found nothing, as after a shard key"
                                + " change); without {} it cannot be read again, and such documents stay unscheduled"
                                + " until their next change or a resync",
                        namespace,
                        ResyncOptions.MONGODB_URI_CONFIG);
            }
            return false;
        }
        if (!pending.containsKey(ref) && pending.size() >= MAX_PENDING) {
            dropped.increment();
            return false;
        }
        // No entry to match the answer against (fingerprint and attempts 0): this inbox is the rereads' own.
        ReadRequest request = new ReadRequest(ref, namespace, 0, 0, inbox);
        if (!reader.get().submit(request)) {
            dropped.increment();
            return false;
        }
        pending.put(ref, request);
        asked.increment();
        return true;
    }

    /** Hands each answer of the latest read of its document to {@code apply}; stale answers are dropped. */
    void answers(Consumer<ReadResult> apply) {
        for (ReadResult answer = inbox.poll(); answer != null; answer = inbox.poll()) {
            ReadRequest request = answer.request();
            if (pending.remove(request.documentRef(), request)) {
                apply.accept(answer);
            }
        }
    }

    @Override
    public void close() {
        inbox.close();
        pending.clear();
    }
}

package io.ttlstreams.event;

import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import java.time.Instant;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;

/**
 * One MongoDB change event, as far as the TTL engine needs it.
 *
 * <p>The BSON documents are not copied: an event is handed from the parser to the processor and must not be
 * mutated.
 *
 * @param operationType what happened
 * @param namespace     the collection; a whole database for {@link OperationType#DROP_DATABASE} (and an
 *                      {@link OperationType#INVALIDATE} of a database watch)
 * @param documentKey   {@code {"_id": ...}} plus any shard-key fields; never null for insert, update, replace and
 *                      delete; always null for namespace-wide events; null for {@link OperationType#OTHER} events
 *                      that carry none
 * @param fullDocument  the document after the change (updateLookup for updates); null when the event has none, e.g.
 *                      a delete, or an update whose document was deleted before the lookup
 * @param eventTime     the event's {@code wallTime}, else the end of its {@code clusterTime} second (the latest the
 *                      event can have happened, as clusterTime counts whole seconds), else the Kafka record
 *                      timestamp
 * @param clusterTime   the event's {@code clusterTime}; null when it has none
 * @param fullDocumentBeforeChange the pre-image, the document just before the change (a delete, or the update that
 *                      marks it), where the collection keeps pre-images and the connector asks for them; null
 *                      otherwise. When {@code preImageTooLarge}, only its {@code _id} and the fields the rules read
 * @param preImageTooLarge whether the pre-image was too large for the event to carry (the source pipeline's bound),
 *                      so that {@code fullDocumentBeforeChange} is the marker the pipeline put in its place
 */
public record ChangeEvent(
        OperationType operationType,
        Namespace namespace,
        BsonDocument documentKey,
        BsonDocument fullDocument,
        Instant eventTime,
        BsonTimestamp clusterTime,
        BsonDocument fullDocumentBeforeChange,
        boolean preImageTooLarge) {

    /** An event without a pre-image. */
    public ChangeEvent(
            OperationType operationType,
            Namespace namespace,
            BsonDocument documentKey,
            BsonDocument fullDocument,
            Instant eventTime,
            BsonTimestamp clusterTime) {
        this(operationType, namespace, documentKey, fullDocument, eventTime, clusterTime, null, false);
    }

    /**
     * Checks the invariants the processor relies on, so that it never has to null-check a document event's key.
     *
     * @throws NullPointerException     if operationType, namespace or eventTime is null
     * @throws IllegalArgumentException if a document event has no key or a namespace-wide event has one
     */
    public ChangeEvent {
        Objects.requireNonNull(operationType, "operationType");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(eventTime, "eventTime");
        if (operationType.requiresDocumentKey() && documentKey == null) {
            throw new IllegalArgumentException("A " + operationType + " event needs a document key");
        }
        if (operationType.requiresDocumentKey() && namespace.isDatabase()) {
            throw new IllegalArgumentException(
                    "A " + operationType + " event needs a collection, not database " + namespace);
        }
        if (preImageTooLarge && fullDocumentBeforeChange == null) {
            throw new IllegalArgumentException("A pre-image too large to carry leaves its marker");
        }
        if (operationType.isNamespaceWide() && documentKey != null) {
            throw new IllegalArgumentException("A namespace-wide " + operationType + " event has no document key");
        }
    }

    /**
     * The document key as canonical extended JSON, e.g. {@code {"_id": {"$oid": "..."}}}: the same key always gives
     * the same string, so it identifies the document in state stores and is the delete command's record key. Null
     * when the event has no document key.
     */
    public String documentKeyJson() {
        return documentKey == null ? null : CanonicalJson.of(documentKey);
    }

    /** Whether the event affects a whole collection or database; see {@link OperationType#isNamespaceWide()}. */
    public boolean isNamespaceWide() {
        return operationType.isNamespaceWide();
    }

    /** This event with {@code time} as its event time, everything else as it is. */
    public ChangeEvent withEventTime(Instant time) {
        return new ChangeEvent(
                operationType,
                namespace,
                documentKey,
                fullDocument,
                time,
                clusterTime,
                fullDocumentBeforeChange,
                preImageTooLarge);
    }
}

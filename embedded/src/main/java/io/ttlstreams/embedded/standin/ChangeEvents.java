package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;

/**
 * Renders a recorded {@link Change} as the change event MongoDB serves for it: the one place events get their
 * shape, so that an emulation of another server's change streams can be layered on it.
 *
 * <p>Fields, as in MongoDB 6.0's change events: {@code _id} (the resume token), {@code operationType},
 * {@code clusterTime}, {@code wallTime}, {@code ns} ({@code {db, coll}}, {@code {db}} for {@code dropDatabase}),
 * {@code documentKey} ({@code {_id}}), {@code fullDocument} (inserts and replaces: the document as written;
 * updates with {@code updateLookup}: the document when the event is read, null when it is gone; absent
 * otherwise), {@code updateDescription} for updates, {@code to} for renames. {@code invalidate} events carry the
 * token, type and times only.
 */
final class ChangeEvents {

    /** The current version of a document by database, collection and {@code _id}; null when there is none. */
    interface Lookup {
        Document find(String database, String collection, Object id);
    }

    private final long epoch;
    private final Lookup lookup;

    ChangeEvents(long epoch, Lookup lookup) {
        this.epoch = epoch;
        this.lookup = lookup;
    }

    /** The token of the event of {@code change}. */
    ResumeToken tokenOf(Change change) {
        return new ResumeToken(change.clusterTime(), epoch, change.position(), false);
    }

    /**
     * @param change  the recorded change
     * @param options the stream's {@code fullDocument} and {@code fullDocumentBeforeChange} settings
     */
    Document render(Change change, ChangeStreamOptions options) {
        Change.Operation operation = change.operation();
        Document event = new Document("_id", tokenOf(change).toDocument())
                .append("operationType", operation.type().eventName())
                .append("clusterTime", change.clusterTime())
                .append("wallTime", change.wallTime());
        switch (operation.type()) {
            case INSERT, REPLACE ->
                event.append("fullDocument", operation.document().cloneDeeply());
            case UPDATE -> {
                if (options.looksUpUpdates()) {
                    event.append(
                            "fullDocument",
                            lookup.find(operation.database(), operation.collection(), operation.documentId()));
                }
            }
            default -> {}
        }
        Document ns = new Document("db", operation.database());
        if (operation.collection() != null) {
            ns.append("coll", operation.collection());
        }
        event.append("ns", ns);
        if (operation.type().ofDocument()) {
            event.append("documentKey", new Document("_id", operation.documentId()));
        }
        if (operation.updateDescription() != null) {
            event.append("updateDescription", operation.updateDescription().cloneDeeply());
        }
        if (operation.renamedTo() != null) {
            event.append("to", operation.renamedTo().cloneDeeply());
        }
        if (options.beforeChangeWhenAvailable()
                && operation.type().ofDocument()
                && operation.type() != Change.Type.INSERT) {
            // The stand-in keeps no pre-images: "whenAvailable" finds none, as on a collection without them.
            event.append("fullDocumentBeforeChange", null);
        }
        return event;
    }

    /** The {@code invalidate} event that closes a stream after {@code change} (a drop, rename or dropDatabase). */
    Document invalidate(Change change) {
        return new Document("_id", new ResumeToken(change.clusterTime(), epoch, change.position(), true).toDocument())
                .append("operationType", "invalidate")
                .append("clusterTime", change.clusterTime())
                .append("wallTime", change.wallTime());
    }
}

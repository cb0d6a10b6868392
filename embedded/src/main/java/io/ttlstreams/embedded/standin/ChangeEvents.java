package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.Json;

/**
 * Renders a recorded {@link Change} as the change event MongoDB (7.0) serves for it: the one place events get their
 * shape, so that an emulation of another server's change streams can be layered on it.
 *
 * <p>Fields: {@code _id} (the resume token), {@code operationType}, {@code clusterTime}, {@code collectionUUID}
 * (streams with {@code showExpandedEvents}), {@code wallTime}, {@code fullDocument}, {@code ns} ({@code {db, coll}},
 * {@code {db}} for {@code dropDatabase}), {@code documentKey} ({@code {_id}}; on a sharded collection the shard key
 * fields first, {@link ShardKeys}), {@code updateDescription} for updates
 * (with {@code disambiguatedPaths} for streams with {@code showExpandedEvents}), {@code to} for renames, {@code
 * operationDescription} and {@code stateBeforeChange} for expanded events, {@code fullDocumentBeforeChange}.
 * {@code invalidate} events carry the token, type and times only.
 *
 * <ul>
 *   <li>{@code fullDocument}: inserts and replaces carry the document as written; updates carry, with {@code
 *       updateLookup}, the document the event's {@code documentKey} finds when the event is read (null when it is gone,
 *       or, on a sharded collection, when its shard key value changed since: MongoDB looks it up by the whole
 *       {@code documentKey}), with {@code whenAvailable} or
 *       {@code required} the post-image the collection recorded (null when there is none), else nothing.</li>
 *   <li>{@code fullDocumentBeforeChange} (updates, replaces, deletes; not inserts): with {@code whenAvailable} or
 *       {@code required}, the pre-image the collection recorded, null when there is none.</li>
 *   <li>{@code required} and no image (the option was off at the write, or the image expired): the stream fails with
 *       NoMatchingDocument (47) when it reaches that event, as MongoDB's does.</li>
 * </ul>
 */
final class ChangeEvents {

    /** The current version of a document by database, collection and {@code documentKey}; null when there is none. */
    interface Lookup {
        Document find(String database, String collection, Document documentKey);
    }

    private final long epoch;
    private final Lookup lookup;
    private final ImageRetention retention;

    ChangeEvents(long epoch, Lookup lookup, ImageRetention retention) {
        this.epoch = epoch;
        this.lookup = lookup;
        this.retention = retention;
    }

    /** The token of the event of {@code change}. */
    ResumeToken tokenOf(Change change) {
        return new ResumeToken(change.clusterTime(), epoch, change.position(), false);
    }

    /**
     * @param change  the recorded change
     * @param options the stream's {@code fullDocument}, {@code fullDocumentBeforeChange} and expanded-events settings
     * @throws StandInError NoMatchingDocument (47) when an image is required and there is none
     */
    Document render(Change change, ChangeStreamOptions options) {
        Change.Operation operation = change.operation();
        Change.Type type = operation.type();
        Document event = new Document("_id", tokenOf(change).toDocument())
                .append("operationType", type.eventName())
                .append("clusterTime", change.clusterTime());
        if (options.showExpandedEvents() && operation.collectionUuid() != null) {
            event.append("collectionUUID", operation.collectionUuid());
        }
        event.append("wallTime", change.wallTime());
        Document ns = new Document("db", operation.database());
        if (operation.collection() != null) {
            ns.append("coll", operation.collection());
        }
        switch (type) {
            case INSERT, REPLACE ->
                event.append("fullDocument", operation.document().cloneDeeply());
            case UPDATE -> {
                switch (options.fullDocument()) {
                    case "updateLookup" ->
                        event.append(
                                "fullDocument",
                                lookup.find(operation.database(), operation.collection(), operation.documentKey()));
                    case "whenAvailable", "required" -> {
                        Change.Images images = images(change);
                        if (images == null && options.fullDocument().equals("required")) {
                            throw missingImage("post-image for all update", ns, operation);
                        }
                        event.append(
                                "fullDocument",
                                images == null ? null : images.after().cloneDeeply());
                    }
                    default -> {}
                }
            }
            default -> {}
        }
        event.append("ns", ns);
        if (type.ofDocument()) {
            event.append("documentKey", operation.documentKey().cloneDeeply());
        }
        if (operation.updateDescription() != null) {
            Document description = operation.updateDescription().cloneDeeply();
            if (options.showExpandedEvents() && operation.disambiguatedPaths() != null) {
                description.append(
                        "disambiguatedPaths", operation.disambiguatedPaths().cloneDeeply());
            }
            event.append("updateDescription", description);
        }
        if (operation.renamedTo() != null) {
            event.append("to", operation.renamedTo().cloneDeeply());
        }
        if (operation.description() != null && (type.expanded() || options.showExpandedEvents())) {
            event.append("operationDescription", operation.description().cloneDeeply());
        }
        if (operation.stateBeforeChange() != null) {
            event.append("stateBeforeChange", operation.stateBeforeChange().cloneDeeply());
        }
        if (!options.fullDocumentBeforeChange().equals("off") && type.hasPreImage()) {
            Change.Images images = images(change);
            if (images == null && options.fullDocumentBeforeChange().equals("required")) {
                throw missingImage("pre-image for all update, delete and replace", ns, operation);
            }
            event.append(
                    "fullDocumentBeforeChange",
                    images == null ? null : images.before().cloneDeeply());
        }
        return event;
    }

    /** The images of {@code change}, unless the collection recorded none or they expired. */
    private Change.Images images(Change change) {
        Change.Images images = change.operation().images();
        return images == null || retention.expired(change.wallTime()) ? null : images;
    }

    private static StandInError missingImage(String what, Document ns, Change.Operation operation) {
        Document event = new Document("operationType", operation.type().eventName())
                .append("ns", ns)
                .append("documentKey", operation.documentKey());
        return new StandInError(
                ErrorCodes.NO_MATCHING_DOCUMENT,
                "NoMatchingDocument",
                "Change stream was configured to require a " + what + " events, but the "
                        + (what.startsWith("pre") ? "pre" : "post") + "-image was not found for event: "
                        + Json.toJsonValue(event));
    }

    /** The {@code invalidate} event that closes a stream after {@code change} (a drop, rename or dropDatabase). */
    Document invalidate(Change change) {
        return new Document("_id", new ResumeToken(change.clusterTime(), epoch, change.position(), true).toDocument())
                .append("operationType", "invalidate")
                .append("clusterTime", change.clusterTime())
                .append("wallTime", change.wallTime());
    }
}

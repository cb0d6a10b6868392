package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.AbstractCursor;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An open change stream: a position in the {@link ChangeHistory}, which advances over every change it reads, the
 * stream's options and stages. A batch costs the changes it reads, however long the history. After an
 * {@code invalidate} the stream is exhausted ({@link #isEmpty()}), and the server closes its cursor.
 */
final class ChangeStreamCursor extends AbstractCursor {

    /** A batch's size when the client sets none (MongoDB's limit is 16 MB; this keeps a response well below). */
    static final int DEFAULT_BATCH_SIZE = 1_000;
    /** Changes one batch reads at most, matching or not, so that a stream filtering almost everything answers. */
    private static final int MAX_CHANGES_PER_BATCH = 20_000;

    private final ChangeHistory history;
    private final ChangeEvents events;
    private final ChangeStreamOptions options;
    private final StreamStages stages;
    private long position;
    private ResumeToken lastSeen;
    private boolean invalidated;

    /**
     * @param start the position of the first change to read
     * @param startToken the token of the point just before it: the post-batch token until a change is read
     */
    ChangeStreamCursor(
            long id,
            ChangeHistory history,
            ChangeEvents events,
            ChangeStreamOptions options,
            StreamStages stages,
            long start,
            ResumeToken startToken) {
        super(id);
        this.history = history;
        this.events = events;
        this.options = options;
        this.stages = stages;
        this.position = start;
        this.lastSeen = startToken;
    }

    /** The events of the changes after the last batch, up to {@code numberToReturn} (0: the default). */
    @Override
    public synchronized List<Document> takeDocuments(int numberToReturn) {
        int limit = numberToReturn > 0 ? numberToReturn : DEFAULT_BATCH_SIZE;
        List<Document> batch = new ArrayList<>();
        int read = 0;
        while (!invalidated && batch.size() < limit && read < MAX_CHANGES_PER_BATCH) {
            List<Change> changes = history.read(position, Math.min(limit - batch.size(), MAX_CHANGES_PER_BATCH - read));
            if (changes.isEmpty()) {
                break;
            }
            for (Change change : changes) {
                read++;
                position = change.position() + 1;
                lastSeen = events.tokenOf(change);
                if (!options.sees(change)) {
                    continue;
                }
                transformed(events.render(change, options)).ifPresent(batch::add);
                if (options.invalidatedBy(change)) {
                    Document invalidate = events.invalidate(change);
                    lastSeen = ResumeToken.parse(invalidate.get("_id")).orElseThrow();
                    transformed(invalidate).ifPresent(batch::add);
                    invalidated = true;
                    break;
                }
            }
        }
        return batch;
    }

    /**
     * The event after the stream's stages, which must leave its {@code _id}, the resume token, as it was.
     *
     * @throws StandInError ChangeStreamFatalError (280), not resumable, when a stage changed or removed the token;
     *     BSONObjectTooLarge (10334) when the event is too large to return ({@link BsonLimits})
     */
    private Optional<Document> transformed(Document event) {
        Document token = ((Document) event.get("_id")).cloneDeeply();
        Optional<Document> out = stages.apply(event);
        if (out.isPresent() && !token.equals(out.get().get("_id"))) {
            throw new StandInError(
                    ErrorCodes.CHANGE_STREAM_FATAL_ERROR,
                    "ChangeStreamFatalError",
                    "Encountered an event whose _id field, which contains the resume token, was modified by the"
                            + " pipeline. Modifying the _id field of an event makes it impossible to resume the stream"
                            + " from that point. Only transformations that retain the unmodified _id field are"
                            + " allowed.",
                    List.of(StandInError.NON_RESUMABLE_CHANGE_STREAM_ERROR),
                    null);
        }
        out.ifPresent(BsonLimits::checkEvent);
        return out;
    }

    /** The stream's options. */
    ChangeStreamOptions options() {
        return options;
    }

    /** The position of the next change to read. */
    synchronized long position() {
        return position;
    }

    /** The token to resume after everything read so far, sent as {@code postBatchResumeToken}. */
    synchronized ResumeToken postBatchResumeToken() {
        return lastSeen;
    }

    /** True once the stream was invalidated: there is nothing more to read. */
    @Override
    public synchronized boolean isEmpty() {
        return invalidated;
    }
}

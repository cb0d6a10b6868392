package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change-stream commands of the stand-in: {@code aggregate} with a {@code $changeStream} stage (on a
 * collection, on a database with {@code aggregate: 1}, or on the deployment from {@code admin} with
 * {@code allChangesForCluster}) and the {@code getMore}s of the streams it opened.
 *
 * <p>A {@code getMore} waits like MongoDB's on an await cursor: until an event is there or {@code maxTimeMS}
 * has passed (1 s when the client gives none), then answers, with an empty batch if need be. Every response
 * carries a {@code postBatchResumeToken}. Resuming ({@code resumeAfter}, {@code startAfter},
 * {@code startAtOperationTime}) from a point the bounded history no longer holds, or a token of another run of the
 * stand-in, fails with MongoDB's ChangeStreamHistoryLost (286).
 */
final class ChangeStreams {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeStreams.class);

    /** MongoDB's await time of a change stream's getMore when the client gives no maxTimeMS. */
    static final long DEFAULT_AWAIT_MILLIS = 1_000;
    /** The longest wait granted, whatever the client asks: a waiting getMore holds a server thread. */
    static final long MAX_AWAIT_MILLIS = 60_000;

    /** Builds mongo-java-server's aggregation of the stages for a database and collection. */
    interface StageAssembler {
        Aggregation assemble(List<Document> stages, String database, String collection);
    }

    private final ChangeHistory history;
    private final ChangeEvents events;
    private final CursorRegistry cursors;
    private final StageAssembler assembler;

    ChangeStreams(ChangeHistory history, ChangeEvents events, CursorRegistry cursors, StageAssembler assembler) {
        this.history = history;
        this.events = events;
        this.cursors = cursors;
        this.assembler = assembler;
    }

    /** True for an {@code aggregate} whose first stage is {@code $changeStream}. */
    static boolean isChangeStream(Document aggregate) {
        List<Document> pipeline = Aggregation.parse(aggregate.get("pipeline"));
        return !pipeline.isEmpty() && pipeline.get(0).containsKey("$changeStream");
    }

    /** Opens a stream and answers with its first batch. */
    Document open(String database, Document aggregate) {
        List<Document> pipeline = Aggregation.parse(aggregate.get("pipeline"));
        if (!(pipeline.get(0).get("$changeStream") instanceof Document stage)) {
            throw new MongoServerError(14, "TypeMismatch", "the $changeStream stage takes a document");
        }
        Object target = aggregate.get("aggregate");
        boolean cluster = Utils.isTrue(stage.get("allChangesForCluster"));
        if (cluster && !database.equals("admin")) {
            throw new MongoServerError(
                    ErrorCodes.INVALID_OPTIONS, "InvalidOptions", "allChangesForCluster is only valid on admin");
        }
        if (!cluster && database.equals("admin")) {
            throw new MongoServerError(
                    ErrorCodes.INVALID_NAMESPACE,
                    "InvalidNamespace",
                    "$changeStream on admin needs allChangesForCluster: true");
        }
        String collection = target instanceof String name ? name : null;
        ChangeStreamOptions options =
                ChangeStreamOptions.parse(cluster ? null : database, cluster ? null : collection, stage);
        StreamStages stages = new StreamStages(
                pipeline.subList(1, pipeline.size()), rewritten -> assembler.assemble(rewritten, database, collection));

        long start;
        ResumeToken startToken;
        Optional<Document> resume = resumeOption(stage);
        if (resume.isPresent()) {
            boolean startAfter = stage.containsKey("startAfter");
            ResumeToken token = ResumeToken.parse(resume.get())
                    .orElseThrow(() -> new MongoServerError(
                            ErrorCodes.INVALID_RESUME_TOKEN, "InvalidResumeToken", "malformed resume token"));
            if (token.invalidate() && !startAfter) {
                throw new MongoServerError(
                        ErrorCodes.INVALID_RESUME_TOKEN,
                        "InvalidResumeToken",
                        "Cannot resume after an invalidate event; use startAfter to start a new stream after it");
            }
            start = resumePosition(token);
            startToken = token;
        } else if (stage.get("startAtOperationTime") instanceof BsonTimestamp time) {
            start = withHistoryLost(() -> history.positionAt(time));
            startToken = new ResumeToken(time, history.epoch(), start - 1, false);
        } else {
            start = history.next();
            startToken = new ResumeToken(history.now(), history.epoch(), start - 1, false);
        }
        ChangeStreamCursor cursor =
                new ChangeStreamCursor(cursors.generateCursorId(), history, events, options, stages, start, startToken);
        int batchSize = aggregate.get("cursor") instanceof Document spec && spec.get("batchSize") instanceof Number n
                ? n.intValue()
                : 101;
        List<Document> firstBatch = batchSize == 0 ? List.of() : withHistoryLost(() -> cursor.takeDocuments(batchSize));
        if (!cursor.isEmpty()) {
            cursors.add(cursor);
        }
        return response(options, "firstBatch", firstBatch, cursor.isEmpty() ? 0 : cursor.getId(), cursor);
    }

    /**
     * Answers a {@code getMore} of a stream: its next events, waiting for some up to the await time.
     *
     * @param shuttingDown whether the server is stopping: then nothing waits
     */
    Document getMore(ChangeStreamCursor cursor, Document getMore, boolean shuttingDown) throws InterruptedException {
        long awaitMillis = getMore.get("maxTimeMS") instanceof Number n
                ? Math.min(Math.max(0, n.longValue()), MAX_AWAIT_MILLIS)
                : DEFAULT_AWAIT_MILLIS;
        int batchSize = getMore.get("batchSize") instanceof Number n ? n.intValue() : 0;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(awaitMillis);
        List<Document> batch;
        try {
            while (true) {
                batch = withHistoryLost(() -> cursor.takeDocuments(batchSize));
                long remaining = deadline - System.nanoTime();
                if (!batch.isEmpty() || cursor.isEmpty() || remaining <= 0 || shuttingDown) {
                    break;
                }
                if (!history.awaitAfter(cursor.position(), remaining)) {
                    batch = List.of();
                    break;
                }
            }
        } catch (MongoServerError e) {
            cursors.remove(cursor);
            throw e;
        }
        if (cursor.isEmpty()) {
            cursors.remove(cursor);
        }
        return response(cursor.options(), "nextBatch", batch, cursor.isEmpty() ? 0 : cursor.getId(), cursor);
    }

    private long resumePosition(ResumeToken token) {
        if (token.epoch() != history.epoch()) {
            // A token of an earlier run of the stand-in: its history is gone with it.
            throw historyLost();
        }
        long start = token.position() + 1;
        if (start < history.first()) {
            throw historyLost();
        }
        if (start > history.next()) {
            // Issued by this data directory's stand-in after its last clean stop: it crashed, and lost those writes.
            LOG.warn(
                    "A change stream resumes from position {}, which this stand-in never reached (it continues from"
                            + " {}): its writes since its last clean stop were lost",
                    token.position(),
                    history.next());
            return history.next();
        }
        return start;
    }

    private static Optional<Document> resumeOption(Document stage) {
        if (stage.get("startAfter") instanceof Document token) {
            return Optional.of(token);
        }
        return stage.get("resumeAfter") instanceof Document token ? Optional.of(token) : Optional.empty();
    }

    private static <T> T withHistoryLost(Supplier<T> read) {
        try {
            return read.get();
        } catch (ChangeHistory.HistoryLostException e) {
            throw historyLost();
        }
    }

    private static MongoServerError historyLost() {
        return new MongoServerError(
                ErrorCodes.CHANGE_STREAM_HISTORY_LOST,
                "ChangeStreamHistoryLost",
                "Resume of change stream was not possible, as the resume point may no longer be in the oplog.");
    }

    private Document response(
            ChangeStreamOptions options,
            String batchName,
            List<Document> batch,
            long cursorId,
            ChangeStreamCursor cursor) {
        Document body = new Document("id", cursorId)
                .append("ns", options.cursorNamespace())
                .append(batchName, batch)
                .append("postBatchResumeToken", cursor.postBatchResumeToken().toDocument());
        // As a replica set answers: the source connector reads operationTime from every reply it sees.
        Document response = new Document("cursor", body).append("operationTime", history.now());
        Utils.markOkay(response);
        return response;
    }
}

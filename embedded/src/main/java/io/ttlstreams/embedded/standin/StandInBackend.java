package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.CursorNotFoundException;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.oplog.Oplog;
import io.netty.channel.Channel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * mongo-java-server's in-memory backend with change streams as MongoDB serves them: events recorded when written
 * ({@link ChangeRecorder}) into a bounded history indexed by position ({@link ChangeHistory}), shaped like
 * MongoDB's ({@link ChangeEvents}), on collections, databases and the deployment, with await {@code getMore}s
 * ({@link ChangeStreams}). mongo-java-server's own oplog and change streams are not used.
 *
 * <p>A waiting {@code getMore} blocks the netty event loop serving its connection (the backend API is
 * synchronous), so the server must run with enough worker threads that other connections rarely share a loop
 * with a waiting change stream.
 */
public final class StandInBackend extends MemoryBackend {

    /** Changes the history holds by default: a few minutes at a thousand writes a second. */
    public static final int DEFAULT_HISTORY_CHANGES = 200_000;

    private final ChangeHistory history;
    private final ChangeRecorder recorder;
    private final ChangeStreams changeStreams;
    private volatile boolean shuttingDown;
    /** What an emulated service refuses of a change stream: its error reply for the command, or null to open it. */
    private volatile UnaryOperator<Document> changeStreamRefusals = command -> null;

    private StandInBackend(int historyChanges, Optional<StandInSnapshot.Contents> snapshot) {
        this.history = snapshot.map(contents -> new ChangeHistory(
                        historyChanges,
                        getClock(),
                        contents.header().epoch(),
                        contents.header().next()))
                .orElseGet(() -> new ChangeHistory(historyChanges, getClock()));
        this.recorder = new ChangeRecorder(history);
        ChangeEvents events = new ChangeEvents(history.epoch(), this::findById);
        this.changeStreams = new ChangeStreams(history, events, getCursorRegistry(), this::aggregation);
        enableOplog();
        snapshot.ifPresent(contents -> contents.entries().forEach(this::restore));
    }

    /**
     * A backend, with the data an earlier run left in {@code snapshotFile} ({@link #snapshot}) if there is such a
     * file: its documents are loaded, and the resume tokens it issued stay valid.
     *
     * @param historyChanges how many changes the history keeps before the oldest fall off
     * @param snapshotFile   where an earlier run left its data, if anywhere
     * @throws IOException when the file exists but cannot be read or is corrupt
     */
    public static StandInBackend create(int historyChanges, Optional<Path> snapshotFile) throws IOException {
        Optional<StandInSnapshot.Contents> contents = Optional.empty();
        if (snapshotFile.isPresent()) {
            contents = StandInSnapshot.read(snapshotFile.get());
        }
        return new StandInBackend(historyChanges, contents);
    }

    /**
     * Writes every document and where the history stands to {@code file}, for the next run on the same data
     * directory. Call it after the server stopped accepting writes.
     */
    public void snapshot(Path file) throws IOException {
        List<StandInSnapshot.Entry> entries = new ArrayList<>();
        for (String databaseName : listDatabaseNames()) {
            if (!(resolveDatabase(databaseName) instanceof StandInDatabase database)) {
                continue;
            }
            for (StandInCollection collection : database.created()) {
                MongoDatabase current = resolveDatabase(collection.getDatabaseName());
                if (current.resolveCollection(collection.getCollectionName(), false) != collection) {
                    continue; // dropped, or renamed over
                }
                for (Document document : collection.queryAll()) {
                    entries.add(new StandInSnapshot.Entry(
                            collection.getDatabaseName(), collection.getCollectionName(), document));
                }
            }
        }
        StandInSnapshot.write(file, new StandInSnapshot.Header(history.epoch(), history.next()), entries);
    }

    private void restore(StandInSnapshot.Entry entry) {
        MongoDatabase database = resolveDatabase(entry.database());
        MongoCollection<?> collection = database.resolveCollection(entry.collection(), false);
        if (collection == null) {
            collection = database.createCollectionOrThrowIfExists(entry.collection());
        }
        collection.addDocument(entry.document());
    }

    @Override
    public MemoryDatabase openOrCreateDatabase(String databaseName) {
        return new StandInDatabase(databaseName, getCursorRegistry(), recorder);
    }

    @Override
    protected Oplog createOplog() {
        return recorder;
    }

    /**
     * Makes the backend play a service that refuses some change streams (e.g. Cosmos DB): {@code refusals} gives the
     * error reply for an {@code aggregate} command opening one, or null to open it. Set before clients connect.
     */
    public void refuseChangeStreams(UnaryOperator<Document> refusals) {
        this.changeStreamRefusals = refusals;
    }

    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        if (command.equalsIgnoreCase("aggregate") && ChangeStreams.isChangeStream(query)) {
            Document refused = changeStreamRefusals.apply(query);
            return refused != null ? refused : changeStreams.open(databaseName, query);
        }
        if (command.equalsIgnoreCase("getMore")
                && changeStreamCursor(query.get(command)) instanceof ChangeStreamCursor cursor) {
            try {
                return changeStreams.getMore(cursor, query, shuttingDown);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MongoServerError(11600, "InterruptedAtShutdown", "interrupted at shutdown");
            }
        }
        if (command.equalsIgnoreCase("dropDatabase")) {
            boolean existed = listDatabaseNames().contains(databaseName);
            Document response = super.handleCommand(channel, databaseName, command, query);
            if (existed) {
                recorder.droppedDatabase(databaseName);
            }
            return response;
        }
        if (command.equalsIgnoreCase("renameCollection") && databaseName.equals("admin")) {
            Document response = super.handleCommand(channel, databaseName, command, query);
            recorder.renamed(String.valueOf(query.get(command)), String.valueOf(query.get("to")));
            return response;
        }
        return super.handleCommand(channel, databaseName, command, query);
    }

    /** Wakes every waiting getMore, so that the netty event loops can stop promptly; later ones do not wait. */
    public void beginShutdown() {
        shuttingDown = true;
        history.close();
    }

    private Cursor changeStreamCursor(Object cursorId) {
        if (!(cursorId instanceof Number id)) {
            return null;
        }
        try {
            return getCursorRegistry().getCursor(id.longValue());
        } catch (CursorNotFoundException e) {
            return null; // the stock path answers with the error
        }
    }

    /** The current version of a document, by the {@code _id} index; null when the document or collection is gone. */
    private Document findById(String databaseName, String collectionName, Object id) {
        if (!listDatabaseNames().contains(databaseName)) {
            return null; // resolving it would create it
        }
        MongoCollection<?> collection = resolveDatabase(databaseName).resolveCollection(collectionName, false);
        if (collection == null) {
            return null;
        }
        Iterator<Document> found =
                collection.handleQuery(new Document("_id", id), 0, 1).iterator();
        return found.hasNext() ? found.next().cloneDeeply() : null;
    }

    private Aggregation aggregation(List<Document> stages, String databaseName, String collectionName) {
        MongoDatabase database = resolveDatabase(databaseName);
        MongoCollection<?> collection =
                collectionName == null ? null : database.resolveCollection(collectionName, false);
        return Aggregation.fromPipeline(stages, this::resolveDatabase, database, collection, recorder);
    }
}

package io.ttlstreams.embedded.standin;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.BinData;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.CursorNotFoundException;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.oplog.NoopOplog;
import de.bwaldvogel.mongo.oplog.Oplog;
import io.netty.channel.Channel;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * mongo-java-server's in-memory backend answering as MongoDB (7.0 unless told to play another release, {@link
 * ServerVersion}) does where the project relies on it.
 *
 * <ul>
 *   <li>One identity ({@link StandInIdentity}): the primary of a one-member replica set, every reply
 *       carrying {@code operationTime} and {@code $clusterTime} as a replica set's do.</li>
 *   <li>Change streams of its own: events recorded when written ({@link ChangeRecorder}) into a bounded history
 *       indexed by position ({@link ChangeHistory}), shaped like MongoDB's ({@link ChangeEvents}), with pre- and
 *       post-images and expanded events, on collections, databases and the deployment, with await {@code getMore}s
 *       ({@link ChangeStreams}); mongo-java-server's own oplog and change streams are not used.</li>
 *   <li>Errors as MongoDB answers them, with the {@code errorLabels} a server attaches ({@link ErrorLabels}), and
 *       failures on command: MongoDB's {@code failCommand} fail point ({@link FailCommand}).</li>
 *   <li>{@code renameCollection} recorded as one {@code rename} (with {@code dropTarget}, the target is replaced
 *       without a {@code drop} event), {@code $out} through a temporary collection renamed over its target ({@link
 *       OutStage}), {@code let} and a per-command {@code $$NOW} ({@link CommandVariables}), the
 *       {@code changeStreamOptions} cluster parameter ({@link ImageRetention}).</li>
 *   <li>Sharded collections ({@link ShardKeys}): {@code shardCollection}, {@code refineCollectionShardKey} and {@code
 *       reshardCollection} key the events of a collection as a sharded cluster's, while the stand-in goes on answering
 *       as a replica set's primary; or, told to ({@link StandInSettings#mongos()}), as a {@code mongos}, which also
 *       serves the sharding catalog's {@code config.collections} ({@link ShardingCatalog}).</li>
 *   <li>What MongoDB enforces: the 16 MB limits ({@link BsonLimits}), the idle cursor timeout ({@link IdleCursors}),
 *       and the features of the release it plays ({@link ServerVersion}); every time it stamps from a clock of its
 *       own, which may be set off the machine's ({@link StandInSettings#clockOffset()}, {@link CurrentDates}).</li>
 *   <li>What it cannot do it refuses instead of answering wrongly: multi-document transactions, and collations other
 *       than {@code simple} (mongo-java-server compares strings by their code points only).</li>
 * </ul>
 *
 * <p>A waiting {@code getMore} blocks the netty event loop serving its connection (the backend API is synchronous),
 * so the server must run with enough worker threads that other connections rarely share a loop with a waiting change
 * stream.
 */
public final class StandInBackend extends MemoryBackend {

    /** Changes the history holds by default: a few minutes at a thousand writes a second. */
    public static final int DEFAULT_HISTORY_CHANGES = 200_000;

    /** The signature of {@code $clusterTime} of a deployment without keys: zeros, key 0. */
    private static final Document UNSIGNED = new Document("hash", new BinData(new byte[20])).append("keyId", 0L);

    private final ChangeHistory history;
    private final ChangeRecorder recorder;
    private final ChangeStreams changeStreams;
    private final StandInIdentity identity;
    private final ImageRetention retention;
    private final FailCommand failCommand = new FailCommand();
    private volatile boolean shuttingDown;
    /** What an emulated service refuses of a change stream: its error reply for the command, or null to open it. */
    private volatile UnaryOperator<Document> changeStreamRefusals = command -> null;

    private final ServerVersion version;
    private final IdleCursors idleCursors;
    /** Whether it answers as a {@code mongos} ({@link StandInSettings#mongos()}). */
    private final boolean mongos;

    private StandInBackend(
            int historyChanges, Optional<StandInSnapshot.Contents> snapshot, StandInSettings settings, Clock clock) {
        super(clock);
        this.history = snapshot.map(contents -> new ChangeHistory(
                        historyChanges,
                        getClock(),
                        contents.header().epoch(),
                        contents.header().next()))
                .orElseGet(() -> new ChangeHistory(historyChanges, getClock()));
        this.recorder = new ChangeRecorder(history);
        this.retention = new ImageRetention(
                getClock(),
                snapshot.map(contents -> contents.header().expireAfterSeconds()).orElse(null));
        ChangeEvents events = new ChangeEvents(history.epoch(), this::findByKey, retention);
        this.changeStreams = new ChangeStreams(history, events, getCursorRegistry(), this::aggregation);
        this.version = settings.version();
        this.idleCursors = new IdleCursors(getClock(), settings.cursorTimeout(), getCursorRegistry());
        this.mongos = settings.mongos();
        this.identity = new StandInIdentity(getClock(), version, mongos);
        version(version);
        snapshot.ifPresent(this::restore);
    }

    /**
     * A backend, with the data an earlier run left in {@code snapshotFile} ({@link #snapshot}) if there is such a
     * file: its collections and documents are loaded, and the resume tokens it issued stay valid.
     *
     * @param historyChanges how many changes the history keeps before the oldest fall off
     * @param snapshotFile   where an earlier run left its data, if anywhere
     * @param settings       how it plays MongoDB
     * @throws IOException when the file exists but cannot be read or is corrupt
     */
    public static StandInBackend create(int historyChanges, Optional<Path> snapshotFile, StandInSettings settings)
            throws IOException {
        return create(historyChanges, snapshotFile, settings, Clock.systemUTC());
    }

    /** A backend whose clock is {@code machine}'s, off by the settings' clock offset: a test drives its own. */
    static StandInBackend create(
            int historyChanges, Optional<Path> snapshotFile, StandInSettings settings, Clock machine)
            throws IOException {
        Optional<StandInSnapshot.Contents> contents = Optional.empty();
        if (snapshotFile.isPresent()) {
            contents = StandInSnapshot.read(snapshotFile.get());
        }
        return new StandInBackend(historyChanges, contents, settings, Clock.offset(machine, settings.clockOffset()));
    }

    /**
     * Writes every collection (with its UUID, image setting and shard key) and document, and where the history stands, to
     * {@code file}, for the next run on the same data directory. Call it after the server stopped accepting writes.
     */
    public void snapshot(Path file) throws IOException {
        List<StandInSnapshot.CollectionEntry> collections = new ArrayList<>();
        List<StandInSnapshot.Entry> entries = new ArrayList<>();
        for (StandInCollection collection : liveCollections()) {
            collections.add(new StandInSnapshot.CollectionEntry(
                    collection.getDatabaseName(),
                    collection.getCollectionName(),
                    collection.collectionUuid(),
                    collection.recordsImages(),
                    collection.shardKey(),
                    collection.uniqueShardKey()));
            for (Document document : collection.queryAll()) {
                entries.add(new StandInSnapshot.Entry(
                        collection.getDatabaseName(), collection.getCollectionName(), document));
            }
        }
        StandInSnapshot.write(
                file,
                new StandInSnapshot.Header(
                        history.epoch(), history.next(), collections, retention.expireAfterSeconds()),
                entries);
    }

    /** The collections that exist now: created by a database and neither dropped nor renamed over since. */
    private List<StandInCollection> liveCollections() {
        List<StandInCollection> live = new ArrayList<>();
        for (String databaseName : listDatabaseNames()) {
            if (!(resolveDatabase(databaseName) instanceof StandInDatabase database)) {
                continue;
            }
            for (StandInCollection collection : database.created()) {
                MongoDatabase current = resolveDatabase(collection.getDatabaseName());
                if (current.resolveCollection(collection.getCollectionName(), false) == collection) {
                    live.add(collection);
                }
            }
        }
        return live;
    }

    private void restore(StandInSnapshot.Contents contents) {
        for (StandInSnapshot.CollectionEntry entry : contents.header().collections()) {
            StandInCollection collection =
                    ((StandInDatabase) resolveDatabase(entry.database())).restore(entry.collection());
            collection.restoreUuid(entry.uuid());
            collection.recordImages(entry.preAndPostImages());
            if (entry.shardKey() != null) {
                collection.shard(entry.shardKey(), entry.uniqueShardKey());
            }
        }
        for (StandInSnapshot.Entry entry : contents.entries()) {
            ((StandInDatabase) resolveDatabase(entry.database()))
                    .restore(entry.collection())
                    .addDocument(entry.document());
        }
    }

    @Override
    public MemoryDatabase openOrCreateDatabase(String databaseName) {
        return new StandInDatabase(databaseName, getCursorRegistry(), recorder);
    }

    /** The stand-in records its changes itself; mongo-java-server's oplog hook stays silent. */
    @Override
    protected Oplog createOplog() {
        return NoopOplog.get();
    }

    /**
     * Makes the backend play a service that refuses some change streams (e.g. Cosmos DB): {@code refusals} gives the
     * error reply for an {@code aggregate} command opening one, or null to open it. Set before clients connect.
     */
    public void refuseChangeStreams(UnaryOperator<Document> refusals) {
        this.changeStreamRefusals = refusals;
    }

    /**
     * How many documents were deleted from {@code namespaces} ({@code db.coll}) since the stand-in started, whatever
     * deleted them: the stand-in's own count, which needs no change stream.
     */
    public long deletedDocuments(Collection<String> namespaces) {
        return recorder.deletes(namespaces);
    }

    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        // Read before dispatch strips the session fields.
        boolean retryableWrite = query.containsKey("txnNumber") && !query.containsKey("autocommit");
        boolean changeStream = false;
        List<String> labels = null;
        Document response;
        try {
            if (command.equals("getMore")) {
                idleCursors.reap(); // MongoDB's reaper works whatever becomes of this command
            }
            changeStream = isChangeStream(command, query);
            if (FailCommand.answers(command)) {
                response = failCommand.configure(databaseName, query);
            } else {
                FailCommand.Firing firing = failCommand.beforeRunning(channel, command);
                if (firing != null) {
                    labels = firing.labels();
                    fail(channel, firing);
                }
                if (command.equals("hello") || command.equalsIgnoreCase("isMaster")) {
                    failCommand.handshake(channel, query);
                }
                if (command.equals("getMore")) {
                    idleCursors.use(query.get(command));
                }
                response = dispatch(channel, databaseName, command, query);
                idleCursors.afterCommand(command, query, response);
                if (Utils.isTrue(response.get("ok"))) {
                    List<String> afterLabels = failCommand.afterRunning(channel, command, response);
                    labels = afterLabels != null ? afterLabels : labels;
                }
            }
        } catch (MongoServerError e) {
            response = StandInError.reply(e);
        }
        ErrorLabels.attach(response, retryableWrite, changeStream, labels);
        // As a replica set answers every command.
        BsonTimestamp now = history.now();
        response.putIfAbsent("operationTime", now);
        response.put("$clusterTime", new Document("clusterTime", now).append("signature", UNSIGNED));
        return response;
    }

    /**
     * Does to a command what the fail point says before it runs: blocks the connection's event loop, closes the
     * connection (the reply, written to a closed channel, never arrives, as MongoDB ends the session), or fails it.
     */
    private static void fail(Channel channel, FailCommand.Firing firing) {
        firing.block();
        if (firing.closeConnection()) {
            if (channel != null) {
                channel.close(); // on the channel's own event loop: closed before the reply is written
            }
            throw new MongoServerError(
                    ErrorCodes.FAIL_COMMAND_CLOSED_CONNECTION,
                    ErrorCodes.name(ErrorCodes.FAIL_COMMAND_CLOSED_CONNECTION),
                    FailCommand.MESSAGE);
        }
        if (firing.error() != null) {
            throw firing.error();
        }
    }

    /** Whether {@code command} opens or continues a change stream: what MongoDB labels resumable errors of. */
    private boolean isChangeStream(String command, Document query) {
        return (command.equals("aggregate") && ChangeStreams.isChangeStream(query))
                || (command.equals("getMore") && changeStreamCursor(query.get(command)) instanceof ChangeStreamCursor);
    }

    private Document dispatch(Channel channel, String databaseName, String command, Document query) {
        if (Utils.isTrue(query.get("startTransaction"))) {
            throw new MongoServerError(
                    ErrorCodes.ILLEGAL_OPERATION,
                    "IllegalOperation",
                    "the MongoDB stand-in runs no multi-document transactions (mongo-java-server has none): write"
                            + " without a transaction");
        }
        // What a driver sends on every command of a session; mongo-java-server would take it for options.
        query.remove("$clusterTime");
        query.remove("lsid");
        query.remove("txnNumber");
        query.remove("autocommit");
        if (identity.answers(databaseName, command)) {
            return identity.answer(channel, command, query, history.now());
        }
        version.refuseWhatItLacks(command, query);
        if (ImageRetention.answers(command)) {
            return retention.handle(databaseName, command, query, history.now());
        }
        refuseCollation(query);
        String name = command.toLowerCase(Locale.ROOT);
        if (name.equals("aggregate") && ChangeStreams.isChangeStream(query)) {
            Document refused = changeStreamRefusals.apply(query);
            return refused != null ? refused : changeStreams.open(databaseName, query);
        }
        if (name.equals("getmore") && changeStreamCursor(query.get(command)) instanceof ChangeStreamCursor cursor) {
            try {
                return changeStreams.getMore(cursor, query, shuttingDown);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StandInError(
                        ErrorCodes.INTERRUPTED_AT_SHUTDOWN,
                        "InterruptedAtShutdown",
                        "interrupted at shutdown",
                        List.of(StandInError.RESUMABLE_CHANGE_STREAM_ERROR),
                        null);
            }
        }
        if (name.equals("dropdatabase")) {
            boolean existed = listDatabaseNames().contains(databaseName);
            Document response = super.handleCommand(channel, databaseName, command, query);
            if (existed) {
                recorder.droppedDatabase(databaseName);
            }
            return response;
        }
        if (name.equals("renamecollection") && databaseName.equals("admin")) {
            return rename(query);
        }
        if (mongos && ShardingCatalog.answers(databaseName, command, query)) {
            return ShardingCatalog.find(query, liveCollections());
        }
        if (ShardKeys.answers(databaseName, command)) {
            return ShardKeys.handle(
                    command,
                    query,
                    (database, create) ->
                            create || listDatabaseNames().contains(database) ? resolveDatabase(database) : null,
                    recorder);
        }
        Instant now = getClock().instant();
        BsonTimestamp clusterTime = history.now();
        Document substituted = CommandVariables.applyTo(
                command, CurrentDates.applyTo(command, query, now, clusterTime), now, clusterTime);
        if (name.equals("aggregate") && OutStage.endsIn(substituted)) {
            return OutStage.run(databaseName, substituted, new OutStage.Backend() {
                @Override
                public Document command(String database, String commandName, Document body) {
                    return StandInBackend.super.handleCommand(channel, database, commandName, body);
                }

                @Override
                public List<Document> aggregate(List<Document> stages, String database, String collection) {
                    return aggregation(stages, database, collection).computeResult();
                }

                @Override
                public Document rename(Document renameCollection) {
                    return StandInBackend.this.rename(renameCollection);
                }
            });
        }
        return super.handleCommand(channel, databaseName, command, substituted);
    }

    /**
     * {@code renameCollection}, as MongoDB records it: one {@code rename} event, which a stream on the source or on
     * the target sees; with {@code dropTarget}, an existing target is replaced without a {@code drop} event of its
     * own, the rename naming its UUID.
     */
    private Document rename(Document query) {
        String from = String.valueOf(query.get("renameCollection"));
        String to = String.valueOf(query.get("to"));
        if (from.equals(to)) {
            throw new MongoServerError(
                    ErrorCodes.ILLEGAL_OPERATION, "IllegalOperation", "Can't rename a collection to itself");
        }
        String fromDatabase = Utils.getDatabaseNameFromFullName(from);
        MongoCollection<?> source = listDatabaseNames().contains(fromDatabase)
                ? resolveDatabase(fromDatabase).resolveCollection(Utils.getCollectionNameFromFullName(from), false)
                : null;
        if (source == null) {
            throw new MongoServerError(
                    ErrorCodes.NAMESPACE_NOT_FOUND,
                    "NamespaceNotFound",
                    "Source collection " + from + " does not exist");
        }
        StandInDatabase target = (StandInDatabase) resolveDatabase(Utils.getDatabaseNameFromFullName(to));
        String targetName = Utils.getCollectionNameFromFullName(to);
        UUID dropped = null;
        if (target.resolveCollection(targetName, false) != null) {
            if (!Utils.isTrue(query.get("dropTarget"))) {
                throw new MongoServerError(ErrorCodes.NAMESPACE_EXISTS, "NamespaceExists", "target namespace exists");
            }
            dropped = target.dropWithoutEvent(targetName);
        }
        target.moveCollection(resolveDatabase(fromDatabase), source, targetName);
        UUID uuid = source instanceof StandInCollection standIn ? standIn.collectionUuid() : null;
        recorder.renamed(from, to, uuid, dropped);
        Document response = new Document();
        Utils.markOkay(response);
        return response;
    }

    /**
     * Refuses a collation other than {@code simple}: mongo-java-server would ignore it, and compare strings by their
     * code points where the caller asked for a locale's rules (case- or accent-insensitive matching, say).
     */
    private static void refuseCollation(Document query) {
        checkCollation(query.get("collation"));
        for (String statements : List.of("updates", "deletes", "indexes")) {
            if (query.get(statements) instanceof List<?> list) {
                list.stream()
                        .filter(Document.class::isInstance)
                        .forEach(statement -> checkCollation(((Document) statement).get("collation")));
            }
        }
    }

    private static void checkCollation(Object collation) {
        if (collation instanceof Document spec && !"simple".equals(spec.get("locale"))) {
            throw new MongoServerError(
                    ErrorCodes.NOT_IMPLEMENTED,
                    "NotImplemented",
                    "the MongoDB stand-in applies no collation but 'simple' (mongo-java-server compares strings by code"
                            + " point); refused rather than ignored: " + spec);
        }
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

    /**
     * The current version of the document {@code documentKey} finds, each of its values a pinned literal ({@code $eq}):
     * by {@code _id} alone on an unsharded collection, with the shard key's values on a sharded one, as a cluster looks
     * it up; null when the document or collection is gone or no longer has those values.
     */
    private Document findByKey(String databaseName, String collectionName, Document documentKey) {
        if (!listDatabaseNames().contains(databaseName)) {
            return null; // resolving it would create it
        }
        MongoCollection<?> collection = resolveDatabase(databaseName).resolveCollection(collectionName, false);
        if (collection == null) {
            return null;
        }
        Document filter = new Document();
        documentKey.forEach((field, value) -> filter.append(field, new Document("$eq", value)));
        Iterator<Document> found = collection.handleQuery(filter, 0, 1).iterator();
        return found.hasNext() ? found.next().cloneDeeply() : null;
    }

    private Aggregation aggregation(List<Document> stages, String databaseName, String collectionName) {
        MongoDatabase database = resolveDatabase(databaseName);
        MongoCollection<?> collection =
                collectionName == null ? null : database.resolveCollection(collectionName, false);
        return Aggregation.fromPipeline(stages, this::resolveDatabase, database, collection, NoopOplog.get());
    }
}

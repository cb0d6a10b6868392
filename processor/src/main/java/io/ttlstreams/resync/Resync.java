package io.ttlstreams.resync;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoConfigurationException;
import com.mongodb.MongoCursorNotFoundException;
import com.mongodb.MongoException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoSocketException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.client.FindIterable;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Projections;
import io.ttlstreams.config.ResyncOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ChangeStreamPipeline;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.resync.ResyncPlan.ResyncTarget;
import io.ttlstreams.resync.ResyncReport.NamespaceResult;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One resync pass: reads the selected namespaces' documents from MongoDB, only {@code _id} and the fields the rules
 * read (the source connector's projection, {@link ChangeStreamPipeline#documentPaths}), in batches, and publishes each
 * as a {@link ResyncEvent} to its namespace's source topic, or, in a dry run, only evaluates it.
 *
 * <p>Each batch is stamped with a cluster time taken just before it is read ({@link ReadStamp}), so that no resync
 * claims to be newer than what it read. A collection is read in {@code _id} order ({@link IdOrder}) with one cursor:
 * a batch ends where the driver's buffer does, and the stamp of the next one is taken before the {@code getMore} that
 * fetches it. A cursor lost on the way ({@link #cursorLost}) is replaced by a new read, stamped again, of the documents
 * after the last {@code _id} read, at most {@value #RESUMES_WITHOUT_PROGRESS_MAX} times in a row without progress.
 *
 * <p>A sharded collection is read as any other, through the {@code mongos} the URI names, as an application reads it:
 * the same {@code find} in {@code _id} order, nothing but the find action on the rules' namespaces (and {@code
 * listCollections} for {@code db.*} rules). Its resync events carry {@code {"_id": ...}} as their document key, not
 * the shard key fields its change events carry: a read does not say which fields are the shard key (the sharding
 * catalog, {@code config.collections}, is not for an application's user), and a document is one document by
 * namespace and {@code _id} whatever its key's shape, so the event reaches the document's entry, on the partition of
 * its change events (their key is {@code {"_id": ...}} too). See {@link ResyncEvent} for the delete filter it leaves.
 *
 * <p>Not thread-safe: one pass at a time per instance.
 */
public final class Resync {

    /** The application name the MongoDB server logs for resync connections. */
    private static final String APPLICATION_NAME = "ttl-streams-resync";
    /** How long a read may wait on a silent MongoDB connection, unless the URI sets {@code socketTimeoutMS}. */
    static final int SOCKET_READ_TIMEOUT_SECONDS = 60;
    /**
     * A read that loses its cursor this many times without reading a document in between fails, as any other MongoDB
     * failure does: MongoDB is then failing more than a cursor, and the next pass starts again.
     */
    static final int RESUMES_WITHOUT_PROGRESS_MAX = 3;
    /** MongoDB's error codes for a cursor it no longer has: CursorNotFound, CursorKilled. */
    private static final int CURSOR_NOT_FOUND = 43;

    private static final int CURSOR_KILLED = 237;
    private static final Logger LOG = LoggerFactory.getLogger(Resync.class);

    private final TtlStreamsConfig config;
    private final MongoClient client;
    private final Clock clock;

    /**
     * @param config the rules, the source topics, the batch size
     * @param client the MongoDB client to read with; the caller closes it
     * @param clock the stamp of last resort, for servers that report no cluster time
     */
    public Resync(TtlStreamsConfig config, MongoClient client, Clock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.client = Objects.requireNonNull(client, "client");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * A MongoDB client for {@value ResyncOptions#MONGODB_URI_CONFIG}.
     *
     * @throws ConfigException naming the option when it is unset or the driver cannot parse it (the message never
     *     quotes the value, which carries credentials)
     */
    public static MongoClient mongoClient(TtlStreamsConfig config) {
        return mongoClient(config, APPLICATION_NAME);
    }

    /**
     * A MongoDB client for {@value ResyncOptions#MONGODB_URI_CONFIG}, whose connections the server logs as {@code
     * applicationName}.
     *
     * @throws ConfigException as {@link #mongoClient(TtlStreamsConfig)} does
     */
    public static MongoClient mongoClient(TtlStreamsConfig config, String applicationName) {
        return MongoClients.create(clientSettings(config, applicationName));
    }

    /** The settings of {@link #mongoClient(TtlStreamsConfig, String)}'s client. */
    static MongoClientSettings clientSettings(TtlStreamsConfig config, String applicationName) {
        String uri = config.mongodbUri()
                .orElseThrow(() -> new ConfigException(ResyncOptions.MONGODB_URI_CONFIG
                        + " is not set: name the MongoDB deployment the rules' documents are read from"));
        ConnectionString connectionString;
        try {
            connectionString = new ConnectionString(uri);
        } catch (IllegalArgumentException | MongoConfigurationException invalid) {
            throw new ConfigException(ResyncOptions.MONGODB_URI_CONFIG + " is not a usable MongoDB connection"
                    + " string: " + invalid.getMessage());
        }
        return MongoClientSettings.builder()
                // The driver waits on a silent socket for ever by default: a hung server would then stall the resync
                // sweep and the read-back thread without an error. A socketTimeoutMS in the URI still wins.
                .applyToSocketSettings(socket -> socket.readTimeout(SOCKET_READ_TIMEOUT_SECONDS, TimeUnit.SECONDS))
                .applyConnectionString(connectionString)
                .applicationName(applicationName)
                .build();
    }

    /**
     * Runs one pass.
     *
     * @param sink where the events go; empty for a dry run, which reads and evaluates but publishes nothing
     * @return what was read, published and would be scheduled, per namespace and rule
     * @throws IllegalArgumentException when the selection names an unknown rule or a namespace no rule covers
     * @throws com.mongodb.MongoException when MongoDB cannot be read
     * @throws org.apache.kafka.common.KafkaException when events cannot be published
     */
    public ResyncReport run(ResyncSelection selection, Optional<ResyncSink> sink, ResyncProgress progress) {
        ResyncReport report = new ResyncReport(sink.isEmpty());
        try (ReadStamps stamps = ReadStamps.open(client, clock)) {
            // For db.* rules, the database's collections.
            ResyncPlan plan = ResyncPlan.of(
                    config,
                    selection,
                    database -> collections(client, database).stream()
                            .map(entry -> entry.getString("name").getValue())
                            .toList());
            plan.skipped().forEach(report::skipped);
            for (ResyncTarget target : plan.targets()) {
                read(target, stamps, sink, progress, report);
            }
        }
        return report;
    }

    private void read(
            ResyncTarget target,
            ReadStamps stamps,
            Optional<ResyncSink> sink,
            ResyncProgress progress,
            ResyncReport report) {
        Namespace namespace = target.namespace();
        MongoDatabase database = client.getDatabase(namespace.database());
        // The primary, with local read concern, whatever the URI says: the stamp comes from a ping on the primary,
        // and only a read there sees at least what the stamp stands for. A secondary's batch, or a majority
        // snapshot, can be older than its stamp and then win over a renewal the processor has already applied.
        MongoCollection<BsonDocument> collection = database.getCollection(namespace.collection(), BsonDocument.class)
                .withReadPreference(ReadPreference.primary())
                .withReadConcern(ReadConcern.LOCAL);
        NamespaceResult result = report.started(target);
        progress.started(target, collection.estimatedDocumentCount());
        Bson projection = Projections.include(ChangeStreamPipeline.documentPaths(target.rules()));
        long read = 0;
        BsonValue last = null;
        int lostInARow = 0;
        while (true) {
            // A new read, first or resumed, is stamped before it runs, as every batch is.
            ReadStamp stamp = stamps.next(database);
            report.stamped(stamp);
            FindIterable<BsonDocument> find = stamps.session()
                    .map(collection::find)
                    .orElseGet(collection::find)
                    .filter(last == null ? new BsonDocument() : IdOrder.after(last))
                    .sort(IdOrder.SORT)
                    .projection(projection)
                    .batchSize(config.resyncBatchSize());
            try (MongoCursor<BsonDocument> cursor = find.cursor()) {
                while (cursor.hasNext()) {
                    BsonDocument document = cursor.next();
                    result.read(config.rules().evaluateResync(namespace, document, stamp.instant()), stamp.instant());
                    if (sink.isPresent()) {
                        sink.get().publish(ResyncEvent.of(target.topic(), namespace, document, stamp.clusterTime()));
                    }
                    last = document.get("_id");
                    lostInARow = 0;
                    progress.read(++read);
                    if (cursor.available() == 0 && cursor.getServerCursor() != null) {
                        // The batch is used up and the next hasNext() fetches another from the server: stamp it first.
                        stamp = stamps.next(database);
                        report.stamped(stamp);
                    }
                }
                break;
            } catch (MongoException e) {
                if (!cursorLost(e) || ++lostInARow > RESUMES_WITHOUT_PROGRESS_MAX) {
                    throw e;
                }
                result.cursorLost();
                LOG.warn(
                        "Resync of {}: the read lost its cursor after {} documents ({}); resuming after the last _id"
                                + " read ({} of at most {} in a row)",
                        namespace,
                        read,
                        e.getMessage(),
                        lostInARow,
                        RESUMES_WITHOUT_PROGRESS_MAX);
            }
        }
        if (sink.isPresent()) {
            sink.get().flush();
            result.published(read);
        }
        progress.finished(read);
    }

    /**
     * Whether {@code e} ended the cursor but not the collection: MongoDB timed it out or killed it (an idle cursor after
     * 10 minutes, one whose session expired), the connection was lost, or the primary stepped down. A new read from the
     * primary can go on where this one stopped.
     */
    static boolean cursorLost(MongoException e) {
        return e instanceof MongoCursorNotFoundException
                || e instanceof MongoSocketException
                || e instanceof MongoNotPrimaryException
                || e instanceof MongoNodeIsRecoveringException
                || (e instanceof MongoServerException server
                        && (server.getCode() == CURSOR_NOT_FOUND || server.getCode() == CURSOR_KILLED));
    }

    /**
     * The {@code listCollections} entries of {@code database}'s collections; views are left out, they have no change
     * events of their own.
     */
    static List<BsonDocument> collections(MongoClient client, String database) {
        List<BsonDocument> collections = new ArrayList<>();
        for (BsonDocument entry : client.getDatabase(database).listCollections(BsonDocument.class)) {
            BsonValue type = entry.get("type");
            if (type == null || type.equals(new BsonString("collection"))) {
                collections.add(entry);
            }
        }
        return collections;
    }
}

package io.ttlstreams.connect;

import io.ttlstreams.config.ExpiredDocument;
import io.ttlstreams.config.RetryableWrites;
import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.NamespacePattern;
import io.ttlstreams.rules.TtlRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The MongoDB source and sink connector configurations for a processor configuration, against a real MongoDB
 * replica set.
 *
 * <ul>
 *   <li>One source connector per database the rules name, watching that database and filtering the change stream
 *       to the rules' collections (or all of them for {@code db.*}), projected to the fields the rules read; where
 *       the {@link SourceProfile} watches collections only, one per collection, with the pipeline the service
 *       accepts.</li>
 *   <li>One sink connector that applies the delete commands of {@link TtlStreamsConfig#deleteTopic()} as
 *       conditional {@code deleteOne}s in the namespace each command names, behind the sink guard, which lets
 *       through only commands the processor signed, in the rules' namespaces.</li>
 * </ul>
 *
 * <p>connect-config/README.md at the repository root explains every setting. Instances are immutable.
 */
public final class ConnectorConfigs {

    /**
     * The default {@code connection.uri}: a Connect config-provider reference, so that the credentials stay in a
     * secret file on the worker rather than in the connector configuration, which the REST API shows to anyone.
     * The worker needs {@code config.providers=file} for it.
     */
    public static final String DEFAULT_MONGODB_URI = "${file:/secrets/mongo.properties:uri}";

    /** The sink's dead-letter topic: delete commands MongoDB rejected, with the error in the headers. */
    public static final String SINK_DLQ_TOPIC = "ttl.sink.dlq";

    /**
     * The prefix of the source connectors' heartbeat topics, one per connector (database), so that a heartbeat tells
     * which database's change stream is alive: the processor reads their latest timestamps to export how stale each
     * namespace's source is.
     */
    public static final String HEARTBEAT_TOPIC_PREFIX = "__mongodb_heartbeats.";

    /** Heartbeat period: keeps the stored resume token inside the oplog window on quiet collections. */
    public static final long HEARTBEAT_INTERVAL_MS = 10_000;

    /** The Kafka user the source connectors run as ({@code producer.override.sasl.jaas.config}). */
    public static final String SOURCE_USER = "ttl-source";

    /** The Kafka user the sink connector runs as: its consumer, and its dead-letter producer and admin client. */
    public static final String SINK_USER = "ttl-sink";

    /**
     * The source connector's producer limit, rendered where the pipeline bounds its events ({@link
     * ChangeStreamPipeline#maxRecordBytes}); the worker must allow client overrides ({@code
     * connector.client.config.override.policy=All}), as the sink's read-committed consumer needs anyway.
     */
    public static final String SOURCE_MAX_REQUEST_SIZE = "producer.override.max.request.size";

    /** The source connector's clients that reach Kafka for it. */
    public static final List<String> SOURCE_CLIENTS = List.of("producer");

    /** The sink connector's clients that reach Kafka for it: commands in, dead letters out (and their topic). */
    public static final List<String> SINK_CLIENTS = List.of("consumer", "producer", "admin");

    /** The sink connector's name and file (without ".json"). */
    public static final String SINK_NAME = "mongo-ttl-sink";

    /** The source connectors' name prefix and, when there is a single database, file name (without ".json"). */
    public static final String SOURCE_NAME = "mongo-source";

    static final String SOURCE_CONNECTOR = "com.mongodb.kafka.connect.MongoSourceConnector";
    public static final String SINK_CONNECTOR = "com.mongodb.kafka.connect.MongoSinkConnector";
    static final String STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";

    /** The sink guard (module sink-guard), a Connect transformation installed as a plugin beside the connectors. */
    public static final String SINK_GUARD = "io.ttlstreams.guard.DeleteCommandGuard";

    /**
     * The guard's default {@code signing.key}: like {@link #DEFAULT_MONGODB_URI}, a config provider reference, so
     * that the secret stays in a file on the worker; the processor reads the same secret as its {@code
     * ttl.command.signing.key}.
     */
    public static final String DEFAULT_SIGNING_KEY = "${file:/secrets/ttl-signing.properties:key}";

    /** Hands the signature headers to the guard as the bytes the processor wrote. */
    static final String BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter";

    /**
     * The sink's fallback database and collection. The connector requires a default namespace, but with
     * {@code namespace.mapper.error.if.invalid=true} a command without {@code ns} goes to the dead-letter topic
     * instead, so it is never written; a foreign name keeps a misconfiguration from deleting in a real one.
     */
    public static final String UNUSED_DEFAULT_NAMESPACE = "ttl_streams_unmapped";

    /**
     * The source connectors' key transformation (module sink-guard, installed with the guard's plugin): every event of
     * a document keyed by its {@code _id} alone, so that a sharded collection's changing {@code documentKey} never
     * sends one document's events to several partitions (tasks).
     */
    public static final String SOURCE_KEY = "io.ttlstreams.sourcekey.DocumentIdKey";

    /** The sink guard plugin's write model, which applies mark commands as well as deletes. */
    public static final String COMMAND_WRITE_MODEL = "io.ttlstreams.guard.CommandWriteModel";

    private final List<ConnectorDefinition> sources;
    private final ConnectorDefinition sink;

    private ConnectorConfigs(TtlStreamsConfig config, String mongodbUri, boolean copyExisting) {
        SourceProfile profile = config.sourceProfile();
        // A service that watches collections only gets a connector per collection; start-up refused db.* rules there.
        Map<NamespacePattern, List<TtlRule>> rulesByWatch = config.rules().rules().stream()
                .collect(Collectors.groupingBy(
                        rule -> profile.watchesDatabases()
                                ? new NamespacePattern(rule.namespace().database(), null)
                                : rule.namespace(),
                        LinkedHashMap::new,
                        Collectors.toList()));
        Optional<String> usersDir = config.connectKafkaUsersDir();
        List<ConnectorDefinition> sourceList = new ArrayList<>();
        rulesByWatch.forEach((watched, rules) -> {
            Map<String, String> source = source(config, profile, mongodbUri, copyExisting, watched, rules);
            usersDir.ifPresent(dir -> source.putAll(runAs(dir, SOURCE_USER, SOURCE_CLIENTS)));
            sourceList.add(new ConnectorDefinition(SOURCE_NAME + "-" + watchName(watched), source));
        });
        this.sources = List.copyOf(sourceList);
        Map<String, String> sinkConfig =
                sink(config.deleteTopic(), SINK_DLQ_TOPIC, mongodbUri, allowedNamespaces(config), DEFAULT_SIGNING_KEY);
        String markFields = config.rules().rules().stream()
                .filter(rule -> rule.mark() != null)
                .map(rule -> rule.namespace() + "=" + rule.mark().field())
                .collect(Collectors.joining(","));
        if (!markFields.isEmpty()) {
            // Rules that mark: the guard lets through exactly their marks, and the write model applies them as
            // conditional updateOne commands (deletes stay deleteOne, as the stock strategy makes them).
            sinkConfig.put("transforms.guard.mark.fields", markFields);
            sinkConfig.put("writemodel.strategy", COMMAND_WRITE_MODEL);
        }
        usersDir.ifPresent(dir -> sinkConfig.putAll(runAs(dir, SINK_USER, SINK_CLIENTS)));
        this.sink = new ConnectorDefinition(SINK_NAME, sinkConfig);
    }

    /**
     * The client overrides that make a connector's Kafka clients log in as {@code user}: each one's {@code
     * <client>.override.sasl.jaas.config}, a {@code directory} config provider reference to the user's JAAS line in
     * {@code usersDir/<user>/sasl.jaas.config}, as a Strimzi KafkaUser's Secret mounted there holds it. The worker's
     * own security settings (protocol, mechanism, TLS) apply to the clients as before.
     */
    public static Map<String, String> runAs(String usersDir, String user, List<String> clients) {
        Map<String, String> overrides = new LinkedHashMap<>();
        for (String client : clients) {
            overrides.put(
                    client + ".override.sasl.jaas.config",
                    "${directory:" + usersDir + "/" + user + ":sasl.jaas.config}");
        }
        return overrides;
    }

    /**
     * Renders the connectors of {@code config}, as its {@link TtlStreamsConfig#sourceProfile() source profile}'s
     * service accepts them.
     *
     * @param mongodbUri   the {@code connection.uri} of both connectors, usually {@link #DEFAULT_MONGODB_URI}
     * @param copyExisting whether the source connectors first publish every existing document of the rules'
     *                     namespaces ({@code startup.mode=copy_existing}), for a first deployment on live data
     */
    public static ConnectorConfigs render(TtlStreamsConfig config, String mongodbUri, boolean copyExisting) {
        Objects.requireNonNull(config, "config");
        if (Objects.requireNonNull(mongodbUri, "mongodbUri").isBlank()) {
            throw new IllegalArgumentException("The MongoDB connection URI must not be blank");
        }
        return new ConnectorConfigs(
                config, RetryableWrites.connectionUri(config.sourceProfile(), mongodbUri), copyExisting);
    }

    /**
     * The source connectors, one per database the rules name (per collection where the profile watches collections
     * only), in rule order.
     */
    public List<ConnectorDefinition> sources() {
        return sources;
    }

    /** The sink connector that applies the delete commands. */
    public ConnectorDefinition sink() {
        return sink;
    }

    /**
     * Each connector by file name: {@code mongo-source.json} when the rules name a single database, else
     * {@code mongo-source-<db>.json} per database, then {@code mongo-ttl-sink.json}.
     */
    public Map<String, ConnectorDefinition> files() {
        Map<String, ConnectorDefinition> files = new LinkedHashMap<>();
        boolean single = sources.size() == 1;
        for (ConnectorDefinition source : sources) {
            files.put((single ? SOURCE_NAME : source.name()) + ".json", source);
        }
        files.put(SINK_NAME + ".json", sink);
        return files;
    }

    /** Writes {@link #files()} into {@code directory}, creating it if needed; returns the files written. */
    public List<Path> writeTo(Path directory) throws IOException {
        Files.createDirectories(directory);
        List<Path> written = new ArrayList<>();
        for (Map.Entry<String, ConnectorDefinition> file : files().entrySet()) {
            written.add(Files.writeString(
                    directory.resolve(file.getKey()), file.getValue().toJson()));
        }
        return written;
    }

    /** The namespaces the sink may delete in: those of the rules, in rule order, each once. */
    public static List<NamespacePattern> allowedNamespaces(TtlStreamsConfig config) {
        return config.rules().rules().stream()
                .map(TtlRule::namespace)
                .distinct()
                .toList();
    }

    /** Every connector, sources then sink, as one JSON array of REST API documents. */
    public String toJson() {
        return files().values().stream()
                .map(connector -> connector.toJson().strip())
                .collect(Collectors.joining(",\n", "[\n", "\n]\n"));
    }

    /** "db" for a database's connector, "db.coll" for a collection's. */
    private static String watchName(NamespacePattern watched) {
        return watched.collection() == null ? watched.database() : watched.database() + "." + watched.collection();
    }

    private static Map<String, String> source(
            TtlStreamsConfig config,
            SourceProfile profile,
            String mongodbUri,
            boolean copyExisting,
            NamespacePattern watched,
            List<TtlRule> rules) {
        String database = watched.database();
        Map<String, String> source = new LinkedHashMap<>();
        source.put("connector.class", SOURCE_CONNECTOR);
        source.put("connection.uri", mongodbUri);
        source.put("database", database);
        if (watched.collection() != null) {
            source.put("collection", watched.collection());
        }
        boolean preImages = rules.stream()
                .anyMatch(rule -> config.expiryEvents().document(rule.name()) == ExpiredDocument.PRE_IMAGE);
        source.put("pipeline", ChangeStreamPipeline.json(rules, config.documentKeyMaxBytes(), profile, preImages));
        source.put("change.stream.full.document", "updateLookup");
        if (preImages) {
            // whenAvailable, not required: a collection without changeStreamPreAndPostImages must not fail the
            // connector and with it every rule of the database; its expired records say the pre-image was missing.
            source.put("change.stream.full.document.before.change", "whenAvailable");
        }
        source.put("publish.full.document.only", "false");
        source.put("change.stream.document.key.as.key", "true");
        source.put("output.format.key", "json");
        source.put("output.format.value", "json");
        source.put("output.json.formatter", "com.mongodb.kafka.connect.source.json.formatter.ExtendedJson");
        source.put("key.converter", STRING_CONVERTER);
        source.put("value.converter", STRING_CONVERTER);
        // The key is the documentKey, whose shape a sharded collection changes: keyed by _id alone, the processor's
        // identity of a document, all its events and its resync events land on one partition.
        source.put("transforms", "documentIdKey");
        source.put("transforms.documentIdKey.type", SOURCE_KEY);
        String prefix = config.getString(SourceOptions.SOURCE_TOPIC_PREFIX_CONFIG);
        if (!prefix.isBlank()) {
            source.put("topic.prefix", prefix);
        }
        if (profile.heartbeats()) {
            source.put("heartbeat.interval.ms", Long.toString(HEARTBEAT_INTERVAL_MS));
            source.put("heartbeat.topic.name", heartbeatTopic(watchName(watched)));
        }
        if (copyExisting) {
            source.put("startup.mode", "copy_existing");
            source.put("startup.mode.copy.existing.namespace.regex", namespaceRegex(database, rules));
        } else {
            source.put("startup.mode", "latest");
        }
        // The connector's own errors: with "all", a resume token that fell off the oplog makes it restart from now,
        // a silent gap in which deletes go unseen and documents are never scheduled. "none" fails the task instead.
        // mongo.errors.tolerance overrides errors.tolerance for these.
        source.put("mongo.errors.tolerance", "none");
        if (profile.takesFullPipeline()) {
            // Every record the bounded pipeline can produce, pre-image or marker included, is one the producer sends
            // (the worker's default is 1 MiB, less than one event with a 256 KiB pre-image may take as JSON).
            source.put(
                    SOURCE_MAX_REQUEST_SIZE,
                    Integer.toString(ChangeStreamPipeline.maxRecordBytes(config.documentKeyMaxBytes(), preImages)));
        }
        // Connect's: an event the worker's producer cannot send (over max.request.size: rule fields beyond the
        // pipeline's allowance, or a service whose pipeline cannot bound them) is skipped, logged and counted in
        // task-error-metrics (KIP-779) instead of failing the task and with it the expiry of every namespace it
        // watches. The skipped document is never scheduled: never deleted, not early.
        source.put("errors.tolerance", "all");
        source.put("errors.log.enable", "true");
        return source;
    }

    /**
     * The heartbeat topic of the source connector watching {@code watched}: a database ("db"), or, where the
     * profile watches collections only, a collection ("db.coll").
     */
    public static String heartbeatTopic(String watched) {
        return HEARTBEAT_TOPIC_PREFIX + watched;
    }

    /** The heartbeat topic of the source connector that watches {@code namespace} under {@code profile}. */
    public static String heartbeatTopic(SourceProfile profile, Namespace namespace) {
        return heartbeatTopic(profile.watchesDatabases() ? namespace.database() : namespace.toString());
    }

    /**
     * The sink connector's configuration: for each delete command, {@code deleteOne(filter = value._id)} in the
     * namespace named by {@code value.ns}. The one definition of it, for production and the embedded stack alike.
     *
     * Every record first passes the sink guard ({@value #SINK_GUARD}), which refuses, to the dead-letter topic,
     * what the processor did not sign, what names a namespace outside {@code allowedNamespaces} and any filter
     * outside the grammar the processor emits.
     *
     * @param deleteTopic the processor's delete topic
     * @param deadLetterTopic where commands the sink cannot apply go
     * @param mongodbUri the connection URI
     * @param allowedNamespaces the namespaces commands may delete in: the rules'
     * @param signingKey the guard's {@code signing.key}: a config provider reference to the processor's secret
     *     ({@link #DEFAULT_SIGNING_KEY}; the embedded stack's worker has a file of its own), since Connect's REST API
     *     shows a connector's configuration as stored, a key in clear included
     */
    public static Map<String, String> sink(
            String deleteTopic,
            String deadLetterTopic,
            String mongodbUri,
            List<NamespacePattern> allowedNamespaces,
            String signingKey) {
        if (allowedNamespaces.isEmpty()) {
            throw new IllegalArgumentException("The sink needs at least one allowed namespace");
        }
        Map<String, String> sink = new LinkedHashMap<>();
        sink.put("connector.class", SINK_CONNECTOR);
        sink.put("connection.uri", mongodbUri);
        sink.put("topics", deleteTopic);
        // Strings, parsed by the sink as extended JSON: a JsonConverter would turn {"$date": ...} into a map and
        // the filter would silently lose the date, making the delete unconditional.
        sink.put("key.converter", STRING_CONVERTER);
        sink.put("value.converter", STRING_CONVERTER);
        // The guard checks the signature headers byte for byte; the default SimpleHeaderConverter would parse them.
        sink.put("header.converter", BYTE_ARRAY_CONVERTER);
        // Before anything is applied: only signed commands, in the rules' namespaces, in the processor's grammar.
        sink.put("transforms", "guard");
        sink.put("transforms.guard.type", SINK_GUARD);
        sink.put(
                "transforms.guard.allowed.namespaces",
                allowedNamespaces.stream().map(NamespacePattern::toString).collect(Collectors.joining(",")));
        sink.put("transforms.guard.signing.key", signingKey);
        // value._id is the complete filter (document key + condition), used verbatim.
        sink.put(
                "document.id.strategy", "com.mongodb.kafka.connect.sink.processor.id.strategy.ProvidedInValueStrategy");
        // The id post-processor would re-set value._id to itself; without this it logs a warning per record.
        sink.put("document.id.strategy.overwrite.existing", "true");
        sink.put(
                "writemodel.strategy",
                "com.mongodb.kafka.connect.sink.writemodel.strategy.DeleteOneBusinessKeyStrategy");
        sink.put("namespace.mapper", "com.mongodb.kafka.connect.sink.namespace.mapping.FieldPathNamespaceMapper");
        sink.put("namespace.mapper.value.database.field", "ns.db");
        sink.put("namespace.mapper.value.collection.field", "ns.coll");
        // A command without ns fails (to the dead-letter topic) instead of deleting in the default namespace.
        sink.put("namespace.mapper.error.if.invalid", "true");
        sink.put("database", UNUSED_DEFAULT_NAMESPACE);
        sink.put("collection", UNUSED_DEFAULT_NAMESPACE);
        // The processor writes in exactly-once transactions: apply committed commands only.
        sink.put("consumer.override.isolation.level", "read_committed");
        // Each command is independent: unordered, one refused command (a validator rejecting a mark, code 121) skips
        // none of the later ones of its batch to the dead-letter topic (mongo-kafka 2.0.1 StartedMongoSinkTask
        // reports every record after an ordered batch's first write error as skipped).
        sink.put("bulk.write.ordered", "false");
        // Connect's tolerance covers the guard's refusals (transformation stage): parked in the dead-letter topic.
        sink.put("errors.tolerance", "all");
        // The connector's own, which it reads instead whenever set (MongoSinkTopicConfig.tolerateDataErrors): with
        // "data" a command's own write error (MongoBulkWriteException) is parked, but any other failure - no primary
        // within serverSelectionTimeoutMS, NotWritablePrimary after the one retryable-write retry, a socket error, a
        // refused login - fails the task with the batch's offsets uncommitted, instead of parking every command of
        // the batch as "all" does. The processor's connector monitor restarts a failed sink task with backoff, and
        // the task applies the same commands again once MongoDB answers: an outage delays deletes, loses none.
        sink.put("mongo.errors.tolerance", "data");
        sink.put("errors.deadletterqueue.topic.name", deadLetterTopic);
        sink.put("errors.deadletterqueue.context.headers.enable", "true");
        sink.put("errors.log.enable", "true");
        return sink;
    }

    /**
     * The connector matches this Java regex against "db.coll" with {@code find()}, so it is anchored at both ends.
     */
    static String namespaceRegex(String database, List<TtlRule> rules) {
        List<String> collections = ChangeStreamPipeline.exactCollections(rules);
        String collectionPart = collections.isEmpty()
                ? ".+"
                : collections.stream().map(ConnectorConfigs::quote).collect(Collectors.joining("|", "(", ")"));
        return "^" + quote(database) + "\\." + collectionPart + "$";
    }

    /** Escapes regex metacharacters with a backslash, which reads better than \Q...\E in a JSON file. */
    private static String quote(String literal) {
        return literal.replaceAll("[\\\\.\\[\\]{}()<>*+\\-=!?^$|]", "\\\\$0");
    }
}
